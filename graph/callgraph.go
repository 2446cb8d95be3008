package graph

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// Hop is a symbol reached by a traversal of the graph.
type Hop struct {
	Symbol SymbolID
	// Def is the symbol's definition when indexed (nil for external
	// symbols and file-level code).
	Def   *Symbol
	Depth int
	// Via is the first edge that reached the symbol (its Path and Range are
	// the call site); Sites counts every edge between the same pair.
	Via   Edge
	Sites int
	// Next is the symbol one step closer to the root.
	Next SymbolID
	// Confidence is the weakest confidence along the path from the root;
	// Ambiguous is set when any edge on it was.
	Confidence Confidence
	Ambiguous  bool
}

// TraverseOptions bound a traversal.
type TraverseOptions struct {
	Depth int        // levels to follow; 0 means 1
	Kinds []EdgeKind // edge kinds to follow; default calls
	Limit int        // stop after this many hops; 0 means 10,000
}

// Callers returns the symbols that reach roots through edges of opts.Kinds
// (calls by default), breadth first, each once at its shallowest depth.
func Callers(ctx context.Context, r Reader, roots []SymbolID, opts TraverseOptions) ([]Hop, error) {
	return traverse(ctx, r, roots, In, opts)
}

// Callees returns what roots reach through edges of opts.Kinds.
func Callees(ctx context.Context, r Reader, roots []SymbolID, opts TraverseOptions) ([]Hop, error) {
	return traverse(ctx, r, roots, Out, opts)
}

func traverse(ctx context.Context, r Reader, roots []SymbolID, dir Direction, opts TraverseOptions) ([]Hop, error) {
	depth := max(opts.Depth, 1)
	kinds := opts.Kinds
	if len(kinds) == 0 {
		kinds = []EdgeKind{EdgeCalls}
	}
	limit := cmp.Or(opts.Limit, 10000)
	seen := map[SymbolID]bool{}
	conf := map[SymbolID]Confidence{}
	amb := map[SymbolID]bool{}
	for _, id := range roots {
		seen[id] = true
		conf[id] = ConfPrecise
	}
	var out []Hop
	frontier := slices.Clone(roots)
	for d := 1; d <= depth && len(frontier) > 0 && len(out) < limit; d++ {
		edges, err := r.Edges(ctx, frontier, dir, kinds...)
		if err != nil {
			return nil, err
		}
		var next []SymbolID
		idx := map[SymbolID]int{}
		for _, e := range edges {
			near, far := e.To, e.From
			if dir == Out {
				near, far = e.From, e.To
			}
			if i, ok := idx[far]; ok {
				if out[i].Next == near {
					out[i].Sites++
					// the best-derived edge between the pair speaks for it
					if e.Confidence > out[i].Via.Confidence {
						out[i].Via = e
						out[i].Confidence = min(conf[near], e.Confidence)
						conf[far] = out[i].Confidence
					}
				}
				continue
			}
			if seen[far] {
				continue
			}
			seen[far] = true
			c := min(conf[near], e.Confidence)
			conf[far] = c
			amb[far] = amb[near] || e.Ambiguous
			idx[far] = len(out)
			out = append(out, Hop{Symbol: far, Depth: d, Via: e, Sites: 1, Next: near, Confidence: c, Ambiguous: amb[far]})
			next = append(next, far)
			if len(out) >= limit {
				break
			}
		}
		frontier = next
	}
	if err := attachDefs(ctx, r, out); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchReader is implemented by stores that look up the definitions of many
// symbols at once (the PostgreSQL store: one round trip instead of one per
// symbol). The result holds what SymbolsByID would return for each id.
type BatchReader interface {
	SymbolsByIDs(ctx context.Context, ids []SymbolID) (map[SymbolID][]Symbol, error)
}

// ImportReader is implemented by stores that read a file's imports alone,
// without the rest of its facts (the embedded store decodes the facts
// blob only: no symbol or chunk rows).
type ImportReader interface {
	FileImports(ctx context.Context, path string) ([]Import, error)
}

// FileImports returns a file's imports: through ImportReader where r is
// one, else from its FileFacts.
func FileImports(ctx context.Context, r Reader, path string) ([]Import, error) {
	if ir, ok := r.(ImportReader); ok {
		return ir.FileImports(ctx, path)
	}
	ff, err := r.FileFacts(ctx, path)
	if err != nil {
		return nil, err
	}
	return ff.Imports, nil
}

// SkipReasonReader lists the skipped paths of one reason, selected by the
// store, cheaper than every skipped path where most are of other reasons.
type SkipReasonReader interface {
	SkipsOf(ctx context.Context, reason SkipReason) ([]Skip, error)
}

// SkipsOf returns the skipped paths of one reason, in path order: through
// SkipReasonReader where r is one, else from Skips.
func SkipsOf(ctx context.Context, r Reader, reason SkipReason) ([]Skip, error) {
	if sr, ok := r.(SkipReasonReader); ok {
		return sr.SkipsOf(ctx, reason)
	}
	all, err := r.Skips(ctx)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, sk := range all {
		if sk.Reason == reason {
			out = append(out, sk)
		}
	}
	return out, nil
}

// SymbolScanner lists every symbol in the order a store keeps them: each
// file's together and in their order in the file (so that Parent holds),
// the files in no particular order — what AllSymbols gives without its
// order by path, which a store may have to sort for. The embedded store
// sorted all of them in memory while a fresh index was written (its
// indexes are built at the end): 1.2 GB of the Linux kernel's peak.
type SymbolScanner interface {
	ScanSymbols(ctx context.Context, fn func(Symbol) error) error
}

// CategoryReader lists the generation's paths with their categories
// alone, cheaper than every file's row where a store can.
type CategoryReader interface {
	PathCategories(ctx context.Context) (map[string]FileCategory, error)
}

// PathCategories returns every indexed path with its stored category:
// through CategoryReader where r is one, else from Files.
func PathCategories(ctx context.Context, r Reader) (map[string]FileCategory, error) {
	if cr, ok := r.(CategoryReader); ok {
		return cr.PathCategories(ctx)
	}
	files, err := r.Files(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]FileCategory, len(files))
	for _, f := range files {
		out[f.Path] = f.Category
	}
	return out, nil
}

// SymbolsByIDs returns the definitions of ids, in one batch where r is a
// BatchReader and one by one otherwise; every id asked for has an entry
// (nil when nothing defines it), so a caller can tell "asked, none" from
// "not asked".
func SymbolsByIDs(ctx context.Context, r Reader, ids []SymbolID) (map[SymbolID][]Symbol, error) {
	var out map[SymbolID][]Symbol
	if br, ok := r.(BatchReader); ok && len(ids) > 1 {
		var err error
		if out, err = br.SymbolsByIDs(ctx, ids); err != nil {
			return nil, err
		}
	} else {
		out = make(map[SymbolID][]Symbol, len(ids))
		for _, id := range ids {
			defs, err := r.SymbolsByID(ctx, id)
			if err != nil {
				return nil, err
			}
			out[id] = defs
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = nil
		}
	}
	return out, nil
}

// Neighbours returns the distinct symbols at the other end of edges seen
// from dir (their From for In, their To for Out), leaving out ambiguous
// edges and the symbols in skip, at most limit of them, in edge order.
func Neighbours(edges []Edge, dir Direction, skip map[SymbolID]bool, limit int) []SymbolID {
	var out []SymbolID
	in := map[SymbolID]bool{}
	for _, e := range edges {
		other := e.From
		if dir == Out {
			other = e.To
		}
		if e.Ambiguous || skip[other] || in[other] {
			continue
		}
		if len(out) == limit {
			break
		}
		in[other] = true
		out = append(out, other)
	}
	return out
}

// attachDefs fills Hop.Def.
func attachDefs(ctx context.Context, r Reader, hops []Hop) error {
	ids := make([]SymbolID, len(hops))
	for i := range hops {
		ids[i] = hops[i].Symbol
	}
	defs, err := SymbolsByIDs(ctx, r, ids)
	if err != nil {
		return err
	}
	for i := range hops {
		if d := defs[hops[i].Symbol]; len(d) > 0 {
			hops[i].Def = &d[0]
		}
	}
	return nil
}

// Path is a chain of edges from a source symbol to a target.
type Path []Edge

// ShortestPaths returns up to limit shortest chains of edges of the given
// kinds (calls by default) leading from any of from to any of to, no longer
// than maxDepth.
func ShortestPaths(ctx context.Context, r Reader, from, to []SymbolID, maxDepth, limit int, kinds ...EdgeKind) ([]Path, error) {
	if len(kinds) == 0 {
		kinds = []EdgeKind{EdgeCalls}
	}
	maxDepth = cmp.Or(maxDepth, 8)
	limit = cmp.Or(limit, 10)
	targets := map[SymbolID]bool{}
	for _, t := range to {
		targets[t] = true
	}
	// parents[x] = the edges reaching x at its BFS depth
	parents := map[SymbolID][]Edge{}
	depthOf := map[SymbolID]int{}
	for _, f := range from {
		depthOf[f] = 0
	}
	frontier := slices.Clone(from)
	var hits []SymbolID
	for d := 1; d <= maxDepth && len(frontier) > 0 && len(hits) == 0; d++ {
		edges, err := r.Edges(ctx, frontier, Out, kinds...)
		if err != nil {
			return nil, err
		}
		var next []SymbolID
		for _, e := range edges {
			if dd, ok := depthOf[e.To]; ok && dd < d {
				continue
			}
			if _, ok := depthOf[e.To]; !ok {
				depthOf[e.To] = d
				next = append(next, e.To)
				if targets[e.To] {
					hits = append(hits, e.To)
				}
			}
			if len(parents[e.To]) < limit {
				parents[e.To] = append(parents[e.To], e)
			}
		}
		frontier = next
	}
	var out []Path
	var build func(at SymbolID, suffix Path)
	build = func(at SymbolID, suffix Path) {
		if len(out) >= limit {
			return
		}
		if depthOf[at] == 0 {
			p := slices.Clone(suffix)
			slices.Reverse(p)
			out = append(out, p)
			return
		}
		for _, e := range parents[at] {
			if depthOf[e.From] == depthOf[at]-1 {
				build(e.From, append(suffix, e))
			}
		}
	}
	for _, h := range hits {
		build(h, nil)
	}
	return out, nil
}

// Implementations returns the symbols that implement, extend or override
// the given ones, transitively (a subclass of a subclass), each once.
func Implementations(ctx context.Context, r Reader, ids []SymbolID, depth int) ([]Hop, error) {
	return traverse(ctx, r, ids, In, TraverseOptions{Depth: cmp.Or(depth, 5),
		Kinds: []EdgeKind{EdgeImplements, EdgeExtends, EdgeOverrides}})
}

// PageRankKinds are the edges centrality follows.
var PageRankKinds = []EdgeKind{EdgeCalls, EdgeReferences, EdgeTypeUse, EdgeReads, EdgeWrites, EdgeImplements, EdgeExtends}

// PageRank computes centrality over directed edges (from uses to) by power
// iteration (damping 0.85, dangling mass spread evenly), scaled so the mean
// score is 1. Deterministic for the same edges.
func PageRank(edges [][2]SymbolID, iterations int) map[SymbolID]float64 {
	var r Ranker
	for _, e := range edges {
		r.Add(e[0], e[1])
	}
	return r.Rank(iterations)
}

// Ranker collects the edges PageRank runs over one at a time, each symbol
// id held once however many edges name it, the edges as pairs of 4-byte
// node numbers: on the Linux kernel (23 M edges) a list of the edges'
// ids, each read anew from the store, was over 2 GB.
type Ranker struct {
	ids   map[SymbolID]int32
	names []SymbolID
	arcs  []rankArc
}

type rankArc struct{ from, to int32 }

// Add records an edge; a self-loop is left out.
func (r *Ranker) Add(from, to SymbolID) {
	if from == to {
		return
	}
	r.arcs = append(r.arcs, rankArc{r.node(from), r.node(to)})
}

func (r *Ranker) node(s SymbolID) int32 {
	if i, ok := r.ids[s]; ok {
		return i
	}
	if r.ids == nil {
		r.ids = map[SymbolID]int32{}
	}
	i := int32(len(r.names))
	r.ids[s] = i
	r.names = append(r.names, s)
	return i
}

// Rank computes PageRank over the edges added (PageRank's); the ranker is
// spent.
func (r *Ranker) Rank(iterations int) map[SymbolID]float64 {
	iterations = cmp.Or(iterations, 30)
	names, arcs := r.names, r.arcs
	r.ids, r.names, r.arcs = nil, nil, nil // the map is not needed from here
	type arc = rankArc
	n := len(names)
	if n == 0 {
		return nil
	}
	// Number the nodes in symbol order, so that the sums (and so the last
	// bits of every score) do not depend on the order edges came in.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(string(names[a]), string(names[b])) })
	renum := make([]int32, n)
	sorted := make([]SymbolID, n)
	for to, from := range order {
		renum[from] = int32(to)
		sorted[to] = names[from]
	}
	names = sorted
	for i := range arcs {
		arcs[i] = arc{renum[arcs[i].from], renum[arcs[i].to]}
	}
	slices.SortFunc(arcs, func(a, b arc) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
	arcs = slices.Compact(arcs)
	outDeg := make([]int32, n)
	for _, a := range arcs {
		outDeg[a.from]++
	}
	const d = 0.85
	rank := make([]float64, n)
	next := make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	for it := 0; it < iterations; it++ {
		dangling := 0.0
		for i, r := range rank {
			if outDeg[i] == 0 {
				dangling += r
			}
		}
		base := (1-d)/float64(n) + d*dangling/float64(n)
		for i := range next {
			next[i] = base
		}
		for _, a := range arcs {
			next[a.to] += d * rank[a.from] / float64(outDeg[a.from])
		}
		rank, next = next, rank
	}
	out := make(map[SymbolID]float64, n)
	for i, s := range names {
		out[s] = rank[i] * float64(n)
	}
	return out
}

// ModuleDisplay describes a file-level pseudo-symbol ("module x.y").
func ModuleDisplay(id SymbolID) string {
	p, err := id.Parse()
	if err != nil || len(p.Descriptors) == 0 {
		return string(id)
	}
	parts := make([]string, 0, len(p.Descriptors))
	for _, d := range p.Descriptors {
		parts = append(parts, d.Name)
	}
	return strings.Join(parts, ".")
}

// Central returns the limit most central definitions (by stored rank),
// optionally under a path prefix: the project's own code first, best
// first, then the peripheral definitions (see [Peripheral]) — test
// helpers, generated code and type variables are referenced everywhere
// and would otherwise lead a map of what the project is.
func Central(ctx context.Context, r Reader, prefix string, limit int) ([]Symbol, map[SymbolID]float64, error) {
	var syms []Symbol
	err := r.AllSymbols(ctx, func(s Symbol) error {
		if (prefix == "" || strings.HasPrefix(s.Path, prefix)) && !s.IsTest && !strings.Contains("/"+s.Path, "/testdata/") {
			s.Doc = ""
			syms = append(syms, s)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	ids := make([]SymbolID, 0, len(syms))
	for _, s := range syms {
		ids = append(ids, s.ID)
	}
	ranks, err := r.Ranks(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	peripheral := make(map[SymbolID]bool, len(syms))
	for i := range syms {
		if Peripheral(&syms[i]) != "" {
			peripheral[syms[i].ID] = true
		}
	}
	slices.SortStableFunc(syms, func(a, b Symbol) int {
		return cmp.Or(BoolOrder(peripheral[a.ID], peripheral[b.ID]), cmp.Compare(ranks[b.ID], ranks[a.ID]),
			strings.Compare(a.Path, b.Path), cmp.Compare(a.Range.StartByte, b.Range.StartByte))
	})
	seen := map[SymbolID]bool{}
	var out []Symbol
	for _, s := range syms {
		if len(out) >= limit {
			break
		}
		if !seen[s.ID] && ranks[s.ID] > 0 {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	return out, ranks, nil
}

// notTestDirs end in "test" without being a Go test-helper package.
var notTestDirs = map[string]bool{"latest": true, "contest": true, "attest": true, "protest": true, "greatest": true, "fastest": true}

// BoolOrder orders false before true (for cmp.Or chains of sort keys).
func BoolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Peripheral says why a definition outside test files is still not the
// project's own central code ("" when it is): a test helper (in a tests/,
// testing/, testutil/, mocks/ or fixtures/ directory, a Go package whose
// directory ends in "test" as graphtest does, a conftest.py or a mock_
// file), generated code (named as generators name their output: *.pb.go,
// *_pb2.py, *_gen.go, zz_generated.*, or under a generated/ directory —
// files carrying a generated-code marker are not indexed at all) or a type
// variable (Python's TypeVar, ParamSpec, TypeVarTuple).
func Peripheral(s *Symbol) string {
	dirs := strings.Split(s.Path, "/")
	base := dirs[len(dirs)-1]
	dirs = dirs[:len(dirs)-1]
	for _, d := range dirs {
		switch d {
		case "test", "tests", "testing", "testutil", "testutils", "testhelpers", "mocks", "mock", "fixtures", "__tests__":
			return "test helper"
		case "generated", "_generated", "autogen":
			return "generated"
		}
		if s.Lang == LangGo && len(d) > 4 && strings.HasSuffix(d, "test") && !notTestDirs[d] {
			return "test helper"
		}
	}
	lower := strings.ToLower(base)
	switch {
	case lower == "conftest.py", strings.HasPrefix(lower, "mock_"), strings.HasPrefix(lower, "mocks."):
		return "test helper"
	case strings.HasSuffix(lower, ".pb.go"), strings.HasSuffix(lower, "_pb2.py"), strings.HasSuffix(lower, "_pb2_grpc.py"),
		strings.Contains(lower, "_gen."), strings.Contains(lower, ".gen."), strings.HasPrefix(lower, "zz_generated"),
		strings.Contains(lower, "_generated."), strings.HasPrefix(lower, "generated_"):
		return "generated"
	}
	if s.Kind == KindVariable || s.Kind == KindConstant {
		_, rhs, ok := strings.Cut(s.Signature, "=")
		rhs = strings.TrimSpace(rhs)
		for _, f := range []string{"TypeVar(", "ParamSpec(", "TypeVarTuple(", "typing.TypeVar(", "typing.ParamSpec(", "typing_extensions.TypeVar("} {
			if ok && strings.HasPrefix(rhs, f) {
				return "type variable"
			}
		}
	}
	return ""
}
