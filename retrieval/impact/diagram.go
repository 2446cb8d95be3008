package impact

import (
	"fmt"
	"io"

	"github.com/cairn-dev/cairn/internal/diagram"
)

// diagram draws an impact analysis: the changed symbols (marked), each
// dependent and each test joined to the changed symbol its dependency runs
// through (Through), the edge labelled with how it is reached and how far
// (the kind of its last edge, the depth, the weakest confidence), and each
// implementation to what it implements.
func (r *Result) diagram() *diagram.Graph {
	g := diagram.New()
	g.Name = "impact"
	place := func(s Symbol) string { return fmt.Sprintf("%s:%d", s.Path, s.StartLine) }
	for _, c := range r.Changed {
		g.Node(c.QualifiedName, c.QualifiedName+"\n"+place(c), diagram.Oval)
		g.Mark(c.QualifiedName)
	}
	through := func(s Symbol) string {
		if s.Through != "" {
			g.Node(s.Through, s.Through, diagram.Oval)
			return s.Through
		}
		if len(r.Changed) == 1 {
			return r.Changed[0].QualifiedName
		}
		return ""
	}
	edge := func(s Symbol) string {
		l := s.Via
		if s.Depth > 0 {
			l += fmt.Sprintf(", depth %d", s.Depth)
		}
		if s.Confidence != "" {
			l += ", " + s.Confidence
		}
		if s.Ambiguous {
			l += ", ambiguous"
		}
		return l
	}
	for _, s := range r.Implementations {
		key := "sym:" + string(s.SymbolID)
		g.Node(key, s.QualifiedName+"\n"+place(s), diagram.Box)
		if to := through(s); to != "" {
			g.Edge(key, to, edge(s))
		}
	}
	for _, s := range r.Dependents {
		key := "sym:" + string(s.SymbolID)
		g.Node(key, s.QualifiedName+"\n"+place(s), diagram.Box)
		if to := through(s); to != "" {
			g.Edge(key, to, edge(s))
		}
	}
	for _, t := range r.Tests {
		key := "test:" + string(t.SymbolID)
		label := "test " + t.QualifiedName + "\n" + place(t.Symbol)
		g.Node(key, label, diagram.Note)
		if to := through(t.Symbol); to != "" {
			g.Edge(key, to, edge(t.Symbol))
		}
	}
	return g
}

// WriteDot renders the analysis as a Graphviz digraph.
func (r *Result) WriteDot(w io.Writer) error { return r.diagram().WriteDot(w) }

// WriteMermaid renders the analysis as a Mermaid flowchart.
func (r *Result) WriteMermaid(w io.Writer) error { return r.diagram().WriteMermaid(w) }
