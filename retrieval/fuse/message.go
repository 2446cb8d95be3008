package fuse

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/bm25"
)

// The message generator finds the code that wrote an error message the
// query quotes: the message's fixed words are searched by BM25, and the
// chunks of the files it finds are kept only where the file holds the
// words verbatim. A message is partly fixed text and partly values
// formatted into it ("Unrecognized QDP line: read serr 1 2" comes from
// f"Unrecognized QDP line: {line}"), so the message is cut at what looks
// like a value (quoted text, numbers), and of each piece the longest run
// of words that the code holds counts.

// messageValueRE matches the parts of a message that are likely values
// formatted into it: quoted text, numbers, hexadecimal addresses.
var messageValueRE = regexp.MustCompile(`'[^']*'|"[^"]*"|\x60[^\x60]*\x60|\b0x[0-9a-fA-F]+\b|[-+]?\b\d+(?:\.\d+)?\b|[()\[\]{}<>]`)

// messagePieces returns the fixed-looking pieces of an error line
// ("TypeError: msg"), in order: at least two words and ten bytes each.
func messagePieces(line string) []string {
	msg := strings.TrimSpace(line)
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		msg = msg[i+2:] // the exception's type is a name, matched as one
	}
	var out []string
	for _, p := range messageValueRE.Split(msg, -1) {
		p = strings.Trim(p, " \t:;,.!?-=")
		if len(p) >= 10 && strings.Contains(p, " ") {
			out = append(out, p)
		}
	}
	return out
}

// windows returns the runs of consecutive words of piece that could be
// the fixed text of a message, longest first (earliest first among equal
// lengths): the whole piece, then shorter runs of at least three words and
// fifteen bytes, since values may be formatted in anywhere ("Right contains
// more items" comes from "%s contains %d more items"). At most
// maxMessageWindows.
func windows(piece string) []string {
	words := strings.Fields(piece)
	out := []string{strings.Join(words, " ")}
	for n := len(words) - 1; n >= 3; n-- {
		for i := 0; i+n <= len(words); i++ {
			w := strings.Trim(strings.Join(words[i:i+n], " "), " \t:;,.!?-=")
			if len(w) >= 15 && !slices.Contains(out, w) {
				out = append(out, w)
			}
			if len(out) == maxMessageWindows {
				return out
			}
		}
	}
	return out
}

// maxMessageWindows bounds the runs of words tried per message piece.
const maxMessageWindows = 40

// maxMessageFiles bounds the files read per message piece, of which at
// most maxMessageTests are tests.
const (
	maxMessageFiles = 16
	maxMessageTests = 4
)

// messageFind is a place a file holds a message's words verbatim.
type messageFind struct {
	path   string
	line   uint32
	window string
	quoted bool // a literal the query quotes, not an error message's words
}

type messageFinds struct {
	finds []messageFind
	err   error
}

// scanMessages looks for the fixed text of the query's error messages in
// the indexed worktree's files, without touching the search's candidates:
// it runs beside the other generators, and messages turns its finds into
// chunks. Without a worktree on this machine (a shared store indexed
// elsewhere) it finds nothing.
func (s *search) scanMessages() ([]messageFind, error) {
	repo, err := s.e.worktreeFiles(s.ctx)
	if err != nil || repo == nil {
		return nil, err
	}
	m := messageSearch{s: s, repo: repo, content: map[string][]byte{}}
	pieces := map[string]bool{}
	for i, e := range s.q.Errors {
		if i == maxMessages {
			break
		}
		for _, piece := range messagePieces(e) {
			if pieces[piece] {
				continue // a message repeated
			}
			pieces[piece] = true
			files, err := m.files(piece)
			if err != nil {
				return nil, err
			}
			// the longest run of the piece's words some file holds verbatim
			for _, w := range windows(piece) {
				if m.verbatim(files, w) {
					break
				}
			}
		}
	}
	// Quoted literals: the places in code that hold them, when few do.
	for n, lit := range s.q.Literals {
		if n == maxMessages {
			break
		}
		files, err := m.files(lit)
		if err != nil {
			return nil, err
		}
		var code []string
		for _, f := range files {
			if !s.e.category(f).Has(graph.FileTest) {
				code = append(code, f)
			}
		}
		before := len(m.finds)
		m.verbatim(code, lit)
		holders := map[string]bool{}
		for k := before; k < len(m.finds); k++ {
			m.finds[k].quoted = true
			holders[m.finds[k].path] = true
		}
		if len(holders) > maxLiteralFiles {
			m.finds = m.finds[:before] // a literal this common names no place
		}
	}
	return m.finds, nil
}

// maxLiteralFiles: a quoted literal more code files than this hold is too
// common to say where the issue is.
const maxLiteralFiles = 5

// messages: the chunks at the places scanMessages found, in its order.
func (s *search) messages() error {
	if s.msg == nil {
		return nil
	}
	r := <-s.msg
	if r.err != nil {
		return r.err
	}
	rank := 0
	seen := map[int64]bool{}
	for _, f := range r.finds {
		c, ok := s.chunkAt(f.path, f.line)
		if !ok || seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		rank++
		why := fmt.Sprintf("holds the message %q", f.window)
		if f.quoted {
			why = fmt.Sprintf("holds %q, quoted in the query", f.window)
		}
		s.add(GenMessage, c, rank, why)
	}
	return nil
}

// maxMessages bounds the error messages of a query that are searched.
const maxMessages = 4

// messageSearch is the state of one query's message scan.
type messageSearch struct {
	s       *search
	repo    Files
	content map[string][]byte // files read, nil when unreadable
	finds   []messageFind
}

// files returns the files of the chunks BM25 finds for piece, code before
// tests; tests, which repeat the messages they check, only a few.
func (m *messageSearch) files(piece string) ([]string, error) {
	hits, err := m.s.e.Text.Search(m.s.ctx, bm25.Query{Text: piece, Ties: true}, 100)
	if err != nil {
		return nil, err
	}
	live, err := m.s.live(hits)
	if err != nil {
		return nil, err
	}
	var code, tests []string
	for _, h := range live {
		if len(code)+len(tests) == maxMessageFiles {
			break
		}
		p := h.ref.Path
		if slices.Contains(code, p) || slices.Contains(tests, p) {
			continue
		}
		if !m.s.e.category(p).Has(graph.FileTest) {
			code = append(code, p)
		} else if len(tests) < maxMessageTests {
			tests = append(tests, p)
		}
	}
	return append(code, tests...), nil
}

// read returns a file's content from the worktree (nil when it is gone).
func (m *messageSearch) read(p string) []byte {
	if b, ok := m.content[p]; ok {
		return b
	}
	b, err := m.repo.ReadFile(p)
	if err != nil {
		b = nil
	}
	m.content[p] = b
	return b
}

// verbatim records every place one of files holds w, and reports whether
// there was any.
func (m *messageSearch) verbatim(files []string, w string) bool {
	found := false
	pat := []byte(w)
	for _, f := range files {
		b := m.read(f)
		line, counted := uint32(1), 0 // lines up to byte counted
		for off := 0; ; {
			j := bytes.Index(b[off:], pat)
			if j < 0 {
				break
			}
			at := off + j
			line += uint32(bytes.Count(b[counted:at], []byte("\n")))
			counted, off = at, at+len(pat)
			m.finds = append(m.finds, messageFind{path: f, line: line, window: w})
			found = true
		}
	}
	return found
}
