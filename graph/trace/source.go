package trace

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/cairn-dev/cairn/graph"
)

func (t *tracer) fileFacts(p string) (*graph.FileFacts, error) {
	if ff, ok := t.facts[p]; ok {
		return ff, nil
	}
	ff, err := t.r.FileFacts(t.ctx, p)
	if err != nil {
		return nil, err
	}
	t.facts[p] = ff
	return ff, nil
}

// readFile reads a worktree file, or nil.
func (t *tracer) readFile(p string) []byte {
	b, err := os.ReadFile(filepath.Join(t.root, filepath.FromSlash(p)))
	if err != nil {
		return nil
	}
	return b
}

// src returns a file's current content and notes whether it changed since
// it was indexed (positions from the index may then be off).
func (t *tracer) src(p string) []byte {
	b, ok := t.srcs[p]
	if !ok {
		b = t.readFile(p)
		t.srcs[p] = b
	}
	if _, ok := t.stale[p]; !ok {
		stale := b == nil
		if ff, err := t.fileFacts(p); err == nil && b != nil {
			stale = graph.BlobHash(b) != ff.File.Hash
		}
		t.stale[p] = stale
	}
	return b
}

func (t *tracer) lineStarts(p string) []int {
	if ls, ok := t.lines[p]; ok {
		return ls
	}
	src := t.src(p)
	ls := []int{0}
	for i, c := range src {
		if c == '\n' {
			ls = append(ls, i+1)
		}
	}
	t.lines[p] = ls
	return ls
}

// lineCol converts a byte offset to a 1-based line and column.
func (t *tracer) lineCol(p string, off int) (int, int) {
	ls := t.lineStarts(p)
	i := sort.Search(len(ls), func(i int) bool { return ls[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, off - ls[i] + 1
}

// lineText returns a 1-based line of a file ("" when out of range).
func (t *tracer) lineText(p string, line int) string {
	ls := t.lineStarts(p)
	src := t.src(p)
	if line < 1 || line > len(ls) {
		return ""
	}
	end := len(src)
	if line < len(ls) {
		end = ls[line] - 1
	}
	if ls[line-1] > end {
		return ""
	}
	return string(src[ls[line-1]:end])
}

func (t *tracer) loc(p string, r graph.Range) Loc {
	t.src(p)
	return Loc{Path: p, Line: int(r.StartLine), Col: int(r.StartCol) + 1, Stale: t.stale[p]}
}

func (t *tracer) funcOf(s *graph.Symbol) *Func {
	return &Func{Name: s.QualifiedName(), ID: s.ID, Loc: t.loc(s.Path, s.NameRange)}
}

// fileFunc stands for a file's top-level code.
func (t *tracer) fileFunc(p string) *Func {
	return &Func{Name: p + " (top level)", Loc: Loc{Path: p, Line: 1}}
}

// enclosingOcc is the function or method an occurrence is in.
func (t *tracer) enclosingOcc(ff *graph.FileFacts, o *graph.Occurrence) *Func {
	for i := o.Enclosing; i >= 0 && int(i) < len(ff.Symbols); i = ff.Symbols[i].Parent {
		if ff.Symbols[i].Kind.IsCallable() {
			return t.funcOf(&ff.Symbols[i])
		}
	}
	return t.enclosingOffset(ff, int(o.Range.StartByte))
}

// enclosingOffset is the innermost function or method whose range holds off.
func (t *tracer) enclosingOffset(ff *graph.FileFacts, off int) *Func {
	var best *graph.Symbol
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		if !s.Kind.IsCallable() || int(s.Range.StartByte) > off || off >= int(s.Range.EndByte) {
			continue
		}
		if best == nil || s.Range.EndByte-s.Range.StartByte < best.Range.EndByte-best.Range.StartByte {
			best = s
		}
	}
	if best == nil {
		return t.fileFunc(ff.File.Path)
	}
	return t.funcOf(best)
}

// symbol returns the definition of id (nil when not indexed).
func (t *tracer) symbol(id graph.SymbolID) *graph.Symbol {
	ss, err := t.r.SymbolsByID(t.ctx, id)
	if err != nil || len(ss) == 0 {
		return nil
	}
	return &ss[0]
}
