package tokens

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
)

// Token is one term with its byte offsets in the input.
type Token struct {
	Term       string
	Start, End int
	// Part marks a piece of a larger identifier (ParseHTTPRequest → parse,
	// http, request); the whole identifier is emitted too, not as a part.
	Part bool
}

func isWordByte(c byte) bool { return wordBytes[c] }

// wordBytes marks the ASCII bytes of identifiers.
var wordBytes = func() (t [256]bool) {
	for c := range 128 {
		t[c] = c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()

// Words finds identifier-like runs in b: ASCII identifier characters and any
// Unicode letters or digits. A run is of one script class (scriptOf): an
// identifier written against Chinese or Japanese text without a space
// ("调用status.FromError时") is a word of its own, not part of the text's.
func Words(b []byte, fn func(start, end int)) {
	i := 0
	for i < len(b) {
		c := b[i]
		cls := latin
		if c < utf8.RuneSelf {
			if !isWordByte(c) {
				i++
				continue
			}
		} else {
			r, n := utf8.DecodeRune(b[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += n
				continue
			}
			cls = scriptOf(r)
		}
		start := i
		if cls != latin {
			for i < len(b) && b[i] >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(b[i:])
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) || scriptOf(r) != cls {
					break
				}
				i += n
			}
			fn(start, i)
			continue
		}
		for i < len(b) {
			c := b[i]
			if c < utf8.RuneSelf {
				if !isWordByte(c) {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRune(b[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) || scriptOf(r) != latin {
				break
			}
			i += n
		}
		fn(start, i)
	}
}

// Script classes of letters, as words are cut: text in the ideographic
// scripts (Han, Hiragana, Katakana) has no spaces between its words, and
// Korean's Hangul has them but is written against Latin identifiers as
// often; every other letter and digit is of one class with ASCII's.
const (
	latin = iota
	ideographic
	hangul
)

func scriptOf(r rune) int {
	switch {
	case r < 0x1100:
		return latin
	case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || r == 0x30FC:
		return ideographic // 0x30FC: the prolonged sound mark, Common by script
	case unicode.Is(unicode.Hangul, r):
		return hangul
	}
	return latin
}

// ideographicRun reports whether the word at b starts (and so, by Words,
// is all) in an ideographic script.
func ideographicRun(b []byte) bool {
	if len(b) == 0 || b[0] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRune(b)
	return scriptOf(r) == ideographic
}

// Split cuts an identifier into its parts: "parseHTTPRequest2" → parse,
// HTTP, Request, 2; "snake_case_name" → snake, case, name. Parts keep their
// case; the caller lower-cases.
func Split(s string, fn func(part string, start int)) {
	n := len(s)
	start := -1
	emit := func(end int) {
		if start >= 0 && end > start {
			fn(s[start:end], start)
		}
		start = -1
	}
	for i := 0; i < n; {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == '_' || r == '$' || r == '-':
			emit(i)
		case start < 0:
			start = i
		default:
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			switch {
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				emit(i) // letters to digits and back
				start = i
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				emit(i) // camelCase
				start = i
			case unicode.IsLower(r) && unicode.IsUpper(prev) && i-len(string(prev)) > start:
				// HTTPRequest: the upper run ends before the last upper letter
				p := i - utf8.RuneLen(prev)
				emit(p)
				start = p
			}
		}
		i += w
	}
	emit(n)
}

// lower returns an ASCII-fast lower-case copy.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			return toLowerSlow(s)
		}
	}
	return s
}

func toLowerSlow(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return string(b)
}

// Lower is exported for callers that match terms.
func Lower(s string) string { return lower(s) }

// Code tokenises source: every identifier lower-cased, and, when it has
// several parts, each part too.
func Code(b []byte, fn func(Token)) { scan(b, false, fn) }

// Stem reduces an English word to its Porter stem.
func Stem(w string) string {
	if len(w) < 4 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf || !(w[i] >= 'a' && w[i] <= 'z') {
			return w
		}
	}
	return porter.StemString(w)
}

// Text tokenises prose (comments, docs, issue text): like Code, with stop
// words dropped and words stemmed, so "refreshing" meets "refresh".
func Text(b []byte, fn func(Token)) { scan(b, true, fn) }

// word is what one spelling of an identifier turns into: its whole term
// ("" when prose drops it) and its parts (none when it has only one).
type word struct {
	whole string
	parts []part
}

type part struct {
	term     string
	off, len int // where the part is in the identifier, as spelled
}

// analyse works out the terms of identifier w (at most 64 bytes).
func analyse(w string, text bool) word {
	keep := func(t string) string {
		if text {
			if Stop[t] || len(t) < 2 {
				return ""
			}
			return Stem(t)
		}
		return t
	}
	out := word{whole: keep(lower(w))}
	n := 0
	Split(w, func(string, int) { n++ })
	if n > 1 {
		Split(w, func(p string, off int) {
			if len(p) > 1 || unicode.IsDigit(rune(p[0])) {
				if t := keep(lower(p)); t != "" {
					out.parts = append(out.parts, part{t, off, len(p)})
				}
			}
		})
	}
	return out
}

// Source text repeats its identifiers, so the analysis of each spelling is
// kept in a small cache; a goroutine takes one of a few caches for a whole
// call (TryLock, so nothing waits: with none free, it analyses uncached).
// A cache that reaches its bound starts over. Cached strings are shared by
// the tokens of every call, which is safe because strings are immutable.
// (A direct-mapped table of 8,192 slots, tried instead of the map, missed
// often enough to make prose a third slower.)
var cacheWords = 1 << 13 // a variable so tests can make it small

type wordCache struct {
	mu         sync.Mutex
	code, text map[string]word
}

var (
	caches    = make([]wordCache, 2*runtime.GOMAXPROCS(0))
	cacheNext atomic.Uint32
)

func takeCache() *wordCache {
	n := uint32(len(caches))
	first := cacheNext.Add(1)
	for i := range n {
		c := &caches[(first+i)%n]
		if c.mu.TryLock() {
			return c
		}
	}
	return nil
}

func scan(b []byte, text bool, fn func(Token)) {
	var m map[string]word
	if c := takeCache(); c != nil {
		defer c.mu.Unlock()
		p := &c.code
		if text {
			p = &c.text
		}
		if *p == nil {
			*p = make(map[string]word, 1024)
		}
		m = *p
	}
	Words(b, func(start, end int) {
		if ideographicRun(b[start:end]) {
			bigrams(b, start, end, m, fn)
			return
		}
		if end-start > 64 {
			return // hashes, base64, generated blobs
		}
		w, ok := m[string(b[start:end])]
		if !ok {
			s := string(b[start:end])
			w = analyse(s, text)
			if m != nil {
				if len(m) >= cacheWords {
					clear(m)
				}
				m[s] = w
			}
		}
		if w.whole != "" {
			fn(Token{Term: w.whole, Start: start, End: end})
		}
		for _, p := range w.parts {
			fn(Token{Term: p.term, Start: start + p.off, End: start + p.off + p.len, Part: true})
		}
	})
}

// bigrams emits a run of ideographic text as its overlapping pairs of
// characters ("连接没有" → 连接, 接没, 没有), a run of one character as
// itself: the text has no spaces to find its words by, and pairs match
// whichever words a query and a comment share without a dictionary (as
// search engines' CJK analysis does). The pairs are whole terms, never
// parts, and are neither stemmed nor stopped; the run has no length bound.
// m, when not nil, interns the pairs' strings.
func bigrams(b []byte, start, end int, m map[string]word, fn func(Token)) {
	emit := func(s, e int) {
		w, ok := m[string(b[s:e])]
		if !ok {
			w = word{whole: string(b[s:e])}
			if m != nil {
				if len(m) >= cacheWords {
					clear(m)
				}
				m[w.whole] = w
			}
		}
		fn(Token{Term: w.whole, Start: s, End: e})
	}
	_, first := utf8.DecodeRune(b[start:end])
	if start+first == end {
		emit(start, end)
		return
	}
	for i := start; i+first < end; {
		_, n2 := utf8.DecodeRune(b[i+first : end])
		emit(i, i+first+n2)
		i += first
		first = n2
	}
}

// Stop are English function words and the keywords every language repeats.
var Stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
		"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
		"this", "to", "was", "will", "with", "we", "i", "you", "he", "she", "my", "me", "do", "does",
		"did", "have", "has", "had", "can", "could", "would", "should", "so", "than", "too", "very",
		"when", "which", "what", "who", "how", "all", "any", "some", "there", "here", "from", "been",
		"also", "just", "its", "our", "your", "them", "were", "am", "get", "got", "use", "used",
		"self", "def", "func", "return", "returns", "var", "let", "const", "else", "elif", "nil", "null",
		"none", "true", "false", "import", "package", "class", "public", "private", "static", "void",
		"fn", "pub", "struct",
	} {
		m[w] = true
	}
	return m
}()

// NameWords splits an identifier or key into lower-case words: camelCase,
// PascalCase, snake_case, kebab-case, dotted and digit boundaries, with
// acronyms kept whole ("ArtifactURL" → artifact, url); any other
// character that is not a letter or digit separates too ("pkg.Name"). Trace
// normalizes keys with it and the engine matches partial symbol names.
func NameWords(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			out = append(out, lower(string(rs[start:i])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			// "URLPath": the P starts a word
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}
