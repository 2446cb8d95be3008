package catalog

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/schema"
)

var update = flag.Bool("update", false, "rewrite bench/serve/TOOLS.md")

// TestSearchMatchesSchema: the one search shape, fully populated and
// minimal, as `cairn search --json` writes it (Search) and as MCP, HTTP
// and the agent do (SearchOut), validates against $defs/search of
// schema/views.schema.json, and a full hit and file write every property
// the schema lists.
func TestSearchMatchesSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema.ViewsJSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("views.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("views.json#/$defs/search")
	if err != nil {
		t.Fatal(err)
	}
	full := ShapeSearch(&engine.SearchResult{
		Files: []engine.SearchFile{{Path: "a.go", Revision: "0123456789ab", Stale: true, Score: 0.123456789, Why: "bm25", Ranks: map[string]int{"bm25": 1},
			Generated: []string{"a_string.go"}}},
		Hits: []engine.SearchHit{{Citation: graph.Citation{Path: "a.go", StartLine: 3, EndLine: 5, Column: 2, Revision: "0123456789ab", Stale: true},
			Symbol: "T.M", SymbolID: "cairn go . . a/T#M().", Kind: "method", Score: 0.5, Why: "bm25, symbol", Ranks: map[string]int{"symbol": 1}}},
		Unresolved: "no definition is named X",
		Named:      []engine.NamedChange{{Ref: "#3", Hash: "abc", Subject: "fix", Files: []string{"a.go"}, MoreFiles: 2}},
	})
	if full.Files[0].Score != 0.1235 {
		t.Errorf("score not rounded: %v", full.Files[0].Score)
	}
	minimal := ShapeSearch(&engine.SearchResult{})
	for _, v := range []any{full, minimal, SearchOut{Search: full, NextCursor: "x"}, SearchOut{Search: minimal}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	defs := doc.(map[string]any)["$defs"].(map[string]any)
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Files, Hits []map[string]any }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for def, m := range map[string]map[string]any{"search_file": got.Files[0], "search_hit": got.Hits[0]} {
		for p := range defs[def].(map[string]any)["properties"].(map[string]any) {
			if _, ok := m[p]; !ok {
				t.Errorf("%s: the full view does not write %s", def, p)
			}
		}
	}
}

// TestToolSizes measures each tool's cost to a model (name, description
// and input schema, in cl100k tokens), requires the lean profile to cost
// at most 55 % of all tools, and keeps bench/serve/TOOLS.md current
// (go test ./engine/catalog -run TestToolSizes -update rewrites it).
func TestToolSizes(t *testing.T) {
	sizes, err := Sizes()
	if err != nil {
		t.Fatal(err)
	}
	lean, full := 0, 0
	for _, s := range sizes {
		if s.Short > s.Full || s.Full < 30 {
			t.Errorf("%s: %d tokens full, %d short", s.Name, s.Full, s.Short)
		}
		if slices.Contains(Lean, s.Name) {
			lean += s.Short
		}
		full += s.Full
	}
	if lean*2 > full+full/10 {
		t.Errorf("the lean profile costs %d tokens of all tools' %d", lean, full)
	}
	text := "# cairn's MCP tools: what each costs a model\n\n" +
		"The tokens (cl100k_base) of each tool's name, description and input schema — what a client\n" +
		"sends its model on every turn for each tool listed. `cairn serve mcp` lists the lean profile\n" +
		"(short descriptions); `--tools all` every tool, `--tools a,b,c` those named (full descriptions).\n" +
		"Written by `go test ./engine/catalog -run TestToolSizes -update`.\n\n" + SizeTable(sizes)
	path := filepath.Join("..", "..", "bench", "serve", "TOOLS.md")
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != text {
		t.Errorf("%s is not current (run with -update): %v\n%s", path, err, text)
	}
}

func TestProfiles(t *testing.T) {
	for _, c := range []struct {
		spec  string
		names []string
		short bool
		bad   bool
	}{
		{"", append(slices.Clone(Lean), "verify_change"), true, false},
		{"lean", append(slices.Clone(Lean), "verify_change"), true, false},
		{"all", nil, false, false},
		{"search, trace", []string{"search", "trace"}, false, false},
		{"search,verify_change", []string{"search", "verify_change"}, false, false},
		{"search,nope", nil, false, true},
		{",", nil, false, true},
	} {
		p, err := ParseProfile(c.spec, "verify_change")
		if (err != nil) != c.bad || err == nil && (!slices.Equal(p.Names, c.names) || p.Short != c.short) {
			t.Errorf("%q: %+v %v", c.spec, p, err)
		}
	}
	for _, n := range Lean {
		tl, ok := Lookup(n)
		if !ok || tl.Info().Short == "" {
			t.Errorf("lean tool %s: none, or no short description", n)
		}
	}
	if !(Profile{}).Has("repo_map") || (Profile{Names: Lean}).Has("repo_map") {
		t.Error("Has")
	}
}
