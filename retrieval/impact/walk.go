package impact

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn/graph"
)

// maxNameOnly is the most name-only calls of one method name the walk
// follows: a name called on receivers of unknown type more often than this
// (encode, get, close) would pull in much of the repository by spelling
// alone; its calls are counted in the risk but not walked.
const maxNameOnly = 64

// walker is the breadth-first walk from changed symbols to what depends on
// them, each symbol once at its shallowest depth. Analyze lists what it
// reaches; Chain follows the same edges to show why a test was selected,
// so that impact and path agree.
type walker struct {
	r     graph.Reader
	o     Options
	def   func(graph.SymbolID) (*graph.Symbol, error)
	nodes []node
	seen  map[graph.SymbolID]int
	// frontier is the last level reached.
	frontier  []int
	truncated bool
	// nameOnly caches, per method name, the calls spelled like it on
	// receivers of unknown type; skipped counts the ones not walked.
	nameOnly map[string][]graph.Reference
	skipped  map[string]int
}

func newWalker(r graph.Reader, o Options, def func(graph.SymbolID) (*graph.Symbol, error)) *walker {
	return &walker{r: r, o: o, def: def, seen: map[graph.SymbolID]int{}, nameOnly: map[string][]graph.Reference{}, skipped: map[string]int{}}
}

// root adds a changed symbol.
func (w *walker) root(id graph.SymbolID, through string) {
	w.seen[id] = len(w.nodes)
	w.nodes = append(w.nodes, node{id: id, parent: -1, conf: graph.ConfPrecise, through: through})
	w.frontier = append(w.frontier, len(w.nodes)-1)
}

func (w *walker) frontierAll() []int { return slices.Clone(w.frontier) }

// up adds the interface and base methods that the given nodes implement or
// override (their callers dispatch to them), at the same depth, to the
// frontier, and returns them.
func (w *walker) up(ctx context.Context, of []int) ([]int, error) {
	ids := make([]graph.SymbolID, len(of))
	for i, n := range of {
		ids[i] = w.nodes[n].id
	}
	es, err := w.r.Edges(ctx, ids, graph.Out, graph.EdgeImplements, graph.EdgeOverrides)
	if err != nil {
		return nil, err
	}
	var added []int
	for _, e := range es {
		if _, ok := w.seen[e.To]; ok {
			continue
		}
		d, err := w.def(e.To)
		if err != nil {
			return nil, err
		}
		if d == nil || d.Kind.IsType() {
			continue // a type-level implements says nothing about callers
		}
		p := w.seen[e.From]
		pn := w.nodes[p]
		through := pn.through
		if pn.parent < 0 {
			through = d.QualifiedName()
		}
		w.seen[e.To] = len(w.nodes)
		w.nodes = append(w.nodes, node{id: e.To, parent: p, depth: pn.depth, via: e.Kind, conf: min(pn.conf, e.Confidence), amb: pn.amb, through: through, iface: true, edge: e})
		added = append(added, len(w.nodes)-1)
	}
	w.frontier = append(w.frontier, added...)
	return added, nil
}

// walk goes up the dependency edges level by level to o.TestDepth (all
// dependency kinds to o.Depth, then calls, references and reads of function
// values), until stop reports a node it wants, or the limit.
func (w *walker) walk(ctx context.Context, stop func(int) bool) error {
	for d := 1; d <= w.o.TestDepth && len(w.frontier) > 0; d++ {
		// a method reached is also reached through the interface or base
		// methods it implements: their callers dispatch to it
		if d > 1 {
			if _, err := w.up(ctx, w.frontier); err != nil {
				return err
			}
		}
		ids := make([]graph.SymbolID, len(w.frontier))
		for i, n := range w.frontier {
			ids[i] = w.nodes[n].id
		}
		kinds := dependentKinds
		if d > w.o.Depth {
			// past the listed depth only calls and references lead to
			// tests, and reads of functions and variables: a function
			// used as a value (an analyzer's Run: run, a handler table, a
			// test seam var f = impl) runs where the value is called, and a
			// variable holding it reaches whoever reads it
			kinds = []graph.EdgeKind{graph.EdgeCalls, graph.EdgeReferences}
		}
		es, err := w.r.Edges(ctx, ids, graph.In, kinds...)
		if err != nil {
			return err
		}
		if d > w.o.Depth {
			var values []graph.SymbolID
			for _, id := range ids {
				dd, err := w.def(id)
				if err != nil {
					return err
				}
				if dd != nil && (dd.Kind.IsCallable() || dd.Kind == graph.KindVariable || dd.Kind == graph.KindConstant) {
					values = append(values, id)
				}
			}
			more, err := w.r.Edges(ctx, values, graph.In, graph.EdgeReads)
			if err != nil {
				return err
			}
			es = append(es, more...)
		}
		more, err := w.nameOnlyCalls(ctx, ids)
		if err != nil {
			return err
		}
		es = append(es, more...)
		var next []int
		for _, e := range es {
			if e.Kind == graph.EdgeImplements || e.Kind == graph.EdgeExtends || e.Kind == graph.EdgeOverrides {
				continue // listed as implementations
			}
			if _, ok := w.seen[e.From]; ok {
				continue
			}
			if len(w.nodes) >= w.o.Limit {
				w.truncated = true
				break
			}
			p := w.seen[e.To]
			pn := w.nodes[p]
			w.seen[e.From] = len(w.nodes)
			w.nodes = append(w.nodes, node{id: e.From, parent: p, depth: d, via: e.Kind, conf: min(pn.conf, e.Confidence), amb: pn.amb || e.Ambiguous, through: pn.through, edge: e})
			next = append(next, len(w.nodes)-1)
			if stop != nil && stop(len(w.nodes)-1) {
				return nil
			}
		}
		w.frontier = next
	}
	return nil
}

// staticallyTyped are the languages whose receivers the resolver types
// from declarations: there a call it left unresolved is a library's method
// (tx.Commit() on a *sql.Tx), and dispatch goes through the interface
// edges the walk follows anyway.
var staticallyTyped = map[graph.Language]bool{graph.LangGo: true, graph.LangJava: true, graph.LangRust: true}

// nameOnlyCalls are the calls of the given methods by name alone: a call
// spelled like the method on a receiver of unknown type (codec.encode(…)
// where nothing says what codec is) may dispatch to it. The resolver links
// no edge for them; the walk takes each as a call edge of confidence
// name-only, from the definition the call is written in.
func (w *walker) nameOnlyCalls(ctx context.Context, ids []graph.SymbolID) ([]graph.Edge, error) {
	var out []graph.Edge
	for _, id := range ids {
		d, err := w.def(id)
		if err != nil {
			return nil, err
		}
		if d == nil || d.Kind != graph.KindMethod || staticallyTyped[d.Lang] {
			continue
		}
		refs, ok := w.nameOnly[d.Name]
		if !ok {
			all, err := graph.ReferencesTo(ctx, w.r, []graph.Symbol{*d}, d.Name, graph.RefOptions{Roles: graph.RoleCall})
			if err != nil {
				return nil, err
			}
			for _, ref := range all {
				if ref.Confidence == graph.ConfNameOnly && ref.Qualifier != "" && ref.EnclosingSymbol != nil {
					refs = append(refs, ref)
				}
			}
			if len(refs) > maxNameOnly {
				w.skipped[d.Name] = len(refs)
				refs = nil
			}
			w.nameOnly[d.Name] = refs
		}
		for _, ref := range refs {
			out = append(out, graph.Edge{From: ref.EnclosingSymbol.ID, To: id, Kind: graph.EdgeCalls, Confidence: graph.ConfNameOnly, Path: ref.Path, Range: ref.Range})
		}
	}
	return out, nil
}

// warnings say which name-only calls were not followed.
func (w *walker) warnings() []string {
	var out []string
	for _, n := range sortedKeys(w.skipped) {
		out = append(out, fmt.Sprintf("%d calls of .%s on receivers of unknown type were not followed (too common a name to follow by spelling alone)", w.skipped[n], n))
	}
	return out
}

// chain is the edges from node i down to the changed symbol it was reached
// from, in order.
func (w *walker) chain(i int) []graph.Edge {
	var out []graph.Edge
	for j := i; w.nodes[j].parent >= 0; j = w.nodes[j].parent {
		out = append(out, w.nodes[j].edge)
	}
	return out
}

// Chain is why a test (or any symbol) in from depends on a symbol in to:
// the chain of edges impact's walk follows from to up to from, in order
// from from to to, or nil when the walk does not reach from within
// maxDepth levels. Options bound it as they bound Analyze (Depth: the
// levels along which every dependency kind counts).
func Chain(ctx context.Context, r graph.Reader, from, to []graph.SymbolID, maxDepth int, o Options) ([]graph.Edge, error) {
	o.Depth = cmp.Or(o.Depth, 3)
	o.TestDepth = max(maxDepth, 1)
	o.Limit = cmp.Or(o.Limit, 20000)
	_, def := symbolLookup(ctx, r)
	want := map[graph.SymbolID]bool{}
	for _, id := range from {
		want[id] = true
	}
	w := newWalker(r, o, def)
	for _, id := range to {
		if _, ok := w.seen[id]; !ok {
			w.root(id, "")
		}
	}
	if _, err := w.up(ctx, w.frontierAll()); err != nil {
		return nil, err
	}
	hit := -1
	for i := range w.nodes {
		if want[w.nodes[i].id] {
			hit = i
		}
	}
	if hit < 0 {
		if err := w.walk(ctx, func(i int) bool {
			if want[w.nodes[i].id] {
				hit = i
				return true
			}
			return false
		}); err != nil {
			return nil, err
		}
	}
	if hit < 0 {
		return nil, nil
	}
	return w.chain(hit), nil
}

// symbolLookup returns a function that reads a symbol by ID once and
// remembers it (nil when the index has none), and the map it remembers in.
func symbolLookup(ctx context.Context, r graph.Reader) (map[graph.SymbolID]*graph.Symbol, func(graph.SymbolID) (*graph.Symbol, error)) {
	defs := map[graph.SymbolID]*graph.Symbol{}
	return defs, func(id graph.SymbolID) (*graph.Symbol, error) {
		if d, ok := defs[id]; ok {
			return d, nil
		}
		ss, err := r.SymbolsByID(ctx, id)
		if err != nil {
			return nil, err
		}
		var d *graph.Symbol
		if len(ss) > 0 {
			d = &ss[0]
		}
		defs[id] = d
		return d, nil
	}
}
