package treesitter

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
)

// signature is the definition's text before its body, on one line.
func (e *extraction) signature(d *rawDef) string {
	start := d.outer.start
	end := d.node.EndByte()
	if body := e.spec.body(d.node); body != nil {
		end = body.StartByte()
	} else if d.kind == graph.KindField || d.kind == graph.KindVariable || d.kind == graph.KindConstant ||
		d.kind == graph.KindEnumMember || d.kind == graph.KindProperty {
		// one declaration line is enough, after any decorator lines
		for e.spec.stripDecorators && start < end {
			line := e.src[start:end]
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				line = line[:i]
			}
			t := bytes.TrimSpace(line)
			if !(bytes.HasPrefix(t, []byte("@")) || bytes.HasPrefix(t, []byte("#["))) || int(start)+len(line) >= int(end) {
				break
			}
			start += uint32(len(line)) + 1
		}
		if i := bytes.IndexByte(e.src[start:end], '\n'); i >= 0 {
			end = start + uint32(i)
		}
	}
	if end < start {
		end = start
	}
	s := string(e.src[start:end])
	if e.spec.firstLineSignature {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
	}
	// Drop decorators and annotations on their own lines before the head.
	if e.spec.stripDecorators {
		lines := strings.Split(s, "\n")
		for len(lines) > 1 && (strings.HasPrefix(strings.TrimSpace(lines[0]), "@") || strings.HasPrefix(strings.TrimSpace(lines[0]), "#[")) {
			lines = lines[1:]
		}
		s = strings.Join(lines, "\n")
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, " {:=")
	// redacted before the cut, which could leave a secret too short to
	// be recognised
	s = redact.Line(e.path, s, true)
	if len(s) > 300 {
		s = s[:300]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// doc returns the definition's documentation: a docstring when the language
// has them, else the comments directly above it.
func (e *extraction) doc(d *rawDef) string {
	if e.spec.docstring != nil {
		if s := e.spec.docstring(d.node, e.src); s != "" {
			return s
		}
	}
	_, first, last := e.docSpan(d)
	var b strings.Builder
	for _, c := range e.comments[first:last] {
		b.Write(e.src[c.start:c.end])
		b.WriteByte('\n')
	}
	return cleanComment(b.String())
}

// docSpan returns the start byte of the comment block directly above the
// definition (d.outer.start if none) and the indexes [first, last) of its
// comments: comments that each start their own line and end on the line
// before the next, the last one on the line before the definition.
func (e *extraction) docSpan(d *rawDef) (start uint32, first, last int) {
	start = d.outer.start
	line := uint32(d.r.StartLine - 1)
	i, _ := slices.BinarySearchFunc(e.comments, start, func(c commentSpan, at uint32) int { return cmp.Compare(c.start, at) })
	last, first = i, i
	for i--; i >= 0; i-- {
		c := e.comments[i]
		if c.endLine+1 != line || !startsLine(e.src, c.start) {
			break
		}
		start, line, first = c.start, c.startLine, i
	}
	return start, first, last
}

func startsLine(src []byte, at uint32) bool {
	for i := int(at) - 1; i >= 0; i-- {
		switch src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
			continue
		}
		return false
	}
	return true
}

var commentPrefixes = []string{"///", "//!", "//", "/**", "/*", "*/", "*", "#", "--"}

func cleanComment(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		t = strings.TrimSuffix(t, "*/")
		for _, p := range commentPrefixes {
			if strings.HasPrefix(t, p) {
				t = t[len(p):]
				break
			}
		}
		t = strings.TrimSpace(t)
		if t != "" || len(out) > 0 {
			out = append(out, t)
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.ToValidUTF8(strings.Join(out, "\n"), "\uFFFD")
}
