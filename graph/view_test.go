package graph_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/schema"
)

// TestViewsMatchSchema marshals every view, fully populated and minimal,
// and validates it against its definition in schema/views.schema.json; a
// field the Go type writes that the schema does not describe (or one the
// schema requires that the type omits) fails. The fully populated views
// must also write every property the schema lists.
func TestViewsMatchSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema.ViewsJSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("views.json", doc); err != nil {
		t.Fatal(err)
	}
	defs := doc.(map[string]any)["$defs"].(map[string]any)
	cite := graph.CiteFunc(func(path string) (string, bool) { return "0123456789ab", path == "b.go" })
	sym := graph.Symbol{ID: "cairn go . . a/T#M().", Name: "M", Kind: graph.KindMethod, Lang: graph.LangGo, Path: "a.go",
		Range: graph.Range{StartLine: 3, EndLine: 5}, Container: "T", Package: "a", Signature: "func (T) M()",
		Doc: strings.Repeat("é", 300), Exported: true, IsTest: true}
	ref := graph.Reference{Occurrence: graph.Occurrence{Name: "M", Symbol: sym.ID, Role: graph.RoleCall, Qualifier: "t",
		Range: graph.Range{StartLine: 9, EndLine: 9, StartCol: 4}}, Path: "b.go", EnclosingSymbol: &sym, Confidence: graph.ConfResolved}
	edge := graph.Edge{From: sym.ID, To: "cairn go . . a/F().", Kind: graph.EdgeCalls, Confidence: graph.ConfNameOnly, Ambiguous: true,
		Path: "a.go", Range: graph.Range{StartLine: 4, EndLine: 4, StartCol: 1}}
	hop := graph.Hop{Symbol: sym.ID, Def: &sym, Depth: 2, Via: edge, Sites: 3, Next: edge.To, Confidence: graph.ConfNameOnly, Ambiguous: true}
	site := cite.At("a.go", edge.Range)
	full := map[string]any{
		"citation":  site,
		"symbol":    withColumn(graph.ViewSymbol(&sym, cite)),
		"reference": graph.ViewRef(&ref, cite),
		"hop":       graph.ViewHop(&hop, cite),
		"edge":      graph.ViewEdge(&edge, cite),
	}
	minimal := map[string]any{
		"citation":  cite.Lines("b.go", 1, 2),
		"symbol":    graph.ViewSymbol(&graph.Symbol{ID: "x", Name: "x", Path: "x.py", Range: graph.Range{StartLine: 1, EndLine: 1}}, nil),
		"reference": graph.ViewRef(&graph.Reference{Occurrence: graph.Occurrence{Name: "x", Range: graph.Range{StartLine: 1, EndLine: 1}}, Path: "x.py", Confidence: graph.ConfNameOnly}, nil),
		"hop":       graph.ViewHop(&graph.Hop{Symbol: "cairn go . . fmt/Println().", Depth: 1}, nil),
		"edge":      graph.ViewEdge(&edge, nil),
	}
	for name, v := range full {
		sch, err := c.Compile("views.json#/$defs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []any{v, minimal[name]} {
			b, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s %s: %v", name, b, err)
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		json.Unmarshal(b, &got)
		props := defs[name].(map[string]any)["properties"].(map[string]any)
		var missing []string
		for p := range props {
			if _, ok := got[p]; !ok {
				missing = append(missing, p)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("%s: the schema lists %v, the full view does not write them: %s", name, missing, b)
		}
	}
	sv := graph.ViewSymbol(&sym, cite)
	if len(sv.Doc) > graph.MaxDoc+len("…") || !strings.HasSuffix(sv.Doc, "…") || !strings.HasPrefix(sv.Doc, "é") {
		t.Errorf("doc not shortened on a rune boundary: %q", sv.Doc)
	}
	if r := graph.ViewRef(&ref, cite); r.Column != 5 || r.StartLine != 9 || !r.Stale || r.Revision != "0123456789ab" || r.In != "T.M" {
		t.Errorf("reference view %+v", r)
	}
}

// withColumn gives a symbol view a column, so that the full view writes
// every property its schema lists (a symbol's citation names whole lines).
func withColumn(v graph.SymbolView) graph.SymbolView {
	v.Column = 1
	return v
}
