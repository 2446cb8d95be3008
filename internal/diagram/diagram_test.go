package diagram_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/internal/diagram"
	"github.com/cairn-dev/cairn/internal/diagram/diagramtest"
)

func tools(t *testing.T) {
	if why := diagramtest.Missing(); why != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
}

// hostile are labels of the kind a repository puts in names, keys, routes
// and snippets, which each language's syntax must not see.
var hostile = []string{
	`Writer.Commit`,
	"two\nlines",
	`headers["_AuthToken"] = tok`,
	`map[string]int{"a": 1} | b`,
	`http GET /tasks/{id}`,
	`<b>bold</b> & #1; #quot; end`,
	"`code` (paren) [bracket] {brace}",
	`back\slash "quoted"`,
	`end`,
	`subgraph`,
	`graph`,
	`x --> y; z`,
}

func build() *diagram.Graph {
	g := diagram.New()
	g.LeftToRight = true
	g.Node("root", "root", diagram.Oval)
	for i, l := range hostile {
		key := "k" + l
		g.Node(key, l, diagram.Shape(i%3))
		g.Node(key, "a second declaration is ignored", diagram.Box)
		g.Edge("root", key, l)
		g.Edge("root", key, l) // drawn once
	}
	g.Mark("k" + hostile[0])
	return g
}

// TestRealTools: both outputs parse with the real tools, which read every
// hostile label back as written, every node declared once, every edge once.
func TestRealTools(t *testing.T) {
	tools(t)
	g := build()
	var dot, mm strings.Builder
	if err := g.WriteDot(&dot); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteMermaid(&mm); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		parse func(string) (*diagramtest.Graph, error)
		text  string
	}{{"dot", diagramtest.Dot, dot.String()}, {"mermaid", diagramtest.Mermaid, mm.String()}} {
		got, err := c.parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, c.text)
		}
		labels := map[string]bool{}
		for _, l := range got.Labels {
			labels[l] = true
		}
		wantLabels := map[string]bool{"root": true}
		for _, l := range hostile {
			wantLabels[l] = true
		}
		if d := cmp.Diff(wantLabels, labels); d != "" {
			t.Errorf("%s labels (-want +got):\n%s\n%s", c.name, d, c.text)
		}
		var wantEdges []string
		for _, l := range hostile {
			wantEdges = append(wantEdges, "root -> "+strings.ReplaceAll(l, "\n", " ")+" ["+l+"]")
		}
		if d := cmp.Diff(sorted(wantEdges), got.Edges); d != "" {
			t.Errorf("%s edges (-want +got):\n%s", c.name, d)
		}
	}
}

// TestUndeclared: an edge to a key never declared is an error, not a node
// drawn from its id.
func TestUndeclared(t *testing.T) {
	g := diagram.New()
	g.Node("a", "a", diagram.Box)
	g.Edge("a", "b", "")
	if err := g.WriteDot(&strings.Builder{}); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("WriteDot: %v, want an undeclared-node error", err)
	}
	if err := g.WriteMermaid(&strings.Builder{}); err == nil {
		t.Errorf("WriteMermaid: no error")
	}
}

// TestCheckersRefuse: the checkers refuse what the old trace drew: a node
// declared twice, an edge to a node never declared; and bad syntax.
func TestCheckersRefuse(t *testing.T) {
	tools(t)
	for _, c := range []struct{ name, text string }{
		{"dot twice", "digraph t {\n  n0 [label=\"a\"];\n  n0 [label=\"b\"];\n}\n"},
		{"dot undeclared", "digraph t {\n  n0 [label=\"a\"];\n  n0 -> e1;\n}\n"},
		{"dot syntax", "digraph t {\n  n0 [label=\"a];\n}\n"},
	} {
		if _, err := diagramtest.Dot(c.text); err == nil {
			t.Errorf("%s: accepted\n%s", c.name, c.text)
		}
	}
	mermaid := []struct{ name, text string }{
		{"mermaid twice", "flowchart LR\n  n0[\"a\"]\n  n0[\"b\"]\n"},
		{"mermaid undeclared", "flowchart LR\n  n0[\"a\"]\n  n0 --> e1\n"},
		{"mermaid syntax", "flowchart LR\n  n0[\"a\"b\"]\n"},
		{"mermaid good", "flowchart LR\n  n0[\"a\"]\n  n1[\"b\"]\n  n0 --> n1\n"},
	}
	var texts []string
	for _, c := range mermaid {
		texts = append(texts, c.text)
	}
	_, errs := diagramtest.MermaidAll(texts...)
	for i, c := range mermaid {
		if (errs[i] == nil) != (c.name == "mermaid good") {
			t.Errorf("%s: error %v\n%s", c.name, errs[i], c.text)
		}
	}
}

// TestBounded: a graph past MaxNodes and MaxEdges draws within them, with
// a note counting what it left out, still valid for both tools — Mermaid
// renders at most 500 edges.
func TestBounded(t *testing.T) {
	g := diagram.New()
	n := 3 * diagram.MaxNodes
	for i := 0; i < n; i++ {
		g.Node(fmt.Sprint(i), fmt.Sprint("node ", i, strings.Repeat(" very long name", 20), "\nline 2\nline 3\nline 4"), diagram.Box)
	}
	edges := 0
	for i := 0; i < n; i++ {
		for _, j := range []int{i + 1, i + 2, i + 3} {
			if j < n {
				g.Edge(fmt.Sprint(i), fmt.Sprint(j), strings.Repeat("label ", 30))
				edges++
			}
		}
	}
	g.Mark(fmt.Sprint(n - 1)) // left out: no error
	if nodes, es := g.Omitted(); nodes != n-diagram.MaxNodes || es != edges-diagram.MaxEdges {
		t.Errorf("omitted %d nodes, %d edges; want %d, %d", nodes, es, n-diagram.MaxNodes, edges-diagram.MaxEdges)
	}
	var dot, mm strings.Builder
	if err := g.WriteDot(&dot); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteMermaid(&mm); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(mm.String(), " -->|"); c != diagram.MaxEdges {
		t.Errorf("%d mermaid edges, want %d", c, diagram.MaxEdges)
	}
	if len(mm.String()) > 50000 {
		t.Errorf("mermaid text of %d characters: past mermaid's default maxTextSize", len(mm.String()))
	}
	if !strings.Contains(dot.String(), fmt.Sprintf("%d more nodes and", n-diagram.MaxNodes)) {
		t.Errorf("no note on what was left out:\n%s", dot.String()[len(dot.String())-300:])
	}
	if why := diagramtest.Missing(); why != "" {
		return
	}
	if _, err := diagramtest.Dot(dot.String()); err != nil {
		t.Errorf("dot: %v", err)
	}
	if _, err := diagramtest.Mermaid(mm.String()); err != nil {
		t.Errorf("mermaid: %v", err)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
