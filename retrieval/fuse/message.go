package fuse

import (
	"bytes"
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
// like a value (quoted text, numbers) and each piece is shortened word by
// word from its end until the code holds it.

// messageValueRE matches the parts of a message that are likely values
// formatted into it: quoted text, numbers, hexadecimal addresses.
var messageValueRE = regexp.MustCompile(`'[^']*'|"[^"]*"|\x60[^\x60]*\x60|\b0x[0-9a-fA-F]+\b|[-+]?\b\d+(?:\.\d+)?\b|[()\[\]{}<>]`)

// messagePieces returns the fixed-looking pieces of an error line
// ("TypeError: msg"), longest first: at least two words and ten bytes.
func messagePieces(line string) []string {
	msg := line
	if i := strings.Index(line, ": "); i > 0 && !strings.Contains(line[:i], " ") {
		msg = line[i+2:] // the exception's type is a name, matched as one
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

// shorter returns p without its last word, "" when fewer than two words or
// ten bytes would remain.
func shorter(p string) string {
	i := strings.LastIndexByte(p, ' ')
	if i < 0 {
		return ""
	}
	p = strings.TrimRight(p[:i], " \t:;,.!?-=")
	if len(p) < 10 || !strings.Contains(p, " ") {
		return ""
	}
	return p
}

// maxMessageFiles bounds the files read per message piece.
const maxMessageFiles = 8

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
	for i, e := range s.q.Errors {
		if i >= 4 {
			break
		}
		for _, piece := range messagePieces(e) {
			hits, err := s.e.Text.Search(s.ctx, bm25.Query{Text: piece}, 40)
			if err != nil {
				return err
			}
			live, err := s.live(hits)
			if err != nil {
				return err
			}
			var files []string
			for _, h := range live {
				if len(files) == maxMessageFiles {
					break
				}
				if !slices.Contains(files, h.ref.Path) {
					files = append(files, h.ref.Path)
				}
			}
			// the longest form of the piece some file holds verbatim
			for p := piece; p != ""; p = shorter(p) {
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
