package tokens

import (
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

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Words finds identifier-like runs in b: ASCII identifier characters and any
// Unicode letters or digits.
func Words(b []byte, fn func(start, end int)) {
	i := 0
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) {
				i++
				continue
			}
		} else if r, _ := utf8.DecodeRune(b[i:]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			_, n := utf8.DecodeRune(b[i:])
			i += n
			continue
		}
		start := i
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
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			i += n
		}
		fn(start, i)
	}
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
func Code(b []byte, fn func(Token)) {
	Words(b, func(start, end int) {
		w := string(b[start:end])
		if len(w) > 64 {
			return // hashes, base64, generated blobs
		}
		fn(Token{Term: lower(w), Start: start, End: end})
		parts := 0
		Split(w, func(string, int) { parts++ })
		if parts > 1 {
			Split(w, func(p string, off int) {
				if len(p) > 1 || unicode.IsDigit(rune(p[0])) {
					fn(Token{Term: lower(p), Start: start + off, End: start + off + len(p), Part: true})
				}
			})
		}
	})
}

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
func Text(b []byte, fn func(Token)) {
	Code(b, func(t Token) {
		if Stop[t.Term] || len(t.Term) < 2 {
			return
		}
		t.Term = Stem(t.Term)
		fn(t)
	})
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
