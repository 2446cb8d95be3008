package contextpack

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// candidates gathers spans from search and graph expansion.
func (b *Builder) candidates(ctx context.Context, req Request, fileInfo map[string]graph.File) (_ []cand, values []string, _ error) {
	r := b.Engine.R
	cc := &chunkCache{r: r, m: map[string][]graph.ChunkRef{}}
	var out []cand
	seen := map[string]bool{}
	add := func(c cand) {
		key := c.path + ":" + strconv.Itoa(c.start) + "-" + strconv.Itoa(c.end)
		if seen[key] || c.end < c.start {
			return
		}
		seen[key] = true
		out = append(out, c)
	}
	wholeFile := false // chunkCand is adding every chunk of a focus file
	chunkCand := func(ref graph.ChunkRef, kind, reason string, score float64) {
		f := fileInfo[ref.Path]
		c := cand{path: ref.Path, start: int(ref.Range.StartLine), end: int(ref.Range.EndLine), kind: kind,
			symbolID: ref.Symbol, reason: reason, score: score, lang: f.Lang}
		if ref.Kind != graph.ChunkFile {
			c.symbol = ref.Name
		}
		if c.kind == KindDefinition && !f.Lang.HasParser() {
			if f.Lang.IsConfig() {
				c.kind = KindConfig
			} else {
				c.kind = KindDoc
			}
		}
		if defs, _ := r.SymbolsByID(ctx, ref.Symbol); ref.Symbol != "" && len(defs) > 0 {
			d := defOfChunk(defs, c.path, c.start, c.end)
			c.doc = d.Doc
			c.sigEnd = int(d.NameRange.EndLine)
			c.sigStart = int(d.NameRange.StartLine)
			if d.Kind.IsType() {
				// a type's chunk spans its methods, which are chunks of
				// their own: its own text is the head, up to the first one
				if first := cc.firstNestedLine(ctx, ref); first > c.start {
					c.end = first - 1
				}
			}
		}
		if ref.Kind == graph.ChunkFile && f.Lang.HasParser() {
			// the rest of a source file: its head (package, imports,
			// module docstring), up to the first definition
			if first := cc.firstNestedLine(ctx, ref); first > c.start {
				c.end = first - 1
				c.head = kind == KindDefinition && !wholeFile
			} else if first > 0 {
				return
			}
			c.end = min(c.end, c.start+80)
			if c.head {
				if ff, err := r.FileFacts(ctx, ref.Path); err == nil && ff != nil {
					for _, im := range ff.Imports {
						if l := int(im.Range.StartLine); l >= c.start && l <= c.end && (c.firstImport == 0 || l < c.firstImport) {
							c.firstImport = l
						}
						if l := int(im.Range.EndLine); l >= c.start && l <= c.end && l > c.lastImport {
							c.lastImport = l
						}
					}
				}
			}
		}
		add(c)
	}

	// Focus first: named symbols and files, and the lines of a diff.
	focus := slices.Clone(req.Focus)
	if req.Diff != "" {
		ranges, err := diffRanges(ctx, b.Root, req.Diff)
		if err != nil {
			return nil, nil, err
		}
		for _, dr := range ranges {
			refs, _ := r.ChunksInFile(ctx, dr.path)
			for _, ref := range refs {
				if int(ref.Range.StartLine) <= dr.end && dr.start <= int(ref.Range.EndLine) && ref.Kind != graph.ChunkFile {
					chunkCand(ref, KindDefinition, fmt.Sprintf("changed since %s", req.Diff), 10)
					focus = append(focus, string(ref.Symbol))
				}
			}
		}
	}
	var focusIDs []graph.SymbolID
	for _, f := range focus {
		if f == "" {
			continue
		}
		if _, ok := fileInfo[strings.TrimPrefix(f, "./")]; ok {
			refs, _ := r.ChunksInFile(ctx, strings.TrimPrefix(f, "./"))
			for i, ref := range refs {
				// the whole file: its imports come as its context
				wholeFile = true
				chunkCand(ref, KindDefinition, "in the focus file", 9-float64(i)*0.01)
				wholeFile = false
			}
			continue
		}
		var defs []graph.Symbol
		if strings.Contains(f, " ") {
			defs, _ = r.SymbolsByID(ctx, graph.SymbolID(f))
		} else {
			defs, _ = graph.FindDefinitions(ctx, r, f)
		}
		for _, d := range defs {
			if ref, ok := cc.chunkOfSymbol(ctx, &d); ok {
				chunkCand(ref, KindDefinition, "focus symbol "+f, 9)
				focusIDs = append(focusIDs, d.ID)
			}
		}
	}

	// Search.
	res, err := b.Engine.Search(ctx, req.Task, fuse.Options{Limit: cmp.Or(b.Candidates, max(60, req.Budget/200)), Files: 10, Roots: true})
	if err != nil {
		return nil, nil, err
	}
	values = res.Values.Notes
	// The functions on the paths of the values the task talks about come
	// before the search's hits, in the trace's order (the gap first),
	// each saying which path it is on; the pack gives them at most
	// valueShare of the budget.
	for i, vs := range res.Values.Sites {
		var ref graph.ChunkRef
		ok := false
		if vs.Symbol != "" {
			if defs, _ := r.SymbolsByID(ctx, vs.Symbol); len(defs) > 0 {
				ref, ok = cc.chunkOfSymbol(ctx, &defs[0])
			}
		}
		if !ok {
			continue // top-level code: the search's hits have its file
		}
		n := len(out)
		chunkCand(ref, KindDefinition, vs.Reason, valueScore-float64(i)*0.01)
		if len(out) > n {
			out[n].value = true
		}
	}
	top := 0.0
	for _, h := range res.Hits {
		top = max(top, h.Score)
	}
	var seeds []graph.SymbolID
	ids := make([]int64, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ChunkID
	}
	refs, err := r.ChunksByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	refOf := make(map[int64]graph.ChunkRef, len(refs))
	for _, ref := range refs {
		refOf[ref.ID] = ref
	}
	for i, h := range res.Hits {
		ref, ok := refOf[h.ChunkID]
		if !ok {
			continue
		}
		score := h.Score / max(top, 1e-9) // 0..1
		if i >= searchCore {
			// the tail of the ranking fills the room the strongest hits
			// and their neighbourhood in the graph leave
			score *= tailFactor
		}
		chunkCand(ref, KindDefinition, packWhy(h.Why), score)
		if h.SymbolID != "" && i < 8 {
			seeds = append(seeds, h.SymbolID)
		}
	}

	// Expansion through the graph: callers, callees, implementations and
	// tests of the strongest hits and of the focus.
	seedScore := map[graph.SymbolID]float64{}
	for _, c := range out {
		if c.symbolID != "" && c.score > seedScore[c.symbolID] {
			seedScore[c.symbolID] = c.score
		}
	}
	expand := func(ids []graph.SymbolID, dir graph.Direction, kinds []graph.EdgeKind, kind string, factor float64, rel string) {
		if len(ids) == 0 {
			return
		}
		edges, err := r.Edges(ctx, ids, dir, kinds...)
		if err != nil {
			return
		}
		// the definitions at the other ends, at once where the store can
		defsOf, err := graph.SymbolsByIDs(ctx, r, graph.Neighbours(edges, dir, nil, 2*maxExpanded))
		if err != nil {
			return
		}
		n := 0
		for _, e := range edges {
			other, via := e.From, e.To
			if dir == graph.Out {
				other, via = e.To, e.From
			}
			if e.Ambiguous || other == via || n >= maxExpanded {
				continue
			}
			defs, ok := defsOf[other]
			if !ok {
				defs, _ = r.SymbolsByID(ctx, other)
			}
			if len(defs) == 0 {
				continue
			}
			d := defs[0]
			k, f := kind, factor
			if kind == KindCaller && d.IsTest {
				k = KindTest
			}
			if kind == KindImplementation && (d.IsTest || fileInfo[d.Path].Category.Has(graph.FileTest)) {
				f *= testImplFactor
			}
			if ref, ok := cc.chunkOfSymbol(ctx, &d); ok {
				chunkCand(ref, k, fmt.Sprintf("%s %s (%s)", rel, via.Display(), e.Confidence), seedScore[via]*f)
				n++
			}
		}
	}
	seeds = append(focusIDs, seeds...)
	expand(seeds, graph.In, []graph.EdgeKind{graph.EdgeCalls}, KindCaller, 0.5, "calls")
	expand(seeds, graph.Out, []graph.EdgeKind{graph.EdgeCalls}, KindCallee, 0.45, "called by")
	expand(seeds, graph.In, []graph.EdgeKind{graph.EdgeImplements, graph.EdgeOverrides, graph.EdgeExtends}, KindImplementation, 0.5, "implements")
	// A strong interface's methods: what implements each of them is what
	// changes with it (the implementing types came just above).
	if methods := interfaceMethods(ctx, r, seeds, seedScore); len(methods) > 0 {
		expand(methods, graph.In, []graph.EdgeKind{graph.EdgeImplements}, KindImplementation, 0.5, "implements")
	}
	expand(seeds, graph.In, []graph.EdgeKind{graph.EdgeTests}, KindTest, 0.35, "tests")
	return out, values, nil
}

// interfaceMethods returns the methods declared in the interfaces and
// traits among seeds, each scored as its interface in seedScore.
func interfaceMethods(ctx context.Context, r graph.Reader, seeds []graph.SymbolID, seedScore map[graph.SymbolID]float64) []graph.SymbolID {
	defs, err := graph.SymbolsByIDs(ctx, r, seeds)
	if err != nil {
		return nil
	}
	var out []graph.SymbolID
	seen := map[graph.SymbolID]bool{}
	for _, id := range seeds {
		for _, d := range defs[id] {
			if (d.Kind != graph.KindInterface && d.Kind != graph.KindTrait) || seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			syms, err := r.SymbolsInFile(ctx, d.Path)
			if err != nil {
				continue
			}
			for _, m := range syms {
				if m.Kind == graph.KindMethod && m.Container == d.QualifiedName() && d.Range.Contains(m.Range) {
					out = append(out, m.ID)
					seedScore[m.ID] = max(seedScore[m.ID], seedScore[d.ID])
				}
			}
		}
	}
	return out
}

// packWhy is a search hit's why as an item's reason: the hit's own
// evidence, and its file's only when it has none (the file's evidence is
// the same for every item of the file, and each repetition costs tokens).
func packWhy(why string) string {
	own, _, ok := strings.Cut(why, "file: ")
	own = strings.TrimSuffix(strings.TrimSpace(own), ";")
	if !ok || own == "" {
		return why
	}
	return own
}

// valueScore is the score of the first function on a traced value's path:
// above every search hit (scaled to at most 1), below the focus.
const valueScore = 2

// searchCore is how many search hits compete with the graph's expansion
// on their own scores; the hits after them (a large budget asks for
// more) come after the expansion's, by tailFactor. On the localization
// dev set this took context recall at 16k tokens from 0.646 to 0.657,
// with the same at 0.3, 0.5 and 0.7: what counts is that the callers and
// callees of the strongest hits come before the weakest hits, not by how
// much (bench/context/RESULTS.md).
const searchCore = 60

const tailFactor = 0.5

// testImplFactor: a test's implementation of an interface (a fake) ranks
// below the code's own.
const testImplFactor = 0.7

// maxExpanded bounds the candidates one expansion step adds.
const maxExpanded = 24

// chunkCache holds the chunks of the files a build looked at.
type chunkCache struct {
	r graph.Reader
	m map[string][]graph.ChunkRef
}

func (cc *chunkCache) inFile(ctx context.Context, p string) ([]graph.ChunkRef, error) {
	if refs, ok := cc.m[p]; ok {
		return refs, nil
	}
	refs, err := cc.r.ChunksInFile(ctx, p)
	if err != nil {
		return nil, err
	}
	cc.m[p] = refs
	return refs, nil
}

// firstNestedLine is the first line of a chunk nested in ref, or 0.
func (cc *chunkCache) firstNestedLine(ctx context.Context, ref graph.ChunkRef) int {
	refs, _ := cc.inFile(ctx, ref.Path)
	first := 0
	for _, o := range refs {
		if o.ID != ref.ID && o.Range.StartLine > ref.Range.StartLine && o.Range.EndLine <= ref.Range.EndLine {
			if first == 0 || int(o.Range.StartLine) < first {
				first = int(o.Range.StartLine)
			}
		}
	}
	return first
}

// chunkOfSymbol returns the chunk of a definition (the chunk named by it,
// else the innermost chunk around it).
func (cc *chunkCache) chunkOfSymbol(ctx context.Context, d *graph.Symbol) (graph.ChunkRef, bool) {
	refs, err := cc.inFile(ctx, d.Path)
	if err != nil {
		return graph.ChunkRef{}, false
	}
	var best graph.ChunkRef
	found := false
	for _, c := range refs {
		if c.Symbol == d.ID && c.Range.StartLine <= d.Range.StartLine+1 && d.Range.StartLine <= c.Range.EndLine {
			return c, true
		}
		if c.Range.StartLine <= d.Range.StartLine && d.Range.EndLine <= c.Range.EndLine {
			if !found || c.Range.Lines() < best.Range.Lines() {
				best, found = c, true
			}
		}
	}
	if found && best.Kind != graph.ChunkFile {
		return best, true
	}
	// a definition inside the file chunk (a variable, a field): its own lines
	return graph.ChunkRef{Chunk: graph.Chunk{Path: d.Path, Range: d.Range, Kind: graph.ChunkFunction, Symbol: d.ID, Name: d.QualifiedName()}}, true
}

type diffRange struct {
	path       string
	start, end int
}

// diffRanges lists the worktree's changed line ranges since rev (on the
// new side; a pure deletion is the line after it; deleted files have none).
func diffRanges(ctx context.Context, root, rev string) ([]diffRange, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%w: invalid revision %q", ErrInvalidRequest, rev)
	}
	files, err := gitrepo.Diff(ctx, root, gitrepo.DiffOptions{Rev: rev})
	if err != nil {
		return nil, fmt.Errorf("%w: git diff %s: %w", ErrInvalidRequest, rev, err)
	}
	var ranges []diffRange
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		for _, h := range f.Hunks {
			n := max(h.NewLines, 1) // a pure deletion: the line after it
			ranges = append(ranges, diffRange{f.Path, h.NewStart, h.NewStart + n - 1})
		}
	}
	return ranges, nil
}

// defOfChunk is the definition among those of one symbol ID that the chunk
// at start..end of path holds: overloads (Python's `@overload` stubs,
// TypeScript's overload declarations) and redefinitions share an ID, and
// the first one's name line is not the head of another's chunk. The
// definition whose name lies in the chunk and starts earliest; the first
// of defs when none does.
func defOfChunk(defs []graph.Symbol, path string, start, end int) graph.Symbol {
	best := -1
	for i, d := range defs {
		l := int(d.NameRange.StartLine)
		if d.Path != path || l < start || l > end {
			continue
		}
		if best < 0 || l < int(defs[best].NameRange.StartLine) {
			best = i
		}
	}
	return defs[max(best, 0)]
}
