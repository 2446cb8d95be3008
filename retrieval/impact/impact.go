package impact

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// Options bound an impact analysis.
type Options struct {
	// Depth is how many levels of dependents are listed (default 3).
	Depth int
	// TestDepth is how far up the graph tests are looked for (default 12):
	// a test that reaches a changed symbol through a helper chain still
	// exercises it.
	TestDepth int
	// Root is the worktree (default: the root the index was built from),
	// where git runs (diffs).
	Root string
	// Files reads the worktree's CODEOWNERS, go.mod, package.json…;
	// default: the repository boundary (internal/repofs) over Root.
	Files Files
	// Limit caps the symbols visited (default 20,000).
	Limit int
	// Cite cites the symbols' locations (revision, stale); nil cites none.
	Cite graph.CiteFunc
}

// Files reads repository files; internal/repofs implements it, refusing paths
// and links out of the repository.
type Files interface {
	ReadFile(rel string) ([]byte, error)
}

// Symbol is a changed or dependent symbol: the one shape of a symbol at
// a place (graph.SymbolView, without its doc), with how the change reaches
// it.
type Symbol struct {
	graph.SymbolView
	// Depth is the number of edges from a changed symbol; Via the kind of
	// the edge that reached it; Confidence the weakest on the way.
	Depth      int    `json:"depth,omitempty"`
	Via        string `json:"via,omitempty"`
	Confidence string `json:"confidence,omitempty"`
	Ambiguous  bool   `json:"ambiguous,omitempty"`
	// Through names the changed symbol (or the interface method it
	// implements) the dependency runs through.
	Through string `json:"through,omitempty"`
	// Uses is the symbol one edge closer to the change that this one
	// depends on — its predecessor in the walk (a changed symbol at depth
	// 1) — so that dependents by depth can be drawn as a graph.
	Uses graph.SymbolID `json:"uses,omitempty"`
	// Why says how a changed symbol was chosen (named, diff lines).
	Why string `json:"why,omitempty"`
}

// Test is a test that exercises a changed symbol: one its runner runs as
// the project configures it (go test's names; pytest's python_files,
// python_classes, python_functions and testpaths), reached by the walk or
// itself changed or added by the diff (depth 0, with its Why).
type Test struct {
	Symbol
	// Selector runs this test alone: a go test -run pattern, a pytest node
	// id, a test file. Selectors lists every node id when the runner
	// collects the test more than once — a test method of a base or mixin
	// class runs in each collected subclass, never in the base itself.
	Selector  string   `json:"selector"`
	Selectors []string `json:"selectors,omitempty"`
	// Chain is why the test is selected: the edges from the test down to
	// the changed symbol, in order (empty for a changed test). Each is an
	// edge the graph holds, or a name-only call of a method on a receiver
	// of unknown type; `cairn path TEST SYMBOL` shows the same chain.
	Chain []graph.EdgeView `json:"chain,omitempty"`
}

// whyChanged is the Why of the change of id.
func whyChanged(changes []Change, id graph.SymbolID) string {
	for _, c := range changes {
		if c.Symbol.ID == id {
			return c.Why
		}
	}
	return ""
}

// Owner is a CODEOWNERS rule that covers changed or dependent code.
type Owner struct {
	Owners  []string `json:"owners"`
	Pattern string   `json:"pattern"`
	Paths   int      `json:"paths"` // how many affected files it covers
	Changed bool     `json:"changed"`
}

// Risk summarizes how dangerous the change is.
type Risk struct {
	Level   string   `json:"level"` // low, medium, high
	Reasons []string `json:"reasons"`
	FanIn   int      `json:"fan_in"`
	Public  bool     `json:"public"`
	// Untested are dependents no test was found above.
	Untested []string `json:"untested,omitempty"`
}

// Result is an impact analysis.
type Result struct {
	Target          string   `json:"target"`
	Revision        string   `json:"revision"`
	Dirty           bool     `json:"dirty"`
	Changed         []Symbol `json:"changed"`
	Removed         []string `json:"removed,omitempty"`
	Dependents      []Symbol `json:"dependents"`
	Implementations []Symbol `json:"implementations,omitempty"`
	Tests           []Test   `json:"tests"`
	// Commands run the affected tests, one per language/module.
	Commands []string `json:"commands"`
	Packages []string `json:"packages"`
	Owners   []Owner  `json:"owners,omitempty"`
	Risk     Risk     `json:"risk"`
	// Truncated: the limit stopped the walk; Unknown: what could not be
	// analysed.
	Truncated bool     `json:"truncated,omitempty"`
	Unknown   []string `json:"unknown,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// dependentKinds are the edges along which a change propagates to users.
var dependentKinds = []graph.EdgeKind{graph.EdgeCalls, graph.EdgeReferences, graph.EdgeTypeUse, graph.EdgeReads, graph.EdgeWrites, graph.EdgeExtends, graph.EdgeImplements, graph.EdgeOverrides}

// ForTarget analyses the impact of changing the symbols a name resolves to.
func ForTarget(ctx context.Context, r graph.Reader, name string, o Options) (*Result, error) {
	defs, err := graph.FindDefinitions(ctx, r, name)
	if err != nil {
		return nil, err
	}
	if len(defs) == 0 {
		return nil, fmt.Errorf("%w: no definition of %q", graph.ErrNotFound, name)
	}
	res, err := Analyze(ctx, r, Named(defs), o)
	if res != nil {
		res.Target = name
	}
	return res, err
}

type node struct {
	id      graph.SymbolID
	parent  int
	depth   int
	via     graph.EdgeKind
	conf    graph.Confidence
	amb     bool
	through string
	iface   bool       // an interface or base method the previous node implements
	edge    graph.Edge // the edge that reached it from its parent (none for a root)
}

// Change is a symbol whose change is analysed, with why it was chosen:
// "named", "lines 3-5 changed", "file deleted". Why becomes the Why of the
// symbol in Result.Changed.
type Change struct {
	Symbol graph.Symbol
	Why    string
}

// Named makes the changes of definitions a caller named.
func Named(defs []graph.Symbol) []Change {
	out := make([]Change, len(defs))
	for i := range defs {
		out[i] = Change{Symbol: defs[i], Why: "named"}
	}
	return out
}

// Analyze computes the impact of the changes.
func Analyze(ctx context.Context, r graph.Reader, changes []Change, o Options) (*Result, error) {
	o.Depth = cmp.Or(o.Depth, 3)
	o.TestDepth = max(cmp.Or(o.TestDepth, 12), o.Depth)
	o.Limit = cmp.Or(o.Limit, 20000)
	m, err := r.Meta(ctx)
	if err != nil {
		return nil, err
	}
	root := cmp.Or(o.Root, m.Root)
	res := &Result{Revision: m.Revision, Dirty: m.Dirty, Dependents: []Symbol{}, Tests: []Test{}, Commands: []string{}, Packages: []string{}}
	defs, def := symbolLookup(ctx, r)
	w := newWalker(r, o, def)
	var roots []graph.SymbolID
	for i := range changes {
		s := &changes[i].Symbol
		if _, ok := w.seen[s.ID]; ok {
			continue
		}
		defs[s.ID] = s
		w.root(s.ID, s.QualifiedName())
		roots = append(roots, s.ID)
		v := view(s, o.Cite)
		v.Why = changes[i].Why
		res.Changed = append(res.Changed, v)
	}
	// interface methods and base methods the changed ones implement or
	// override: their callers may dispatch here
	ups, err := w.up(ctx, w.frontierAll())
	if err != nil {
		return nil, err
	}
	for _, n := range ups {
		d := defs[w.nodes[n].id]
		v := view(d, o.Cite)
		v.Via, v.Confidence, v.Through = w.nodes[n].via.String()+" (upward)", w.nodes[n].conf.String(), d.QualifiedName()
		res.Implementations = append(res.Implementations, v)
	}
	// implementations and overrides of the changed symbols
	impls, err := graph.Implementations(ctx, r, roots, 3)
	if err != nil {
		return nil, err
	}
	for _, h := range impls {
		if h.Def == nil {
			continue
		}
		v := view(h.Def, o.Cite)
		v.Depth, v.Via, v.Confidence, v.Ambiguous = h.Depth, h.Via.Kind.String(), h.Confidence.String(), h.Ambiguous
		res.Implementations = append(res.Implementations, v)
	}
	if err := w.walk(ctx, nil); err != nil {
		return nil, err
	}
	nodes, seen := w.nodes, w.seen
	res.Truncated = w.truncated
	res.Warnings = append(res.Warnings, w.warnings()...)
	repo := o.Files
	if repo == nil {
		repo = repofs.New(root)
	}
	sel := newSelectors(repo, r)
	var testNodes []int
	// views, tests, coverage
	covered := map[int]bool{}
	pkgs := map[string]bool{}
	files := map[string]bool{}
	for _, c := range changes {
		s := &c.Symbol
		files[s.Path] = true
	}
	selected := map[int][]string{}
	for i := range nodes {
		n := &nodes[i]
		if n.iface && n.depth == 0 {
			continue // an interface method above a changed one: no test of its own
		}
		d, err := def(n.id)
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		// a test is what its runner runs as configured (a changed or added
		// test included): go test's names, pytest's collection rules
		ids, err := sel.collect(ctx, d)
		if err != nil {
			return nil, err
		}
		if len(ids) > 0 {
			testNodes = append(testNodes, i)
			selected[i] = ids
			for j := i; j >= 0; j = nodes[j].parent {
				covered[j] = true
			}
		}
		if n.parent < 0 || n.depth > o.Depth || n.depth == 0 {
			continue
		}
		v := view(d, o.Cite)
		v.Depth, v.Via, v.Confidence, v.Ambiguous, v.Through = n.depth, n.via.String(), n.conf.String(), n.amb, n.through
		v.Uses = nodes[n.parent].id
		res.Dependents = append(res.Dependents, v)
		files[d.Path] = true
		if !d.IsTest {
			pkgs[cmp.Or(d.Package, path.Dir(d.Path))] = true
		}
	}
	for _, c := range changes {
		s := &c.Symbol
		pkgs[cmp.Or(s.Package, path.Dir(s.Path))] = true
	}
	for _, d := range res.Dependents {
		i := seen[d.SymbolID]
		if !covered[i] && !defs[d.SymbolID].IsTest {
			res.Risk.Untested = append(res.Risk.Untested, d.QualifiedName)
		}
	}
	// tests, each with the chain of edges that reaches the change, and the
	// commands that run them
	for _, i := range testNodes {
		d := defs[nodes[i].id]
		t := Test{Symbol: view(d, o.Cite)}
		t.Depth, t.Via, t.Confidence, t.Through = nodes[i].depth, nodes[i].via.String(), nodes[i].conf.String(), nodes[i].through
		if nodes[i].parent < 0 {
			t.Via, t.Why = "", whyChanged(changes, d.ID)
		} else {
			t.Uses = nodes[nodes[i].parent].id
		}
		for _, e := range w.chain(i) {
			t.Chain = append(t.Chain, graph.ViewEdge(&e, o.Cite))
		}
		t.Selector, t.Selectors = selected[i][0], selected[i]
		if len(t.Selectors) == 1 {
			t.Selectors = nil
		}
		res.Tests = append(res.Tests, t)
	}
	sortSymbols(res.Dependents)
	slices.SortStableFunc(res.Tests, func(a, b Test) int { return cmp.Or(strings.Compare(a.Path, b.Path), a.StartLine-b.StartLine) })
	res.Commands = sel.commands(res.Tests)
	for p := range pkgs {
		res.Packages = append(res.Packages, p)
	}
	sort.Strings(res.Packages)
	own, err := loadOwners(repo)
	if err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	}
	changedFiles := map[string]bool{}
	for _, c := range changes {
		s := &c.Symbol
		changedFiles[s.Path] = true
	}
	res.Owners = own.cover(files, changedFiles)
	res.Risk = risk(res, nodes)
	if res.Truncated {
		res.Unknown = append(res.Unknown, fmt.Sprintf("the walk stopped at %d symbols: dependents and tests beyond are not listed", o.Limit))
	}
	for _, c := range changes {
		s := &c.Symbol
		f, err := r.File(ctx, s.Path)
		if err == nil && !f.Status.Analysed() {
			res.Unknown = append(res.Unknown, fmt.Sprintf("%s: %s", s.Path, f.Status))
		}
	}
	return res, nil
}

// view publishes a symbol without its doc (a list to act on, not to read).
func view(s *graph.Symbol, cite graph.CiteFunc) Symbol {
	v := Symbol{SymbolView: graph.ViewSymbol(s, cite)}
	v.Doc = ""
	return v
}

func sortSymbols(ss []Symbol) {
	slices.SortStableFunc(ss, func(a, b Symbol) int {
		return cmp.Or(a.Depth-b.Depth, strings.Compare(a.Path, b.Path), a.StartLine-b.StartLine)
	})
}

// risk scores fan-in, public API, breadth and untested dependents.
func risk(res *Result, nodes []node) Risk {
	rk := res.Risk
	nameOnly := 0
	for _, d := range res.Dependents {
		if d.Depth == 1 {
			rk.FanIn++
			if d.Confidence == graph.ConfNameOnly.String() {
				nameOnly++
			}
		}
	}
	for _, c := range res.Changed {
		if c.Exported {
			rk.Public = true
		}
	}
	score := 0
	add := func(points int, reason string) {
		score += points
		rk.Reasons = append(rk.Reasons, reason)
	}
	switch {
	case rk.FanIn >= 20:
		add(2, fmt.Sprintf("high fan-in: %d direct dependents", rk.FanIn))
	case rk.FanIn >= 5:
		add(1, fmt.Sprintf("fan-in %d", rk.FanIn))
	default:
		rk.Reasons = append(rk.Reasons, fmt.Sprintf("low fan-in: %d direct dependents", rk.FanIn))
	}
	if nameOnly > 0 {
		// calls on receivers of unknown type: each may or may not
		// dispatch here, so the fan-in counts them and says so
		rk.Reasons = append(rk.Reasons, fmt.Sprintf("%d of the %d direct dependents are name-only calls on receivers of unknown type", nameOnly, rk.FanIn))
	}
	if rk.Public {
		add(1, "public API: exported, so code outside the repository may depend on it too")
	}
	if n := len(res.Dependents); n >= 100 {
		add(2, fmt.Sprintf("%d dependents within %d levels", n, maxDepth(res.Dependents)))
	} else if n >= 20 {
		add(1, fmt.Sprintf("%d dependents", n))
	}
	if n := len(res.Implementations); n > 0 {
		add(1, fmt.Sprintf("%d implementations or overrides share the contract", n))
	}
	if len(res.Tests) == 0 {
		add(2, "no test reaches the changed code")
	} else if u := len(rk.Untested); u > 0 {
		pts := 0
		if u*2 > len(res.Dependents) {
			pts = 1
		}
		add(pts, fmt.Sprintf("%d of %d dependents have no test above them", u, len(res.Dependents)))
	} else {
		rk.Reasons = append(rk.Reasons, fmt.Sprintf("%d tests reach it", len(res.Tests)))
	}
	if res.Truncated {
		add(1, "the dependents were too many to walk completely")
	}
	switch {
	case score >= 4:
		rk.Level = "high"
	case score >= 2:
		rk.Level = "medium"
	default:
		rk.Level = "low"
	}
	if len(rk.Untested) > 20 {
		rk.Untested = append(rk.Untested[:20], fmt.Sprintf("… %d more", len(rk.Untested)-20))
	}
	return rk
}

func maxDepth(ss []Symbol) int {
	m := 0
	for _, s := range ss {
		m = max(m, s.Depth)
	}
	return m
}
