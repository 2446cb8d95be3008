package treesitter

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// chunks cuts the file into function, type and file chunks.
func (e *extraction) chunks(ff *graph.FileFacts) []graph.Chunk {
	type cut struct {
		start, end uint32
		c          graph.Chunk
	}
	var cuts []cut
	isFunc := func(k graph.SymbolKind) bool { return k.IsCallable() }
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		if !(isFunc(s.Kind) || s.Kind.IsType()) {
			continue
		}
		if isFunc(s.Kind) && !e.hasBody(i) {
			continue // interface methods, declarations
		}
		nested := false
		for p := s.Parent; p >= 0; p = ff.Symbols[p].Parent {
			if isFunc(ff.Symbols[p].Kind) {
				nested = true
				break
			}
		}
		if nested {
			continue
		}
		// include the doc comment above
		start, _, _ := e.docSpan(e.symDefs[i])
		kind := graph.ChunkFunction
		if s.Kind.IsType() {
			kind = graph.ChunkType
		}
		r := byteRange(e.src, start, s.Range.EndByte)
		cuts = append(cuts, cut{start: start, end: s.Range.EndByte, c: graph.Chunk{
			Path: e.path, Range: r, Kind: kind, Symbol: s.ID, Name: s.QualifiedName(),
		}})
	}
	slices.SortStableFunc(cuts, func(a, b cut) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end)) })

	// A chunk's text leaves out the chunks nested in it.
	textOf := func(start, end uint32, inner []cut) string {
		var b strings.Builder
		pos := start
		for _, c := range inner {
			if c.start < pos || c.end > end {
				continue
			}
			b.Write(e.src[pos:c.start])
			b.WriteByte('\n')
			pos = c.end
		}
		b.Write(e.src[pos:end])
		return b.String()
	}
	var out []graph.Chunk
	var top []cut
	for i, c := range cuts {
		var inner []cut
		for _, o := range cuts[i+1:] {
			if o.start >= c.end {
				break
			}
			if o.end <= c.end {
				inner = append(inner, o)
			}
		}
		inner = outermost(inner, func(x cut) (uint32, uint32) { return x.start, x.end })
		c.c.Text = textOf(c.start, c.end, inner)
		c.c.Hash = hashText(c.c.Text)
		out = append(out, c.c)
		if len(top) == 0 || c.start >= top[len(top)-1].end {
			top = append(top, c)
		}
	}
	fileText := textOf(0, uint32(len(e.src)), top)
	fc := graph.Chunk{Path: e.path, Range: byteRange(e.src, 0, uint32(len(e.src))), Kind: graph.ChunkFile, Name: path.Base(e.path), Text: fileText, Hash: hashText(fileText)}
	return append([]graph.Chunk{fc}, out...)
}

func outermost[T any](xs []T, r func(T) (uint32, uint32)) []T {
	var out []T
	var end uint32
	for i, x := range xs {
		s, en := r(x)
		if i > 0 && s < end {
			continue
		}
		out = append(out, x)
		end = en
	}
	return out
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

// byteRange builds a Range for [start, end) by counting lines.
func byteRange(src []byte, start, end uint32) graph.Range {
	sl := uint32(bytes.Count(src[:start], []byte{'\n'})) + 1
	el := sl + uint32(bytes.Count(src[start:end], []byte{'\n'}))
	sc := start - uint32(bytes.LastIndexByte(src[:start], '\n')+1)
	ec := end - uint32(bytes.LastIndexByte(src[:end], '\n')+1)
	return graph.Range{StartByte: start, EndByte: end, StartLine: sl, EndLine: el, StartCol: sc, EndCol: ec}
}

// textChunks cuts a text file into windows of TextWindowLines lines.
func textChunks(p string, src []byte) []graph.Chunk {
	var out []graph.Chunk
	start := 0
	for start < len(src) || (start == 0 && len(src) == 0) {
		end := start
		for n := 0; n < TextWindowLines && end < len(src); n++ {
			i := bytes.IndexByte(src[end:], '\n')
			if i < 0 {
				end = len(src)
				break
			}
			end += i + 1
		}
		r := byteRange(src, uint32(start), uint32(end))
		text := string(src[start:end])
		name := path.Base(p)
		if start > 0 || end < len(src) {
			name = fmt.Sprintf("%s#L%d-%d", name, r.StartLine, r.EndLine)
		}
		out = append(out, graph.Chunk{Path: p, Range: r, Kind: graph.ChunkFile, Name: name, Text: text, Hash: hashText(text)})
		if end == start {
			break
		}
		start = end
	}
	return out
}

// TextChunks exposes the text-file chunker to the indexer for files whose
// parse failed before extraction.
func TextChunks(p string, src []byte) []graph.Chunk { return textChunks(p, src) }

// FillChunkTexts gives chunks stored without their text (path, byte range,
// kind and hash, in the order Extract made them) their text again from the
// file's content src, as Extract cut it: a chunk's text leaves out the
// outermost chunks nested in it, the whole-file chunk leaves out every
// outermost chunk. It reports false, leaving texts unset, when any text's
// hash differs from the stored one (src is not the content indexed).
func FillChunkTexts(src []byte, chunks []graph.Chunk) bool {
	texts := make([]string, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		start, end := c.Range.StartByte, c.Range.EndByte
		if start > end || int(end) > len(src) {
			return false
		}
		var inner []graph.Chunk
		for j := range chunks {
			o := &chunks[j]
			if j == i || o.Kind == graph.ChunkFile {
				continue
			}
			if c.Kind != graph.ChunkFile && j < i {
				continue // (a chunk holds only the ones cut after it)
			}
			if o.Range.StartByte >= start && o.Range.StartByte < end && o.Range.EndByte <= end {
				inner = append(inner, *o)
			}
		}
		inner = outermost(inner, func(x graph.Chunk) (uint32, uint32) { return x.Range.StartByte, x.Range.EndByte })
		var b strings.Builder
		pos := start
		for _, o := range inner {
			if o.Range.StartByte < pos || o.Range.EndByte > end {
				continue
			}
			b.Write(src[pos:o.Range.StartByte])
			b.WriteByte('\n')
			pos = o.Range.EndByte
		}
		b.Write(src[pos:end])
		texts[i] = b.String()
		if hashText(texts[i]) != c.Hash {
			return false
		}
	}
	for i := range chunks {
		chunks[i].Text = texts[i]
	}
	return true
}
