package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/must"
	"github.com/cairn-dev/cairn/retrieval/impact"
)

// TestEngineTools: the engine tools answer about the fixture from the
// workspace's own index, and see an edit as soon as the edit answers.
func TestEngineTools(t *testing.T) {
	f := newFixture(t, Env{})

	var def catalog.DefinitionOut
	f.ok(t, "definition", args("symbol", "ToResponse"), &def)
	if def.Total != 1 || def.Definitions[0].Path != "server/mapper.go" || def.Definitions[0].StartLine != 4 {
		t.Fatalf("definition of ToResponse: %+v", def)
	}

	var tr catalog.TraceOut
	f.ok(t, "trace", args("target", "Task.ArtifactURL"), &tr)
	if len(tr.Gaps) == 0 || tr.Gaps[0].Kind != "dropped" || tr.Gaps[0].Path != "server/mapper.go" || tr.Gaps[0].Func.Name != "ToResponse" {
		t.Fatalf("trace shows no dropped gap at the mapper: %+v", tr.Gaps)
	}
	if len(tr.Writes) == 0 || len(tr.Reads) == 0 {
		t.Errorf("trace: %d writes, %d reads", len(tr.Writes), len(tr.Reads))
	}

	var callers catalog.HopsOut
	f.ok(t, "callers", args("symbol", "ToResponse"), &callers)
	if !slices.ContainsFunc(callers.Results, func(h graph.HopView) bool { return h.Definition != nil && strings.Contains(h.Name, "GetTask") }) {
		t.Errorf("callers of ToResponse: %s", must.JSON(callers))
	}
	var callees catalog.HopsOut
	f.ok(t, "callees", args("symbol", "Handler.GetTask", "depth", 2), &callees)
	if len(callees.Results) == 0 {
		t.Errorf("callees of Handler.GetTask: none")
	}

	var refs catalog.ReferencesOut
	f.ok(t, "references", args("symbol", "ToResponse", "role", "call"), &refs)
	if refs.Total == 0 {
		t.Errorf("references to ToResponse: none")
	}

	var search catalog.SearchOut
	f.ok(t, "search", args("query", "response mapper artifact url", "limit", 5), &search)
	if len(search.Hits) == 0 || len(search.Hits) > 5 {
		t.Errorf("search: %d hits", len(search.Hits))
	}

	var imp catalog.ImpactOut
	f.ok(t, "impact", args("symbol", "ToResponse"), &imp)
	if !slices.ContainsFunc(imp.Tests, func(x impact.Test) bool { return x.Name == "TestToResponseKeepsID" }) {
		t.Errorf("impact of ToResponse lists no tests: %s", must.JSON(imp.Result))
	}

	res := f.call(t, "build_context", args("task", "the artifact link disappears after a refresh", "budget", 2000, "format", "json"))
	var pack struct {
		Items []struct {
			Path  string `json:"path"`
			Trust string `json:"trust"`
		} `json:"items"`
	}
	if res.IsError || json.Unmarshal(res.Content, &pack) != nil || len(pack.Items) == 0 {
		t.Errorf("context: %.300s", res.Content)
	}

	// model-fixable engine errors are error results naming the category
	if msg := f.refused(t, "definition", args("symbol", "NoSuchThing")); !strings.HasPrefix(msg, "not_found") {
		t.Errorf("unknown name: %s", msg)
	}
	if msg := f.refused(t, "callers", args("symbol", "CompleteTask")); !strings.HasPrefix(msg, "ambiguous") || !strings.Contains(msg, "symbol_id=") {
		t.Errorf("ambiguous name: %s", msg)
	}

	// the edit is seen at once: the mapper maps the field, the gap is gone
	f.ok(t, "edit", args("path", "server/mapper.go", "old", "\t\tStatus: t.Status,\n", "new", fixedMapper), nil)
	f.ok(t, "trace", args("target", "Task.ArtifactURL"), &tr)
	for _, g := range tr.Gaps {
		if g.Kind == "dropped" && g.Path == "server/mapper.go" {
			t.Errorf("after the fix the trace still shows the mapper's gap: %+v", g)
		}
	}
	f.ok(t, "create", args("path", "server/extra.go", "content", "package main\n\nfunc BrandNew() TaskResponse { return ToResponse(Task{}) }\n"), nil)
	f.ok(t, "definition", args("symbol", "BrandNew"), &def)
	if def.Total != 1 || def.Definitions[0].Path != "server/extra.go" {
		t.Errorf("a created file's definition: %+v", def)
	}
	// The workspace's files belong to the sandbox's user when the harness
	// is root; the engine's git still reads it (sandbox.Create trusts it).
	f.ok(t, "impact", `{"working": true}`, &imp)
	if !slices.ContainsFunc(imp.Changed, func(s impact.Symbol) bool { return s.Name == "ToResponse" }) {
		t.Errorf("impact of the diff: changed %s", must.JSON(imp.Changed))
	}
	// a revert is seen too
	f.ok(t, "revert", args("path", "server/extra.go"), nil)
	if msg := f.refused(t, "definition", args("symbol", "BrandNew")); !strings.HasPrefix(msg, "not_found") {
		t.Errorf("after revert: %s", msg)
	}
}
