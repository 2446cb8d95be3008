package scip

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	scippb "github.com/scip-code/scip/bindings/go/scip"

	"github.com/cairn-dev/cairn/graph"
)

// MergeResult says what Merge did.
type MergeResult struct {
	Stale      bool   // the document does not match the file; nothing merged
	Reason     string // why it is stale
	Defs       int    // definitions that took a SCIP symbol
	Refs       int    // references that took a SCIP symbol
	Added      int    // occurrences only SCIP knew
	NewSymbols int    // definitions only SCIP knew
}

// lines maps (line, character) positions to byte offsets in src.
type lines struct {
	src    []byte
	starts []int
}

func newLines(src []byte) *lines {
	l := &lines{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// offset converts a position in the given encoding to a byte offset.
func (l *lines) offset(line, char int32, enc scippb.PositionEncoding) (int, bool) {
	if line < 0 || int(line) >= len(l.starts) || char < 0 {
		return 0, false
	}
	start := l.starts[line]
	end := len(l.src)
	if int(line)+1 < len(l.starts) {
		end = l.starts[line+1]
	}
	text := l.src[start:end]
	switch enc {
	case scippb.PositionEncoding_UTF16CodeUnitOffsetFromLineStart, scippb.PositionEncoding_UTF32CodeUnitOffsetFromLineStart:
		if isASCII(text) {
			break
		}
		units := int32(0)
		for i, r := range string(text) {
			if units >= char {
				return start + i, true
			}
			if enc == scippb.PositionEncoding_UTF16CodeUnitOffsetFromLineStart {
				units += int32(utf16.RuneLen(r))
			} else {
				units++
			}
		}
		if units >= char {
			return end, true
		}
		return 0, false
	}
	if int(char) > len(text) {
		return 0, false
	}
	return start + int(char), true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (l *lines) rangeOf(sl, sc, el, ec int32, enc scippb.PositionEncoding) (graph.Range, bool) {
	s, ok1 := l.offset(sl, sc, enc)
	e, ok2 := l.offset(el, ec, enc)
	if !ok1 || !ok2 || e < s {
		return graph.Range{}, false
	}
	return graph.Range{
		StartByte: uint32(s), EndByte: uint32(e),
		StartLine: uint32(sl) + 1, EndLine: uint32(el) + 1,
		StartCol: uint32(s - l.starts[sl]), EndCol: uint32(e - l.starts[el]),
	}, true
}

// symbolName is the name a global symbol's last descriptor gives.
func symbolName(sym string) (string, bool) {
	if sym == "" || graph.SymbolID(sym).IsLocal() {
		return "", false
	}
	p, err := graph.SymbolID(sym).Parse()
	if err != nil || len(p.Descriptors) == 0 {
		return "", false
	}
	d := p.Descriptors[len(p.Descriptors)-1]
	switch d.Suffix {
	case graph.SuffixNamespace, graph.SuffixParameter, graph.SuffixTypeParameter, graph.SuffixMeta:
		return "", false
	}
	return d.Name, true
}

func isIdentText(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf) {
			return false
		}
	}
	return true
}

type occAt struct {
	r   graph.Range
	occ *Occ
}

// Merge folds a SCIP document into tree-sitter facts of the same file
// (src is the file's content). A document that does not match the file is
// reported stale and nothing changes.
func Merge(ff *graph.FileFacts, src []byte, d *Doc) MergeResult {
	var res MergeResult
	ln := newLines(src)
	nameCache := map[string]string{}
	nameOf := func(sym string) (string, bool) {
		if v, ok := nameCache[sym]; ok {
			return v, v != ""
		}
		n, ok := symbolName(sym)
		nameCache[sym] = n
		return n, ok
	}
	// 1. positions, and the staleness check: a definition's range must
	// spell the defined name and every range must lie in the file. (A
	// reference may legitimately spell another name: an alias, a re-export.)
	enc := d.Encoding
	if enc == scippb.PositionEncoding_UnspecifiedPositionEncoding && (strings.Contains(d.Tool, "typescript") || strings.Contains(d.Tool, "python")) {
		// TypeScript-based indexers count UTF-16 code units.
		enc = scippb.PositionEncoding_UTF16CodeUnitOffsetFromLineStart
	}
	var occs []occAt
	checked, mismatched, outside := 0, 0, 0
	var firstMismatch string
	for i := range d.Occs {
		o := &d.Occs[i]
		r, ok := ln.rangeOf(o.StartLine, o.StartChar, o.EndLine, o.EndChar, enc)
		if !ok {
			outside++
			if firstMismatch == "" {
				firstMismatch = fmt.Sprintf("position %d:%d is outside the file", o.StartLine+1, o.StartChar+1)
			}
			continue
		}
		text := src[r.StartByte:r.EndByte]
		if o.Roles&int32(scippb.SymbolRole_Definition) != 0 {
			if name, ok := nameOf(o.Symbol); ok && isIdentText(text) && isIdentText([]byte(name)) {
				checked++
				if string(text) != name {
					mismatched++
					if firstMismatch == "" {
						firstMismatch = fmt.Sprintf("line %d has %q where the index defines %q", r.StartLine, text, name)
					}
				}
			}
		}
		occs = append(occs, occAt{r: r, occ: o})
	}
	if outside > 0 || mismatched > 1 && mismatched*10 > checked {
		res.Stale = true
		res.Reason = fmt.Sprintf("%d of %d definitions do not match the file and %d positions lie outside it (first: %s): the index was made for another revision",
			mismatched, checked, outside, firstMismatch)
		return res
	}
	slices.SortStableFunc(occs, func(a, b occAt) int { return cmp.Compare(a.r.StartByte, b.r.StartByte) })
	byStart := map[uint32][]int{}
	for i, oa := range occs {
		byStart[oa.r.StartByte] = append(byStart[oa.r.StartByte], i)
	}
	used := make([]bool, len(occs))

	// 2. definitions take SCIP symbols
	rename := map[graph.SymbolID]graph.SymbolID{}
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		for _, j := range byStart[s.NameRange.StartByte] {
			o := occs[j].occ
			if o.Roles&int32(scippb.SymbolRole_Definition) == 0 || o.Symbol == "" || graph.SymbolID(o.Symbol).IsLocal() {
				continue
			}
			rename[s.ID] = graph.SymbolID(o.Symbol)
			s.ID = graph.SymbolID(o.Symbol)
			if info := d.Syms[o.Symbol]; info != nil {
				if s.Doc == "" && info.Documentation != "" {
					s.Doc = firstParagraph(info.Documentation)
				}
			}
			used[j] = true
			res.Defs++
			break
		}
	}
	// 3. definitions only SCIP knew (fields tree-sitter missed, ...)
	var added []graph.Symbol
	for j, oa := range occs {
		o := oa.occ
		if used[j] || o.Roles&int32(scippb.SymbolRole_Definition) == 0 || graph.SymbolID(o.Symbol).IsLocal() {
			continue
		}
		info := d.Syms[o.Symbol]
		name, ok := nameOf(o.Symbol)
		if !ok || info == nil || info.Kind == graph.KindUnknown {
			continue
		}
		r := oa.r
		if o.HasEnclosing {
			if er, ok := ln.rangeOf(o.EncStartLine, o.EncStartChar, o.EncEndLine, o.EncEndChar, enc); ok {
				r = er
			}
		}
		added = append(added, graph.Symbol{ID: graph.SymbolID(o.Symbol), Name: name, Kind: info.Kind, Lang: ff.File.Lang,
			Path: ff.File.Path, Range: r, NameRange: oa.r, Package: ff.File.Package, Doc: firstParagraph(info.Documentation), Parent: -1})
		used[j] = true
		res.NewSymbols++
	}
	if len(added) > 0 {
		insertSymbols(ff, added)
	}

	// 4. references
	for i := range ff.Occurrences {
		o := &ff.Occurrences[i]
		if o.Role&graph.RoleDefinition != 0 {
			if id, ok := rename[o.Symbol]; ok {
				o.Symbol, o.Confidence = id, graph.ConfPrecise
			}
			for _, j := range byStart[o.Range.StartByte] {
				used[j] = true
			}
			continue
		}
		for _, j := range byStart[o.Range.StartByte] {
			so := occs[j].occ
			if so.Symbol == "" || so.Roles&int32(scippb.SymbolRole_Definition) != 0 {
				continue
			}
			o.Symbol, o.Confidence = graph.SymbolID(so.Symbol), graph.ConfPrecise
			if so.Roles&int32(scippb.SymbolRole_WriteAccess) != 0 {
				o.Role |= graph.RoleWrite
			}
			used[j] = true
			res.Refs++
			break
		}
	}
	var extra []graph.Occurrence
	for j, oa := range occs {
		o := oa.occ
		if used[j] || o.Symbol == "" {
			continue
		}
		text := src[oa.r.StartByte:oa.r.EndByte]
		if !isIdentText(text) {
			continue // import paths and the like
		}
		role := graph.RoleRead
		switch {
		case o.Roles&int32(scippb.SymbolRole_Definition) != 0:
			role = graph.RoleDefinition
		case o.Roles&int32(scippb.SymbolRole_Import) != 0:
			role = graph.RoleImport
		case o.Roles&int32(scippb.SymbolRole_WriteAccess) != 0:
			role = graph.RoleWrite
		}
		extra = append(extra, graph.Occurrence{Name: string(text), Range: oa.r, Role: role, Enclosing: -1,
			Symbol: graph.SymbolID(o.Symbol), Confidence: graph.ConfPrecise})
		res.Added++
	}
	if len(extra) > 0 {
		ff.Occurrences = append(ff.Occurrences, extra...)
		slices.SortStableFunc(ff.Occurrences, func(a, b graph.Occurrence) int { return cmp.Compare(a.Range.StartByte, b.Range.StartByte) })
		enclose(ff)
	}
	// chunks follow their symbols
	for i := range ff.Chunks {
		if id, ok := rename[ff.Chunks[i].Symbol]; ok {
			ff.Chunks[i].Symbol = id
		}
	}
	// 5. implementations
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		info := d.Syms[string(s.ID)]
		if info == nil {
			continue
		}
		for _, target := range info.Implementation {
			ff.Edges = append(ff.Edges, graph.Edge{From: s.ID, To: graph.SymbolID(target), Kind: graph.EdgeImplements,
				Confidence: graph.ConfPrecise, Path: ff.File.Path, Range: s.NameRange})
		}
	}
	ff.File.SCIP = d.Key
	return res
}

func firstParagraph(doc string) string {
	doc = string(bytes.TrimSpace([]byte(doc)))
	// SCIP documentation often starts with a code block of the signature.
	if bytes.HasPrefix([]byte(doc), []byte("```")) {
		if i := bytes.Index([]byte(doc[3:]), []byte("```")); i >= 0 {
			doc = string(bytes.TrimSpace([]byte(doc[3+i+3:])))
		}
	}
	return doc
}

// insertSymbols adds symbols keeping the position order, and remaps every
// index into the symbol slice.
func insertSymbols(ff *graph.FileFacts, added []graph.Symbol) {
	type entry struct {
		s   graph.Symbol
		old int
	}
	all := make([]entry, 0, len(ff.Symbols)+len(added))
	for i, s := range ff.Symbols {
		all = append(all, entry{s, i})
	}
	for _, s := range added {
		all = append(all, entry{s, -1})
	}
	slices.SortStableFunc(all, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.s.Range.StartByte, b.s.Range.StartByte), cmp.Compare(b.s.Range.EndByte, a.s.Range.EndByte))
	})
	remap := make([]int32, len(ff.Symbols))
	out := make([]graph.Symbol, len(all))
	for i, e := range all {
		out[i] = e.s
		if e.old >= 0 {
			remap[e.old] = int32(i)
		}
	}
	re := func(x int32) int32 {
		if x < 0 || int(x) >= len(remap) {
			return -1
		}
		return remap[x]
	}
	for i := range out {
		if all[i].old >= 0 {
			out[i].Parent = re(out[i].Parent)
			continue
		}
		// a new symbol's parent: the innermost container around it
		out[i].Parent = -1
		for j := i - 1; j >= 0; j-- {
			if out[j].Range.StartByte <= out[i].Range.StartByte && out[i].Range.EndByte <= out[j].Range.EndByte && j != i {
				out[i].Parent = int32(j)
				out[i].Container = out[j].QualifiedName()
				break
			}
		}
	}
	for i := range ff.Occurrences {
		ff.Occurrences[i].Enclosing = re(ff.Occurrences[i].Enclosing)
	}
	for i := range ff.Bindings {
		ff.Bindings[i].Scope = re(ff.Bindings[i].Scope)
	}
	ff.Symbols = out
}

// enclose recomputes every reference's innermost enclosing definition.
func enclose(ff *graph.FileFacts) {
	for i := range ff.Occurrences {
		o := &ff.Occurrences[i]
		if o.Role&graph.RoleDefinition != 0 && o.Enclosing >= 0 {
			continue
		}
		o.Enclosing = -1
		for j := range ff.Symbols {
			s := &ff.Symbols[j]
			if s.Range.StartByte <= o.Range.StartByte && o.Range.StartByte < s.Range.EndByte && s.NameRange.StartByte != o.Range.StartByte {
				o.Enclosing = int32(j) // sorted by start: the last hit is the innermost
			}
		}
	}
}
