package fuse

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
// ("TypeError: msg"), longest first: at least two words and ten bytes.
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

// messages: the chunks that hold the fixed text of the query's error
// messages. It reads files from the indexed worktree; without one (a
// shared store indexed elsewhere) it finds nothing.
func (s *search) messages() error {
	if !s.on[GenMessage] || s.e.Text == nil || len(s.q.Errors) == 0 {
		return nil
	}
	root, err := s.e.root(s.ctx)
	if err != nil || root == "" {
		return err
	}
	content := map[string][]byte{}
	read := func(p string) []byte {
		if b, ok := content[p]; ok {
			return b
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			b = nil // a file gone since indexing holds nothing
		}
		content[p] = b
		return b
	}
	rank := 0
	seen := map[int64]bool{}
	pieces := map[string]bool{}
	for i, e := range s.q.Errors {
		if i >= 4 {
			break
		}
		for _, piece := range messagePieces(e) {
			if pieces[piece] {
				continue // a message repeated
			}
			pieces[piece] = true
			hits, err := s.e.Text.Search(s.ctx, bm25.Query{Text: piece}, 100)
			if err != nil {
				return err
			}
			live, err := s.live(hits)
			if err != nil {
				return err
			}
			// the files of the best chunks; tests, which repeat the
			// messages they check, are read only a few
			var files []string
			tests := 0
			for _, h := range live {
				if len(files) == maxMessageFiles {
					break
				}
				if slices.Contains(files, h.ref.Path) {
					continue
				}
				if isTestPath(h.ref.Path) {
					if tests == maxMessageTests {
						continue
					}
					tests++
				}
				files = append(files, h.ref.Path)
			}
			// code that writes the message before tests that check it
			slices.SortStableFunc(files, func(a, b string) int { return cmp.Compare(b2i(isTestPath(a)), b2i(isTestPath(b))) })
			// the longest run of the piece's words some file holds verbatim
			for _, p := range windows(piece) {
				found := false
				for _, f := range files {
					b := read(f)
					for off := 0; ; {
						j := bytes.Index(b[off:], []byte(p))
						if j < 0 {
							break
						}
						off += j + len(p)
						line := uint32(bytes.Count(b[:off-len(p)], []byte("\n")) + 1)
						c, ok := s.chunkAt(f, line)
						if !ok || seen[c.ID] {
							continue
						}
						seen[c.ID] = true
						found = true
						rank++
						s.add(GenMessage, c, rank, fmt.Sprintf("holds the message %q", p))
					}
				}
				if found {
					break
				}
			}
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
