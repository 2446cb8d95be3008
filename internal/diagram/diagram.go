package diagram

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Shape is how a node is drawn.
type Shape int

const (
	// Box is a function, a method, a type: the default.
	Box Shape = iota
	// Oval is an entry point or a root the graph starts from.
	Oval
	// Note is a place in the code: a write or read site, a test.
	Note
)

// MaxNodes and MaxEdges bound a drawing: Mermaid refuses to render more
// than 500 edges or 50,000 characters by default, and neither tool lays out
// thousands of nodes legibly. Past them, nodes and edges are counted, not
// drawn, and one note node says how many were left out.
const (
	MaxNodes = 120
	MaxEdges = 240
)

// Graph is a directed graph under construction.
type Graph struct {
	// Name is the DOT graph's name, an identifier (default "cairn").
	Name string
	// LeftToRight lays the graph out from left to right (else top down).
	LeftToRight bool
	nodes       []node
	index       map[string]int
	edges       []edge
	seen        map[edge]bool
	err         error
	// left out past MaxNodes and MaxEdges
	omitted      map[string]bool
	omittedEdges int
}

type node struct {
	id, label string
	shape     Shape
	marked    bool
}

type edge struct{ from, to, label string }

// New returns an empty graph.
func New() *Graph {
	return &Graph{index: map[string]int{}, seen: map[edge]bool{}, omitted: map[string]bool{}}
}

// Node declares the node of key with a label (lines separated by "\n")
// and a shape; a key declared before keeps its first label and shape.
func (g *Graph) Node(key, label string, shape Shape) {
	if _, ok := g.index[key]; ok || g.omitted[key] {
		return
	}
	if len(g.nodes) >= MaxNodes {
		g.omitted[key] = true
		return
	}
	g.index[key] = len(g.nodes)
	g.nodes = append(g.nodes, node{id: fmt.Sprintf("n%d", len(g.nodes)), label: clip(label), shape: shape})
}

// MaxLine is the longest line of a label drawn, in characters; with
// MaxNodes it keeps a drawing within Mermaid's 50,000 characters.
const MaxLine = 60

// MaxEdgeLabel is the longest edge label drawn, in characters.
const MaxEdgeLabel = 40

// clip shortens each line of a label to MaxLine characters, marking the cut,
// and keeps at most three lines.
func clip(label string) string { return clipTo(label, MaxLine) }

func clipTo(label string, max int) string {
	lines := strings.Split(label, "\n")
	if len(lines) > 3 {
		lines = append(lines[:2], "…")
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > max {
			lines[i] = string(r[:max-1]) + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// Has says whether key is declared (drawn or left out past MaxNodes).
func (g *Graph) Has(key string) bool {
	_, ok := g.index[key]
	return ok || g.omitted[key]
}

// Mark highlights a declared node (a gap, a changed symbol).
func (g *Graph) Mark(key string) {
	if i, ok := g.index[key]; ok {
		g.nodes[i].marked = true
	} else if !g.omitted[key] && g.err == nil {
		g.err = fmt.Errorf("diagram: mark of undeclared node %q", key)
	}
}

// Edge draws an edge between two declared nodes, once per label.
func (g *Graph) Edge(from, to, label string) {
	if g.omitted[from] || g.omitted[to] {
		g.omittedEdges++
		return
	}
	f, ok1 := g.index[from]
	t, ok2 := g.index[to]
	if !ok1 || !ok2 {
		if g.err == nil {
			g.err = fmt.Errorf("diagram: edge %q -> %q has an undeclared end", from, to)
		}
		return
	}
	e := edge{g.nodes[f].id, g.nodes[t].id, clipTo(label, MaxEdgeLabel)}
	switch {
	case g.seen[e]:
	case len(g.edges) >= MaxEdges:
		g.omittedEdges++
	default:
		g.seen[e] = true
		g.edges = append(g.edges, e)
	}
}

// Omitted is the number of nodes and of edges left out past MaxNodes and
// MaxEdges.
func (g *Graph) Omitted() (nodes, edges int) { return len(g.omitted), g.omittedEdges }

// drawn is the nodes to write: those declared, and the note on what was
// left out.
func (g *Graph) drawn() []node {
	nodes, edges := g.Omitted()
	if nodes == 0 && edges == 0 {
		return g.nodes
	}
	note := fmt.Sprintf("… %d more nodes and %d more edges not drawn\n(--json lists everything)", nodes, edges)
	return append(g.nodes[:len(g.nodes):len(g.nodes)], node{id: fmt.Sprintf("n%d", len(g.nodes)), label: note, shape: Note})
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// WriteDot writes the graph as a Graphviz digraph.
func (g *Graph) WriteDot(w io.Writer) error {
	if g.err != nil {
		return g.err
	}
	ew := &errWriter{w: w}
	name := g.Name
	if !identifier.MatchString(name) {
		name = "cairn"
	}
	ew.printf("digraph %s {\n", name)
	if g.LeftToRight {
		ew.printf("  rankdir=LR;\n")
	}
	ew.printf("  node [shape=box, fontname=\"monospace\"];\n")
	for _, n := range g.drawn() {
		attrs := "label=" + dotQuote(n.label)
		switch n.shape {
		case Oval:
			attrs += ", shape=oval"
		case Note:
			attrs += ", shape=note"
		}
		if n.marked {
			attrs += ", color=red, penwidth=3"
		}
		ew.printf("  %s [%s];\n", n.id, attrs)
	}
	for _, e := range g.edges {
		if e.label != "" {
			ew.printf("  %s -> %s [label=%s];\n", e.from, e.to, dotQuote(e.label))
		} else {
			ew.printf("  %s -> %s;\n", e.from, e.to)
		}
	}
	ew.printf("}\n")
	return ew.err
}

// WriteMermaid writes the graph as a Mermaid flowchart.
func (g *Graph) WriteMermaid(w io.Writer) error {
	if g.err != nil {
		return g.err
	}
	ew := &errWriter{w: w}
	dir := "TD"
	if g.LeftToRight {
		dir = "LR"
	}
	ew.printf("flowchart %s\n", dir)
	for _, n := range g.drawn() {
		open, close := "[", "]"
		switch n.shape {
		case Oval:
			open, close = "([", "])"
		case Note:
			open, close = "[/", "/]"
		}
		ew.printf("  %s%s\"%s\"%s\n", n.id, open, mermaidText(n.label), close)
	}
	for _, e := range g.edges {
		if e.label != "" {
			ew.printf("  %s -->|\"%s\"| %s\n", e.from, mermaidText(e.label), e.to)
		} else {
			ew.printf("  %s --> %s\n", e.from, e.to)
		}
	}
	for _, n := range g.nodes {
		if n.marked {
			ew.printf("  style %s stroke:#d00,stroke-width:3px\n", n.id)
		}
	}
	return ew.err
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z_0-9]*$`)

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)

func dotQuote(s string) string { return `"` + dotEscaper.Replace(s) + `"` }

var mermaidEscaper = strings.NewReplacer(
	`"`, "#quot;", "#", "#35;", "<", "#lt;", ">", "#gt;", "`", "#96;", "|", "#124;",
	"\r\n", "<br/>", "\n", "<br/>", "\r", "<br/>")

func mermaidText(s string) string { return mermaidEscaper.Replace(s) }

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
