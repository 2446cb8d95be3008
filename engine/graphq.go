package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/fuse"
	"github.com/cairn-dev/cairn/retrieval/impact"
)

// The graph questions: one function per question, each with one options
// struct and one result type, asked alike by the CLI, the MCP server and
// the LSP server (see the package doc, "Questions"). Results hold the
// published views (graph.SymbolView, graph.RefView, graph.HopView,
// graph.EdgeView, each cited through the snapshot) and, untagged for JSON,
// the facts they were made from, for adapters that need exact ranges (the
// LSP converts byte columns to UTF-16).

// Bounds of the graph questions.
const (
	// MaxHopDepth bounds Callers, Callees and Implementations depths.
	MaxHopDepth = 16
	// MaxHops bounds the symbols one traversal lists (Truncated past it).
	MaxHops = 10000
	// DefaultImplementationsDepth is how far implementations are followed
	// when a surface offers no depth (a subclass of a subclass …).
	DefaultImplementationsDepth = 5
	// MaxPathDepth bounds Paths' MaxDepth (as far as Impact looks for
	// tests, so that every chain it reports can be shown); MaxPaths its
	// Limit.
	MaxPathDepth = MaxTestDepth
	MaxPaths     = 100
)

// ---- definitions

// DefinitionsOptions ask where a name is defined.
type DefinitionsOptions struct {
	// Name is a plain (Serve) or qualified name (Server.Serve,
	// http.ListenAndServe), or a symbol_id from an earlier answer.
	Name string
	// Path keeps definitions in this file or under this directory.
	Path string
	// Kind keeps definitions of this kind (function, method, struct, …).
	Kind string
}

// DefinitionsResult lists every matching definition, in path order.
type DefinitionsResult struct {
	Definitions []graph.SymbolView `json:"definitions"`
	Symbols     []graph.Symbol     `json:"-"`
}

// Definitions finds where a name is defined; none is a not_found error.
func (s *Snapshot) Definitions(ctx context.Context, o DefinitionsOptions) (*DefinitionsResult, error) {
	defs, err := s.Resolve(ctx, o.Name, o.Path, o.Kind, false)
	if err != nil {
		return nil, err
	}
	return &DefinitionsResult{Definitions: s.viewSymbols(ctx, defs), Symbols: defs}, nil
}

func (s *Snapshot) viewSymbols(ctx context.Context, syms []graph.Symbol) []graph.SymbolView {
	out := make([]graph.SymbolView, len(syms))
	for i := range syms {
		out[i] = s.viewSymbol(ctx, &syms[i])
	}
	return out
}

// viewSymbol publishes a definition: every SymbolView the graph questions
// answer with (definitions, references' definitions, symbols, roots, hops'
// definitions, map entries, ambiguous candidates) is made here, so what
// must happen to a definition's text before it leaves the engine happens
// in one place.
func (s *Snapshot) viewSymbol(ctx context.Context, sym *graph.Symbol) graph.SymbolView {
	return graph.ViewSymbol(sym, s.CiteFunc(ctx))
}

// ---- references

// ReferencesOptions ask where a name is used.
type ReferencesOptions struct {
	// Name, Path and Kind name the definitions as for Definitions.
	Name, Path, Kind string
	// Roles keeps uses having any of these roles: call, read, write,
	// import, type, argument (a keyword argument: it binds a parameter
	// and is no write) (several joined by +); "" keeps all.
	Roles string
	// IncludeDefinitions keeps the definitions' own occurrences.
	IncludeDefinitions bool
}

// ReferencesResult lists the uses in path and position order.
type ReferencesResult struct {
	// Definitions are the definitions the name denotes (none for a name
	// defined outside the index, a library's).
	Definitions []graph.SymbolView `json:"definitions"`
	References  []graph.RefView    `json:"references"`
	Refs        []graph.Reference  `json:"-"`
}

// References finds the uses of the definitions a name denotes, by one rule
// for every surface (graph.ReferencesTo):
//
//   - the name is resolved to definitions as Definitions does (Path and
//     Kind narrow them, a symbol_id picks one);
//   - a use resolved to one of those definitions is kept, with confidence
//     precise (from SCIP) or resolved (by cairn's resolver);
//   - a use resolved to any other definition is left out;
//   - an unresolved use spelled like the definitions' name is kept, with
//     confidence name-only (it may be theirs: x.Serve when x's type is
//     unknown);
//   - a name with no definition in the index (a library's) lists its uses
//     by spelling, all name-only — a qualified one (reflect.PtrTo) those
//     selected from that qualifier; no definition and no use is not_found.
func (s *Snapshot) References(ctx context.Context, o ReferencesOptions) (*ReferencesResult, error) {
	var roles graph.Role
	if o.Roles != "" {
		var err error
		if roles, err = graph.ParseRole(o.Roles); err != nil {
			return nil, Errorf(InvalidArgument, "role: %v", err)
		}
	}
	name := strings.TrimSpace(o.Name)
	narrowed := isSymbolID(name) || o.Path != "" || o.Kind != ""
	defs, err := s.Resolve(ctx, name, o.Path, o.Kind, false)
	if e := Classify(err); e != nil && !(e.Category == NotFound && !narrowed) {
		return nil, e
	}
	refs, err := graph.ReferencesTo(ctx, s.R, defs, name, graph.RefOptions{IncludeDefinitions: o.IncludeDefinitions, Roles: roles})
	if err != nil {
		return nil, Classify(err)
	}
	if len(refs) == 0 && len(defs) == 0 {
		return nil, Errorf(NotFound, "no definition of and no reference to %q in the index (generation %d); try search", name, s.Meta.Generation)
	}
	cite := s.CiteFunc(ctx)
	res := &ReferencesResult{Definitions: s.viewSymbols(ctx, defs), References: make([]graph.RefView, len(refs)), Refs: refs}
	for i := range refs {
		res.References[i] = graph.ViewRef(&refs[i], cite)
	}
	return res, nil
}

// ---- symbols

// SymbolsOptions ask which definitions a file, a kind or a query holds.
type SymbolsOptions struct {
	// File keeps the definitions of this indexed file (not_found if the
	// index does not hold it).
	File string
	// Kind keeps definitions of this kind.
	Kind string
	// Query keeps definitions matching it: those it names (as Definitions),
	// then the symbol search's hits; "" lists all. Not with File.
	Query string
	// Fuzzy matches Query as an editor's symbol search does, against every
	// definition's name: the name itself, a prefix, prefixes of its words
	// (camel humps and snake parts: fulldisp finds full_dispatch_request,
	// gUN getUserName) or its letters in order, ranked in that order, then
	// shorter names first.
	Fuzzy bool
	// Limit bounds the answer; 0 is no bound (a query's is then 100).
	Limit int
}

// SymbolsResult lists definitions: a file's in source order, all in path
// order, a query's best first. Truncated says Limit cut it.
type SymbolsResult struct {
	Symbols   []graph.SymbolView `json:"symbols"`
	Truncated bool               `json:"truncated,omitempty"`
	Defs      []graph.Symbol     `json:"-"`
}

// Symbols lists definitions.
func (s *Snapshot) Symbols(ctx context.Context, o SymbolsOptions) (*SymbolsResult, error) {
	var k graph.SymbolKind
	if o.Kind != "" {
		var err error
		if k, err = graph.ParseSymbolKind(o.Kind); err != nil {
			return nil, Errorf(InvalidArgument, "kind: %v", err)
		}
	}
	if o.Limit < 0 {
		return nil, Errorf(InvalidArgument, "limit must not be negative (got %d)", o.Limit)
	}
	if o.File != "" && strings.TrimSpace(o.Query) != "" {
		return nil, Errorf(InvalidArgument, "give a file or a query, not both")
	}
	keep := func(sym *graph.Symbol) bool { return k == 0 || sym.Kind == k }
	var syms []graph.Symbol
	var err error
	switch q := strings.TrimSpace(o.Query); {
	case o.File != "":
		file, cerr := cleanUnder(o.File)
		if cerr != nil {
			return nil, cerr
		}
		if _, err := s.R.File(ctx, file); err != nil {
			return nil, Errorf(NotFound, "%s is not indexed (it may be ignored, generated or binary; see the index status)", file)
		}
		syms, err = s.R.SymbolsInFile(ctx, file)
		slices.SortStableFunc(syms, func(a, b graph.Symbol) int {
			return cmp.Or(cmp.Compare(a.Range.StartByte, b.Range.StartByte), cmp.Compare(b.Range.EndByte, a.Range.EndByte))
		})
		syms = slices.DeleteFunc(syms, func(sym graph.Symbol) bool { return !keep(&sym) })
	case q != "":
		most := 100
		if o.Limit > 0 {
			most = o.Limit + 1 // one more tells Truncated
		}
		if o.Fuzzy {
			syms, err = s.fuzzySymbols(ctx, q, keep, most)
		} else {
			syms, err = s.querySymbols(ctx, q, keep, most)
		}
	default:
		err = s.R.AllSymbols(ctx, func(sym graph.Symbol) error {
			if keep(&sym) {
				syms = append(syms, sym)
			}
			return nil
		})
	}
	if err != nil {
		return nil, Classify(err)
	}
	res := &SymbolsResult{}
	if o.Limit > 0 && len(syms) > o.Limit {
		syms, res.Truncated = syms[:o.Limit], true
	}
	res.Symbols, res.Defs = s.viewSymbols(ctx, syms), syms
	return res, nil
}

// querySymbols lists the definitions q names, then the symbol generator's
// hits for it, each once, up to most.
func (s *Snapshot) querySymbols(ctx context.Context, q string, keep func(*graph.Symbol) bool, most int) ([]graph.Symbol, error) {
	exact, err := graph.FindDefinitions(ctx, s.R, q)
	if err != nil {
		return nil, err
	}
	var out []graph.Symbol
	seen := map[graph.SymbolID]bool{}
	add := func(defs []graph.Symbol) {
		for i := range defs {
			if !seen[defs[i].ID] && keep(&defs[i]) && len(out) < most {
				seen[defs[i].ID] = true
				out = append(out, defs[i])
			}
		}
	}
	add(exact)
	if len(out) >= most || s.h == nil {
		return out, nil
	}
	res, err := s.fused().Search(ctx, q, fuse.Options{Limit: 50, Files: 1, Only: []string{fuse.GenSymbol}})
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		if h.SymbolID == "" || seen[h.SymbolID] {
			continue
		}
		more, err := s.R.SymbolsByID(ctx, h.SymbolID)
		if err != nil {
			return nil, err
		}
		add(more)
	}
	return out, nil
}

// ---- callers, callees, implementations

// HopsOptions ask who calls, or what is called by, one definition.
type HopsOptions struct {
	// Name, Path and Kind name the definition as for Definitions.
	Name, Path, Kind string
	// Depth is the number of levels followed, 1 (direct only) to
	// MaxHopDepth; anything else is invalid_argument.
	Depth int
	// All follows every definition the name denotes; without it a name
	// denoting several is an ambiguous error listing them.
	All bool
	// Sites also returns, per direct hop, every edge between it and its
	// root (Hops.Edges: a call hierarchy's ranges).
	Sites bool
}

// HopsResult is a traversal from the roots, breadth first, each symbol once
// at its shallowest depth.
type HopsResult struct {
	// Roots are the definitions the name denotes (at most MaxCandidates).
	Roots   []graph.SymbolView `json:"roots"`
	Results []graph.HopView    `json:"results"`
	// Truncated: the traversal stopped at MaxHops symbols.
	Truncated bool           `json:"truncated,omitempty"`
	Hops      []graph.Hop    `json:"-"`
	RootDefs  []graph.Symbol `json:"-"`
	// Edges, with HopsOptions.Sites, holds for each direct hop every edge
	// between it and its root (aligned with Hops; nil past depth 1).
	Edges [][]graph.Edge `json:"-"`
}

// Callers finds who calls the definition, transitively up to Depth.
func (s *Snapshot) Callers(ctx context.Context, o HopsOptions) (*HopsResult, error) {
	return s.hops(ctx, o, graph.In, []graph.EdgeKind{graph.EdgeCalls})
}

// Callees finds what the definition calls, transitively up to Depth.
func (s *Snapshot) Callees(ctx context.Context, o HopsOptions) (*HopsResult, error) {
	return s.hops(ctx, o, graph.Out, []graph.EdgeKind{graph.EdgeCalls})
}

// Implementations finds the types implementing or extending the definition
// and the methods overriding it, transitively up to Depth.
func (s *Snapshot) Implementations(ctx context.Context, o HopsOptions) (*HopsResult, error) {
	return s.hops(ctx, o, graph.In, []graph.EdgeKind{graph.EdgeImplements, graph.EdgeExtends, graph.EdgeOverrides})
}

func (s *Snapshot) hops(ctx context.Context, o HopsOptions, dir graph.Direction, kinds []graph.EdgeKind) (*HopsResult, error) {
	if o.Depth < 1 || o.Depth > MaxHopDepth {
		return nil, Errorf(InvalidArgument, "depth must be between 1 and %d (got %d)", MaxHopDepth, o.Depth)
	}
	defs, err := s.Resolve(ctx, o.Name, o.Path, o.Kind, !o.All)
	if err != nil {
		return nil, err
	}
	var roots []graph.SymbolID
	for _, d := range defs {
		if !slices.Contains(roots, d.ID) {
			roots = append(roots, d.ID)
		}
	}
	topts := graph.TraverseOptions{Depth: o.Depth, Kinds: kinds, Limit: MaxHops}
	var hops []graph.Hop
	if dir == graph.In {
		hops, err = graph.Callers(ctx, s.R, roots, topts)
	} else {
		hops, err = graph.Callees(ctx, s.R, roots, topts)
	}
	if err != nil {
		return nil, Classify(err)
	}
	cite := s.CiteFunc(ctx)
	res := &HopsResult{Roots: s.viewSymbols(ctx, defs[:min(len(defs), MaxCandidates)]), Results: make([]graph.HopView, len(hops)),
		Truncated: len(hops) >= MaxHops, Hops: hops, RootDefs: defs}
	for i := range hops {
		res.Results[i] = graph.ViewHop(&hops[i], cite)
		if d := hops[i].Def; d != nil {
			*res.Results[i].Definition = s.viewSymbol(ctx, d)
		}
	}
	if o.Sites {
		if res.Edges, err = s.directEdges(ctx, roots, hops, dir, kinds); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// directEdges groups the edges between the roots and their direct hops.
func (s *Snapshot) directEdges(ctx context.Context, roots []graph.SymbolID, hops []graph.Hop, dir graph.Direction, kinds []graph.EdgeKind) ([][]graph.Edge, error) {
	edges, err := s.R.Edges(ctx, roots, dir, kinds...)
	if err != nil {
		return nil, Classify(err)
	}
	at := map[[2]graph.SymbolID]int{}
	for i, h := range hops {
		if h.Depth == 1 {
			at[[2]graph.SymbolID{h.Symbol, h.Next}] = i
		}
	}
	out := make([][]graph.Edge, len(hops))
	for _, e := range edges {
		far, near := e.From, e.To
		if dir == graph.Out {
			far, near = e.To, e.From
		}
		if i, ok := at[[2]graph.SymbolID{far, near}]; ok {
			out[i] = append(out[i], e)
		}
	}
	return out, nil
}

// ---- paths

// PathsOptions ask for the shortest call paths between two names.
type PathsOptions struct {
	// From and To name definitions as for Definitions; every definition
	// of each takes part (a path shows which).
	From, To string
	// MaxDepth is the longest path looked for, 1 to MaxPathDepth.
	MaxDepth int
	// Limit is the most paths returned, 1 to MaxPaths.
	Limit int
}

// PathsResult lists the shortest call paths, each a chain of edges from one
// of From's definitions to one of To's; none is an empty list (no path
// within MaxDepth), not an error.
type PathsResult struct {
	From  []graph.SymbolView `json:"from"`
	To    []graph.SymbolView `json:"to"`
	Paths [][]graph.EdgeView `json:"paths"`
	// Dependency: no call path joins them, and the one path is the chain
	// of dependency edges Impact follows (references, reads of function
	// values, dispatch through an interface or base method, name-only
	// calls on receivers of unknown type) — the chain Impact gives as the
	// reason a test is selected.
	Dependency bool         `json:"dependency,omitempty"`
	Raw        []graph.Path `json:"-"`
}

// Paths finds the shortest call paths from From to To; when calls alone do
// not join them, the chain Impact's walk follows (impact.Chain), so that a
// test Impact selects always has a path.
func (s *Snapshot) Paths(ctx context.Context, o PathsOptions) (*PathsResult, error) {
	if o.MaxDepth < 1 || o.MaxDepth > MaxPathDepth {
		return nil, Errorf(InvalidArgument, "max depth must be between 1 and %d (got %d)", MaxPathDepth, o.MaxDepth)
	}
	if o.Limit < 1 || o.Limit > MaxPaths {
		return nil, Errorf(InvalidArgument, "limit must be between 1 and %d (got %d)", MaxPaths, o.Limit)
	}
	from, err := s.Resolve(ctx, o.From, "", "", false)
	if err != nil {
		return nil, err
	}
	to, err := s.Resolve(ctx, o.To, "", "", false)
	if err != nil {
		return nil, err
	}
	ids := func(defs []graph.Symbol) []graph.SymbolID {
		var out []graph.SymbolID
		for _, d := range defs {
			if !slices.Contains(out, d.ID) {
				out = append(out, d.ID)
			}
		}
		return out
	}
	paths, err := graph.ShortestPaths(ctx, s.R, ids(from), ids(to), o.MaxDepth, o.Limit)
	if err != nil {
		return nil, Classify(err)
	}
	dependency := false
	if len(paths) == 0 {
		chain, err := impact.Chain(ctx, s.R, ids(from), ids(to), o.MaxDepth, impact.Options{Depth: DefaultImpactDepth})
		if err != nil {
			return nil, Classify(err)
		}
		if len(chain) > 0 {
			paths, dependency = []graph.Path{chain}, true
		}
	}
	cite := s.CiteFunc(ctx)
	res := &PathsResult{From: s.viewSymbols(ctx, from[:min(len(from), MaxCandidates)]), To: s.viewSymbols(ctx, to[:min(len(to), MaxCandidates)]),
		Paths: make([][]graph.EdgeView, len(paths)), Raw: paths, Dependency: dependency}
	for i, p := range paths {
		res.Paths[i] = make([]graph.EdgeView, len(p))
		for j := range p {
			res.Paths[i][j] = graph.ViewEdge(&p[j], cite)
		}
	}
	return res, nil
}

// ---- map

// MapOptions ask for the repository's most central definitions.
type MapOptions struct {
	// Under keeps definitions in this file or under this directory; one the
	// index holds no file under is not_found.
	Under string
	// Limit is the most entries, 1 to MaxCentral.
	Limit int
}

// MapEntry is a central definition with its rank.
type MapEntry struct {
	graph.SymbolView
	Rank float64 `json:"rank" jsonschema:"centrality (mean 1)"`
}

// MapResult lists central definitions, most central first (ties in path
// order); test code is left out.
type MapResult struct {
	Symbols []MapEntry     `json:"symbols"`
	Defs    []graph.Symbol `json:"-"`
}

// Map ranks the definitions by centrality (PageRank over references, stored
// at index time) and lists the best.
func (s *Snapshot) Map(ctx context.Context, o MapOptions) (*MapResult, error) {
	if o.Limit < 1 || o.Limit > MaxCentral {
		return nil, Errorf(InvalidArgument, "limit must be between 1 and %d (got %d)", MaxCentral, o.Limit)
	}
	under, err := cleanUnder(o.Under)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if under != "" {
		prefix = under + "/"
		if _, err := s.R.File(ctx, under); err == nil {
			prefix = under // a file
		}
	}
	syms, ranks, err := s.Central(ctx, prefix)
	if err != nil {
		return nil, Classify(err)
	}
	var kept []graph.Symbol
	for _, sym := range syms {
		if inUnder(sym.Path, under) && len(kept) < o.Limit {
			kept = append(kept, sym)
		}
	}
	if len(kept) == 0 && under != "" {
		if err := s.indexedUnder(ctx, under); err != nil {
			return nil, err
		}
	}
	res := &MapResult{Symbols: make([]MapEntry, len(kept)), Defs: kept}
	for i := range kept {
		res.Symbols[i] = MapEntry{SymbolView: s.viewSymbol(ctx, &kept[i]), Rank: round4(ranks[kept[i].ID])}
	}
	return res, nil
}

// indexedUnder is a not_found error unless the index holds a file that is
// under or inside the directory under.
func (s *Snapshot) indexedUnder(ctx context.Context, under string) error {
	files, err := s.R.Files(ctx)
	if err != nil {
		return Classify(err)
	}
	for _, f := range files {
		if inUnder(f.Path, under) {
			return nil
		}
	}
	return Errorf(NotFound, "the index holds no file under %s", under)
}

func round4(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }
