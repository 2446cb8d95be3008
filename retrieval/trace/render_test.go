package trace_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/diagram/diagramtest"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// TestDiagramsParse: two flows from one entry point (which the first
// renderer declared twice, leaving an edge from an id it never declared)
// and sites, one in a function no flow reaches, draw as graphs the real
// dot and mermaid read with every node declared once and labelled.
func TestDiagramsParse(t *testing.T) {
	if why := diagramtest.Missing(); why != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	entry := trace.Entry{Kind: "http", Label: `POST /tasks/{id}`}
	step := func(name, path string, depth int, via string) trace.Step {
		return trace.Step{Hop: trace.Hop{Func: trace.Func{Name: name, Loc: trace.Loc{Path: path}}, Via: via}, Depth: depth}
	}
	res := &trace.Result{
		Flows: []trace.Flow{
			{Kind: "write", Entry: entry, Steps: []trace.Step{step("Handler.Done", "h.go", 0, "entry"), step("Store.Save", "s.go", 1, "call")}},
			{Kind: "read", Entry: entry, Steps: []trace.Step{step("Handler.Done", "h.go", 0, "entry"), step(`Render"x"`, "r.go", 1, `http GET /t|{id}`)}},
		},
		Writes: []trace.Site{
			{Access: "write", Carrier: `headers["_AuthToken"]`, How: "assignment", Loc: trace.Loc{Path: "s.go", StartLine: 3},
				Func: &trace.Func{Name: "Store.Save", Loc: trace.Loc{Path: "s.go"}}},
			{Access: "write", Carrier: "Task.URL", How: "assignment", Loc: trace.Loc{Path: "x.go", StartLine: 9},
				Func: &trace.Func{Name: "orphan", Loc: trace.Loc{Path: "x.go"}}},
		},
		Reads: []trace.Site{{Access: "read", Carrier: "Task.URL", How: "read", Loc: trace.Loc{Path: "top.go", StartLine: 1}}},
	}
	var dot, mm strings.Builder
	if err := res.WriteDot(&dot); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteMermaid(&mm); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool  string
		parse func(string) (*diagramtest.Graph, error)
		text  string
	}{{"dot", diagramtest.Dot, dot.String()}, {"mermaid", diagramtest.Mermaid, mm.String()}} {
		g, err := c.parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.tool, err, c.text)
		}
		if len(g.Labels) != 8 { // entry, 4 functions, 3 sites
			t.Errorf("%s: %d nodes, want 8\n%s", c.tool, len(g.Labels), c.text)
		}
		for _, want := range []string{
			"http POST /tasks/{id} -> Handler.Done h.go",
			`Handler.Done h.go -> Render"x" r.go [http GET /t|{id}]`,
			`Store.Save s.go -> write headers["_AuthToken"]: assignment s.go:3 [write]`,
			"orphan x.go -> write Task.URL: assignment x.go:9 [write]",
		} {
			if !contains(g.Edges, want) {
				t.Errorf("%s: no edge %q in %q", c.tool, want, g.Edges)
			}
		}
		if !g.HasLabel("read Task.URL: read\ntop.go:1") {
			t.Errorf("%s: the site outside any function is not drawn: %q", c.tool, g.Labels)
		}
	}
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}
