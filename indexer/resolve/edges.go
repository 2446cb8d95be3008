package resolve

import (
	"github.com/cairn-dev/cairn/graph"
)

// occurrenceEdges derives the edges of one resolved occurrence.
func (c *fileCtx) occurrenceEdges(edges []graph.Edge, o *graph.Occurrence, ts []target) []graph.Edge {
	if len(ts) == 0 {
		return edges
	}
	from := c.module
	isTest := false
	if o.Enclosing >= 0 {
		s := &c.ff.Symbols[o.Enclosing]
		from = s.ID
		for p := o.Enclosing; p >= 0; p = c.ff.Symbols[p].Parent {
			if c.ff.Symbols[p].IsTest {
				isTest = true
			}
		}
	}
	if from == "" {
		return edges
	}
	amb := len(ts) > 1
	add := func(to graph.SymbolID, kind graph.EdgeKind, conf graph.Confidence) {
		edges = append(edges, graph.Edge{From: from, To: to, Kind: kind, Confidence: conf, Ambiguous: amb, Path: c.ff.File.Path, Range: o.Range})
	}
	for _, t := range ts {
		kinds := edgeKinds(o.Role, t.sym.Kind)
		for _, k := range kinds {
			add(t.sym.ID, k, t.conf)
		}
		if o.Role&graph.RoleCall != 0 {
			if isTest {
				add(t.sym.ID, graph.EdgeTests, t.conf)
			}
			// calling a class calls its constructor
			if t.sym.Kind.IsType() {
				for _, ctor := range c.constructors(&t.sym) {
					add(ctor.ID, graph.EdgeCalls, t.conf)
				}
			}
		}
	}
	return edges
}

func (c *fileCtx) constructors(t *graph.Symbol) []graph.Symbol {
	var out []graph.Symbol
	names := c.rules.ctorNames
	if javaLike(c.ff.File.Lang) || c.ff.File.Lang == graph.LangCpp || c.ff.File.Lang == graph.LangCSharp {
		names = []string{t.Name}
	}
	for _, n := range names {
		for _, m := range c.x.members(t, n, 0) {
			if m.Kind == graph.KindConstructor || m.Kind == graph.KindMethod {
				out = append(out, m)
			}
		}
	}
	return out
}

// edgeKinds maps an occurrence role and its target's kind to edge kinds.
func edgeKinds(role graph.Role, target graph.SymbolKind) []graph.EdgeKind {
	var out []graph.EdgeKind
	if role&graph.RoleCall != 0 {
		out = append(out, graph.EdgeCalls)
	}
	if role&graph.RoleWrite != 0 {
		out = append(out, graph.EdgeWrites)
	}
	if role&graph.RoleRead != 0 {
		switch target {
		case graph.KindField, graph.KindVariable, graph.KindConstant, graph.KindProperty, graph.KindEnumMember, graph.KindUnknown:
			out = append(out, graph.EdgeReads)
		default:
			out = append(out, graph.EdgeReferences)
		}
	}
	if role&graph.RoleTypeUse != 0 && role&graph.RoleCall == 0 {
		switch target {
		case graph.KindVariable, graph.KindConstant, graph.KindField, graph.KindProperty:
			// a value where the syntax allows a type: Go's handlers[name](n)
			// parses as the instantiation F[T](x) does; it reads handlers
			if role&graph.RoleRead == 0 {
				out = append(out, graph.EdgeReads)
			}
		default:
			out = append(out, graph.EdgeTypeUse)
		}
	}
	if role&graph.RoleImport != 0 {
		out = append(out, graph.EdgeImports)
	}
	return out
}

// overrides links methods to the methods they override in supertypes.
func (c *fileCtx) overrides() []graph.Edge {
	var out []graph.Edge
	for i := range c.ff.Symbols {
		m := &c.ff.Symbols[i]
		if m.Kind != graph.KindMethod || m.Parent < 0 {
			continue
		}
		t := &c.ff.Symbols[m.Parent]
		if !typeLike(t) {
			continue
		}
		seen := map[graph.SymbolID]bool{}
		var walk func(t *graph.Symbol, depth int)
		walk = func(t *graph.Symbol, depth int) {
			if depth > 4 {
				return
			}
			for _, sup := range c.x.supertypes(t) {
				if seen[sup.ID] {
					continue
				}
				seen[sup.ID] = true
				found := false
				for _, sm := range c.x.members(&sup, m.Name, 0) {
					if sm.Kind.IsCallable() && sm.ID != m.ID {
						out = append(out, graph.Edge{From: m.ID, To: sm.ID, Kind: graph.EdgeOverrides, Confidence: graph.ConfResolved,
							Path: c.ff.File.Path, Range: m.NameRange})
						found = true
					}
				}
				if !found {
					walk(&sup, depth+1)
				}
			}
		}
		walk(t, 0)
	}
	return out
}
