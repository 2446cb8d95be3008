package trace

import (
	"bytes"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
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

// file returns what the index knows of a file.
func (t *tracer) file(p string) (*graph.File, error) {
	if f, ok := t.files[p]; ok {
		return f, nil
	}
	if ff, ok := t.facts[p]; ok {
		return &ff.File, nil
	}
	f, err := t.r.File(t.ctx, p)
	if err != nil {
		return nil, err
	}
	t.files[p] = &f
	return &f, nil
}

// readFile reads a worktree file, or nil.
func (t *tracer) readFile(p string) []byte {
	b, err := t.fs.ReadFile(p)
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
		if f, err := t.file(p); err == nil && b != nil {
			stale = graph.BlobHash(b) != f.Hash
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
	return t.at(p, int(r.StartLine), int(r.StartCol)+1)
}

// at cites a position of p (read already, so that its staleness is known).
func (t *tracer) at(p string, line, col int) Loc {
	l := Loc{Path: p, StartLine: line, EndLine: line, Column: col, Stale: t.stale[p]}
	if t.o.Cite != nil {
		l.Revision, _ = t.o.Cite(p)
	}
	return l
}

func (t *tracer) funcOf(s *graph.Symbol) *Func {
	return &Func{Name: s.QualifiedName(), ID: s.ID, Loc: t.loc(s.Path, s.NameRange)}
}

// fileFunc stands for a file's top-level code.
func (t *tracer) fileFunc(p string) *Func {
	return &Func{Name: p + " (top level)", Loc: t.at(p, 1, 0)}
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

// callEdges reads id's call edges in direction dir, and the definitions
// at their other ends in one batch (the walk visits them next).
func (t *tracer) callEdges(id graph.SymbolID, dir graph.Direction) ([]graph.Edge, error) {
	es, err := t.r.Edges(t.ctx, []graph.SymbolID{id}, dir, graph.EdgeCalls)
	if err != nil {
		return nil, err
	}
	t.prefetch(graph.Neighbours(es, dir, nil, len(es)))
	return es, nil
}

// prefetch looks up, in one batch where the store can, the definitions of
// the symbols a walk is about to visit (symbol would ask one by one).
func (t *tracer) prefetch(ids []graph.SymbolID) {
	br, ok := t.r.(graph.BatchReader)
	if !ok {
		return
	}
	var want []graph.SymbolID
	seen := map[graph.SymbolID]bool{}
	for _, id := range ids {
		if _, ok := t.syms[id]; !ok && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	if len(want) < 2 {
		return
	}
	defs, err := br.SymbolsByIDs(t.ctx, want)
	if err != nil {
		return // symbol asks again, one by one
	}
	for _, id := range want {
		var s *graph.Symbol
		if ds := defs[id]; len(ds) > 0 {
			s = &ds[0]
		}
		t.syms[id] = s
	}
}

// symbol returns the definition of id (nil when not indexed).
func (t *tracer) symbol(id graph.SymbolID) *graph.Symbol {
	if s, ok := t.syms[id]; ok {
		return s
	}
	var s *graph.Symbol
	if ss, err := t.r.SymbolsByID(t.ctx, id); err == nil && len(ss) > 0 {
		s = &ss[0]
	}
	t.syms[id] = s
	return s
}

// windows returns the regions of src around each place a spelling of the
// key occurs (case-insensitive) and keep accepts (nil: all): before
// reaches back to a statement's start, after to its end. Scanners run on
// these only, so a long file costs what its mentions of the key cost.
func windows(src, low []byte, spellings []string, before, after int, keep func(low []byte, at, n int) bool) [][2]int {
	var hits []int
	for _, sp := range spellings {
		needle := []byte(strings.ToLower(sp))
		for i := 0; ; {
			j := bytes.Index(low[i:], needle)
			if j < 0 {
				break
			}
			if keep == nil || keep(low, i+j, len(needle)) {
				hits = append(hits, i+j)
			}
			i += j + len(needle)
		}
	}
	sort.Ints(hits)
	var out [][2]int
	for _, h := range hits {
		lo, hi := max(0, h-before), min(len(src), h+after)
		if n := len(out); n > 0 && lo <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// keyMention accepts a mention a key scan can use: a whole quoted string
// ("labels", 'labels', `labels`) or, where kwargs, a keyword argument
// (labels=…). A key written as a bare identifier is the symbols' business.
func keyMention(kwargs bool) func(low []byte, at, n int) bool {
	return func(low []byte, at, n int) bool {
		end := at + n
		if at > 0 && end < len(low) {
			if q := low[at-1]; (q == '"' || q == '\'' || q == '`') && low[end] == q {
				return true
			}
		}
		if !kwargs || at > 0 && isWordByte(low[at-1]) {
			return false
		}
		for end < len(low) && (low[end] == ' ' || low[end] == '\t') {
			end++
		}
		return end+1 < len(low) && low[end] == '=' && low[end+1] != '='
	}
}

// lowerASCII returns a copy of b with A-Z folded to a-z and every other byte
// as it is, so that an offset in the copy is the same offset in b
// (bytes.ToLower may change the length of a non-ASCII letter) — and it is
// several times faster on the hundreds of files a common key is read in.
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// snippet is a line of a file as a trace shows it: trimmed, its secrets
// redacted (internal/redact).
func (t *tracer) snippet(p string, line int) string {
	s := strings.TrimSpace(t.lineText(p, line))
	if s == "" {
		return s
	}
	code := true
	if f, err := t.file(p); err == nil {
		code = f.Lang.HasParser()
	}
	return redact.Line(p, s, code)
}
