package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine/enginetest"
)

// TestAnalysisCommands asks search, context, trace, impact and status
// through the command line on the engine's fixture, and checks their exit
// codes: 0 answered, 2 an argument to change (invalid, ambiguous), 3
// nothing found.
func TestAnalysisCommands(t *testing.T) {
	t.Setenv("CAIRN_STORE", "")
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_WORKTREE_CHECK", "0")
	root := enginetest.Repo(t)
	run := func(want int, args ...string) string {
		t.Helper()
		out, code := cli(append(args, "--repo", root)...)
		if code != want {
			t.Fatalf("cairn %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out)
		}
		return out
	}
	decode := func(out string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}

	// impact: an ambiguous name lists its definitions; --all or --path picks
	out := run(2, "impact", "Serve")
	if !strings.Contains(out, "ambiguous") || !strings.Contains(out, "server/server.go") || !strings.Contains(out, "app/serve.py") {
		t.Fatalf("impact Serve does not list the candidates:\n%s", out)
	}
	var im struct {
		Changed []struct {
			SymbolID                 string `json:"symbol_id"`
			QualifiedName, Path, Why string
			Revision                 string
			StartLine                int `json:"start_line"`
		}
	}
	decode(run(0, "impact", "--json", "--all", "Serve"), &im)
	if len(im.Changed) != 2 || im.Changed[0].Why != "named" || im.Changed[0].Revision == "" || im.Changed[0].SymbolID == "" || im.Changed[0].StartLine < 1 {
		t.Fatalf("impact --all Serve = %+v", im)
	}
	decode(run(0, "impact", "--json", "--path", "app", "Serve"), &im)
	if len(im.Changed) != 1 || im.Changed[0].Path != "app/serve.py" {
		t.Fatalf("impact --path app Serve = %+v", im)
	}
	run(3, "impact", "Nope")
	run(2, "impact")
	run(2, "impact", "--diff", "no-such-revision")
	run(2, "impact", "--depth", "99", "Run")

	// trace
	var tr struct {
		Writes []struct {
			Path, Revision string
			StartLine      int `json:"start_line"`
		}
	}
	decode(run(0, "trace", "--json", "Server.st"), &tr)
	if len(tr.Writes) == 0 || tr.Writes[0].Revision == "" || tr.Writes[0].StartLine < 1 {
		t.Fatalf("trace --json Server.st = %+v", tr)
	}
	run(3, "trace", "no_such_value_anywhere")
	run(2, "trace", "--depth", "13", "Server.st")

	// search: ranked files, then cited hits with their ranks (the one
	// search shape: catalog.Search)
	type entry struct {
		Path, Kind, Revision string
		StartLine            int `json:"start_line"`
		Ranks                map[string]int
	}
	var sr struct {
		Files, Hits, Results []entry
	}
	decode(run(0, "search", "--json", "serve requests store"), &sr)
	// results: the files, then the hits, as one list (rankedList)
	if len(sr.Files) == 0 || len(sr.Hits) == 0 || sr.Files[0].StartLine != 0 || sr.Files[0].Revision == "" ||
		len(sr.Results) != len(sr.Files)+len(sr.Hits) || sr.Results[0].Path != sr.Files[0].Path || sr.Results[len(sr.Files)].StartLine != sr.Hits[0].StartLine {
		t.Fatalf("search --json = %+v", sr)
	}
	last := sr.Hits[len(sr.Hits)-1]
	if last.StartLine < 1 || last.Revision == "" || len(last.Ranks) == 0 {
		t.Fatalf("search hit not cited: %+v", last)
	}
	run(2, "search", " ")
	run(2, "search", "--only", "bogus", "x")
	// a name nothing defines: the hits hold its parts, and the answer says so
	var un struct {
		Unresolved string
		Hits       []any
	}
	decode(run(0, "search", "--json", "ServeZzqq"), &un)
	if !strings.HasPrefix(un.Unresolved, "no definition is named ServeZzqq") || len(un.Hits) == 0 {
		t.Errorf("search --json ServeZzqq: unresolved %q, %d hits", un.Unresolved, len(un.Hits))
	}
	if out := run(0, "search", "ServeZzqq"); !strings.HasPrefix(out, "note: no definition is named ServeZzqq") {
		t.Errorf("search ServeZzqq does not say no definition has the name:\n%s", out)
	}
	if out := run(0, "search", "Serve"); strings.Contains(out, "note:") {
		t.Errorf("search Serve: a note for a defined name:\n%s", out)
	}

	// context: the engine checks the budget and the tokenizer
	var pack struct {
		Budget     int `json:"budget"`
		UsedTokens int `json:"used_tokens"`
		Items      []any
	}
	decode(run(0, "context", "--json", "--budget", "1500", "how does the server get values from the store"), &pack)
	if pack.Budget != 1500 || pack.UsedTokens > 1500 || len(pack.Items) == 0 {
		t.Fatalf("context = %+v", pack)
	}
	run(2, "context", "--budget", "100", "x")
	run(2, "context", "--tokenizer", "bogus", "x")
	run(2, "context", "--focus", "../../etc/passwd", "x")

	// status
	var st struct {
		Files      int
		StaleFiles int `json:"stale_files"`
		Fresh      bool
		Problems   []any
		Index      struct{ Generation int64 }
	}
	decode(run(0, "status", "--json"), &st)
	if st.Files < 6 || !st.Fresh || st.StaleFiles != 0 || st.Problems == nil || st.Index.Generation == 0 {
		t.Fatalf("status --json = %+v", st)
	}
	os.WriteFile(filepath.Join(root, "server", "greet.go"), []byte("package server\n"), 0o644)
	decode(run(0, "status", "--json"), &st)
	if st.Fresh || st.StaleFiles != 1 {
		t.Fatalf("status --json after an edit = %+v", st)
	}
	if out := run(0, "status"); !strings.Contains(out, "stale: 1 indexed file changed since (server/greet.go)") {
		t.Fatalf("status text does not state the stale file:\n%s", out)
	}
}
