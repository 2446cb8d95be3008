package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// fixture is a server over the fixture repository with a connected Go SDK
// client (in memory).
type fixture struct {
	root string
	eng  *engine.Engine
	srv  *Server
	cs   *sdk.ClientSession
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	root := enginetest.Repo(t)
	eng, err := engine.Open(context.Background(), engine.Options{Root: root, CheckEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	opts.Engine = eng
	srv := New(opts)
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &fixture{root: root, eng: eng, srv: srv, cs: cs}
}

// call calls a tool and decodes its structured result into out (when the
// call succeeded); it returns the result.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	if !res.IsError && out != nil {
		b := marshal(t, res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v\n%s", tool, err, b)
		}
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wantError checks a tool error's category, in text and in _meta.
func wantError(t *testing.T, res *sdk.CallToolResult, cat engine.Category) map[string]any {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a %s error, got success: %s", cat, text(res))
	}
	if !strings.HasPrefix(text(res), string(cat)+": ") {
		t.Fatalf("error text %q does not start with %s", text(res), cat)
	}
	meta, _ := res.Meta["cairn/error"].(map[string]any)
	if meta == nil || meta["category"] != string(cat) {
		t.Fatalf("_meta = %v, want category %s", res.Meta, cat)
	}
	if res.StructuredContent != nil {
		t.Fatalf("an error carries structured content: %v", res.StructuredContent)
	}
	return meta
}

// TestLeanProfile: the lean profile (the default of `cairn serve mcp`)
// lists its few tools, with their short descriptions, and the others
// are not served.
func TestLeanProfile(t *testing.T) {
	p, err := catalog.ParseProfile("lean")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Tools: p})
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
		ct, _ := catalog.Lookup(tool.Name)
		if tool.Description != ct.Info().Short {
			t.Errorf("%s: description %q, want the short one", tool.Name, tool.Description)
		}
	}
	if want := catalog.Lean; !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("tools %v, want %v", got, want)
	}
	if _, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "repo_map", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("repo_map outside the profile: %v", err)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func TestToolList(t *testing.T) {
	f := newFixture(t, Options{})
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"build_context", "callees", "callers", "definition", "entry_points", "impact", "implementations", "index_status", "package_graph", "read_span", "references", "repo_map", "search", "trace"}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
		if tool.Description == "" || len(tool.Description) > 400 {
			t.Errorf("%s: description of %d characters", tool.Name, len(tool.Description))
		}
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: missing schema", tool.Name)
		}
		// clients (the TypeScript SDK) insist on object schemas
		for _, sc := range []any{tool.InputSchema, tool.OutputSchema} {
			b := marshal(t, sc)
			var top struct {
				Type any `json:"type"`
			}
			if err := json.Unmarshal(b, &top); err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			if top.Type != "object" {
				t.Errorf("%s: schema type %v, want \"object\"", tool.Name, top.Type)
			}
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: not annotated read-only", tool.Name)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	// The analysis tools keep their arguments (impact gained all).
	args := map[string]string{
		"search":        "cursor,limit,query",
		"build_context": "budget,focus,format,full_share,task,tokenizer",
		"read_span":     "end_line,path,revision,start_line",
		"trace":         "depth,target",
		"impact":        "all,depth,diff,kind,path,staged,symbol,working",
		"index_status":  "",
	}
	for _, tool := range res.Tools {
		want, ok := args[tool.Name]
		if !ok {
			continue
		}
		b := marshal(t, tool.InputSchema)
		var sc struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		var names []string
		for n := range sc.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
		if got := strings.Join(names, ","); got != want {
			t.Errorf("%s arguments %s, want %s", tool.Name, got, want)
		}
	}
	// Input schemas are typed: required fields and descriptions.
	for _, tool := range res.Tools {
		if tool.Name == "read_span" {
			b := marshal(t, tool.InputSchema)
			if !strings.Contains(string(b), `"required":["path"]`) || !strings.Contains(string(b), "repository-relative") {
				t.Errorf("read_span input schema: %s", b)
			}
		}
	}
}

func TestDefinitionAndAmbiguity(t *testing.T) {
	f := newFixture(t, Options{})
	var defs catalog.DefinitionOut
	call(t, f.cs, "definition", map[string]any{"symbol": "Serve"}, &defs)
	if defs.Total != 2 || len(defs.Definitions) != 2 {
		t.Fatalf("definition(Serve) = %+v", defs)
	}
	head := strings.TrimSpace(enginetest.Git(t, f.root, "rev-parse", "HEAD"))
	for _, d := range defs.Definitions {
		if d.Path == "" || d.StartLine == 0 || d.EndLine < d.StartLine || !strings.HasPrefix(head, d.Revision) || d.Stale {
			t.Errorf("uncited definition %+v (HEAD %s)", d, head)
		}
	}
	if defs.Index.Generation == 0 || defs.Index.Revision != head || defs.Index.HeadMoved {
		t.Errorf("index view %+v", defs.Index)
	}
	// callers needs one definition: candidates come back.
	meta := wantError(t, call(t, f.cs, "callers", map[string]any{"symbol": "Serve"}, nil), engine.Ambiguous)
	cands, _ := meta["candidates"].([]any)
	if len(cands) != 2 {
		t.Fatalf("candidates = %v", meta)
	}
	for _, c := range cands {
		c := c.(map[string]any)
		if c["revision"] == "" || c["qualified_name"] == nil || c["start_line"] == nil || c["language"] == nil {
			t.Errorf("candidate %v is not a cited symbol view", c)
		}
	}
	id := cands[0].(map[string]any)["symbol_id"].(string)
	var byID catalog.HopsOut
	if res := call(t, f.cs, "callers", map[string]any{"symbol": id}, &byID); res.IsError {
		t.Fatalf("callers by symbol_id: %s", text(res))
	}
	var hops catalog.HopsOut
	call(t, f.cs, "callers", map[string]any{"symbol": "Serve", "path": "server"}, &hops)
	if len(hops.Results) != 1 || hops.Results[0].Name != "Run" || hops.Results[0].CallSite == nil ||
		hops.Results[0].CallSite.Path != "server/server.go" || hops.Results[0].CallSite.StartLine != 22 || hops.Results[0].CallSite.Revision == "" {
		t.Fatalf("callers(server Serve) = %+v", hops.Results)
	}
	call(t, f.cs, "callers", map[string]any{"symbol": "Serve", "all": true}, &hops)
	if len(hops.Roots) != 2 {
		t.Fatalf("all: roots %v", hops.Roots)
	}
	var callees catalog.HopsOut
	call(t, f.cs, "callees", map[string]any{"symbol": "Server.handle", "depth": 2}, &callees)
	found := false
	for _, h := range callees.Results {
		found = found || strings.HasSuffix(h.Name, "Get")
	}
	if !found {
		t.Fatalf("callees(Server.handle) = %+v", callees.Results)
	}
	wantError(t, call(t, f.cs, "definition", map[string]any{"symbol": "NoSuchSymbol"}, nil), engine.NotFound)
	wantError(t, call(t, f.cs, "callers", map[string]any{"symbol": "Run", "depth": 9}, nil), engine.InvalidArgument)
}

func TestReferencesAndImplementations(t *testing.T) {
	f := newFixture(t, Options{})
	var refs catalog.ReferencesOut
	call(t, f.cs, "references", map[string]any{"symbol": "Greet"}, &refs)
	if refs.Total != 1 || refs.References[0].Path != "server/greet.go" || refs.References[0].Role != "call" ||
		refs.References[0].In != "Banner" || refs.References[0].Revision == "" {
		t.Fatalf("references(Greet) = %+v", refs)
	}
	if len(refs.Definitions) != 1 || refs.DefinitionsTotal != 1 || refs.Definitions[0].QualifiedName != "Greet" ||
		refs.Definitions[0].Revision == "" || refs.References[0].Column != 43 || refs.References[0].SymbolID != refs.Definitions[0].SymbolID {
		t.Fatalf("references(Greet): definitions %+v, reference %+v", refs.Definitions, refs.References[0])
	}
	var impls catalog.HopsOut
	call(t, f.cs, "implementations", map[string]any{"symbol": "Store"}, &impls)
	if len(impls.Results) == 0 || impls.Results[0].Name != "MemStore" || impls.Results[0].Definition == nil {
		t.Fatalf("implementations(Store) = %+v", impls.Results)
	}
	call(t, f.cs, "implementations", map[string]any{"symbol": "Fetcher"}, &impls)
	if len(impls.Results) == 0 || impls.Results[0].Name != "HttpFetcher" {
		t.Fatalf("implementations(Fetcher) = %+v", impls.Results)
	}
	wantError(t, call(t, f.cs, "references", map[string]any{"symbol": "Greet", "role": "sing"}, nil), engine.InvalidArgument)
	// A name defined outside the repository: its uses, by spelling.
	call(t, f.cs, "references", map[string]any{"symbol": "Println"}, &refs)
	if len(refs.Definitions) != 0 || refs.Total != 1 || refs.References[0].Path != "server/log.go" || refs.References[0].Confidence != "name-only" {
		t.Fatalf("references(Println) = %+v", refs)
	}
	wantError(t, call(t, f.cs, "references", map[string]any{"symbol": "NeverMentioned"}, nil), engine.NotFound)
}

func TestSearchPagingAndCursors(t *testing.T) {
	f := newFixture(t, Options{})
	var p1, p2 catalog.SearchOut
	call(t, f.cs, "search", map[string]any{"query": "serve requests store", "limit": 1}, &p1)
	if len(p1.Hits) != 1 || p1.NextCursor == "" || len(p1.Files) == 0 || p1.Hits[0].Revision == "" {
		t.Fatalf("page 1 = %+v", p1)
	}
	call(t, f.cs, "search", map[string]any{"query": "serve requests store", "limit": 1, "cursor": p1.NextCursor}, &p2)
	if len(p2.Hits) != 1 || p2.Hits[0].Citation == p1.Hits[0].Citation || len(p2.Files) != 0 {
		t.Fatalf("page 2 = %+v (page 1 %+v)", p2, p1)
	}
	if p1.Unresolved != "" {
		t.Errorf("a question: unresolved %q", p1.Unresolved)
	}
	var un catalog.SearchOut
	call(t, f.cs, "search", map[string]any{"query": "ServeZzqq"}, &un)
	if !strings.HasPrefix(un.Unresolved, "no definition is named ServeZzqq") || len(un.Hits) == 0 {
		t.Errorf("a name nothing defines: unresolved %q, %d hits", un.Unresolved, len(un.Hits))
	}
	wantError(t, call(t, f.cs, "search", map[string]any{"query": "other words", "limit": 1, "cursor": p1.NextCursor}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "search", map[string]any{"query": "x", "cursor": "%%%"}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "search", map[string]any{"query": "  "}, nil), engine.InvalidArgument)
	// Schema validation rejects a wrong type before the tool runs.
	if res := call(t, f.cs, "search", map[string]any{"query": 3}, nil); !res.IsError {
		t.Fatal("a numeric query was accepted")
	}
	// After a re-index the cursor is stale.
	p := filepath.Join(f.root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\nfunc Extra() {}\n")...), 0o644)
	if _, err := f.eng.Reindex(context.Background(), []string{"server/greet.go"}, time.Second); err != nil {
		t.Fatal(err)
	}
	wantError(t, call(t, f.cs, "search", map[string]any{"query": "serve requests store", "limit": 1, "cursor": p1.NextCursor}, nil), engine.StaleIndex)
}

func TestResultCap(t *testing.T) {
	f := newFixture(t, Options{MaxBytes: 700})
	var defs catalog.DefinitionOut
	res := call(t, f.cs, "definition", map[string]any{"symbol": "Serve"}, &defs)
	if len(defs.Definitions) != 1 || defs.NextCursor == "" || defs.Total != 2 {
		t.Fatalf("capped page = %+v", defs)
	}
	if n := len(text(res)); n > 700 {
		t.Fatalf("capped text is %d bytes", n)
	}
	var rest catalog.DefinitionOut
	call(t, f.cs, "definition", map[string]any{"symbol": "Serve", "cursor": defs.NextCursor}, &rest)
	if len(rest.Definitions) != 1 || rest.NextCursor != "" || rest.Definitions[0].SymbolID == defs.Definitions[0].SymbolID {
		t.Fatalf("second page = %+v", rest)
	}
}

func TestReadSpanTool(t *testing.T) {
	f := newFixture(t, Options{})
	var sp catalog.ReadSpanOut
	res := call(t, f.cs, "read_span", map[string]any{"path": "server/server.go", "start_line": 12, "end_line": 14}, &sp)
	if sp.StartLine != 12 || sp.EndLine != 14 || !strings.Contains(sp.Text, "12\tfunc (s *Server) Serve() string") || sp.Revision == "" {
		t.Fatalf("read_span = %+v", sp)
	}
	if !strings.HasPrefix(text(res), "server/server.go:12-14 @ "+sp.Revision) {
		t.Fatalf("text = %q", text(res))
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x"), []byte("x\n"), 0o644)
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(f.root, "link"))
	for _, p := range []string{"../x", "/etc/passwd", ".git/HEAD", "link", "server/../../x"} {
		wantError(t, call(t, f.cs, "read_span", map[string]any{"path": p}, nil), engine.OutsideRepository)
	}
	wantError(t, call(t, f.cs, "read_span", map[string]any{"path": "nope.go"}, nil), engine.NotFound)
	call(t, f.cs, "read_span", map[string]any{"path": "app/settings.py"}, &sp)
	if strings.Contains(sp.Text, "sk-proj") || len(sp.Redactions) != 1 {
		t.Fatalf("secret not redacted: %+v", sp)
	}
}

func TestBuildContextMapStatus(t *testing.T) {
	f := newFixture(t, Options{})
	var pack struct {
		Budget     int `json:"budget"`
		UsedTokens int `json:"used_tokens"`
		Items      []struct {
			Path     string `json:"path"`
			Revision string `json:"revision"`
		} `json:"items"`
	}
	res := call(t, f.cs, "build_context", map[string]any{"task": "how does the server get values from the store", "budget": 1500}, &pack)
	if res.IsError || len(pack.Items) == 0 || pack.UsedTokens > 1500 || pack.Items[0].Revision == "" {
		t.Fatalf("build_context = %s / %+v", text(res), pack)
	}
	if !strings.Contains(text(res), "server/server.go") || strings.HasPrefix(text(res), "{") {
		t.Fatalf("markdown text expected: %.300s", text(res))
	}
	wantError(t, call(t, f.cs, "build_context", map[string]any{"task": "x", "budget": 100000}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "build_context", map[string]any{"task": "x", "budget": 499}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "build_context", map[string]any{"task": "x", "tokenizer": "bogus"}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "build_context", map[string]any{"task": "x", "focus": []string{"../../etc/passwd"}}, nil), engine.OutsideRepository)

	var m catalog.RepoMapOut
	call(t, f.cs, "repo_map", map[string]any{"limit": 3}, &m)
	if len(m.Symbols) == 0 || m.Symbols[0].Rank <= 0 || m.Symbols[0].Revision == "" {
		t.Fatalf("repo_map = %+v", m)
	}
	wantError(t, call(t, f.cs, "repo_map", map[string]any{"under": "../.."}, nil), engine.OutsideRepository)

	var pg catalog.PackageGraphOut
	call(t, f.cs, "package_graph", nil, &pg)
	if len(pg.Packages) < 3 || !slices.ContainsFunc(pg.Imports, func(e engine.PackageEdge) bool { return e.From == "server" && e.To == "store" }) {
		t.Fatalf("package_graph = %+v", pg)
	}
	wantError(t, call(t, f.cs, "package_graph", map[string]any{"under": "../.."}, nil), engine.OutsideRepository)
	var ep catalog.EntryPointsOut
	if res := call(t, f.cs, "entry_points", map[string]any{"kinds": []string{"http", "main"}}, &ep); res.IsError || ep.EntryPoints == nil || ep.Counts == nil {
		t.Fatalf("entry_points = %s", text(res))
	}
	wantError(t, call(t, f.cs, "entry_points", map[string]any{"kinds": []string{"cron"}}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "entry_points", map[string]any{"under": "../.."}, nil), engine.OutsideRepository)

	var st catalog.StatusOut
	call(t, f.cs, "index_status", nil, &st)
	if !st.Fresh || st.Files < 6 || st.StaleFiles != 0 || st.Languages["go"] != 4 {
		t.Fatalf("index_status = %+v", st)
	}
	os.WriteFile(filepath.Join(f.root, "server", "greet.go"), []byte("package server\n"), 0o644)
	call(t, f.cs, "index_status", nil, &st)
	if st.Fresh || st.StaleFiles != 1 || st.StaleExamples[0] != "server/greet.go" || st.Advice == "" {
		t.Fatalf("index_status after an edit = %+v", st)
	}
	var refs catalog.ReferencesOut
	call(t, f.cs, "references", map[string]any{"symbol": "Greet"}, &refs)
	if !refs.References[0].Stale || refs.Index.StaleResults != 1 {
		t.Fatalf("stale reference not marked: %+v", refs)
	}
}

// TestHTTPConcurrentClients drives the streamable HTTP handler with many Go
// SDK clients at once.
func TestHTTPConcurrentClients(t *testing.T) {
	f := newFixture(t, Options{})
	ts := httptest.NewServer(f.srv.Handler())
	defer ts.Close()
	const clients = 16
	var wg sync.WaitGroup
	errs := make(chan string, clients*3)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
			if err != nil {
				errs <- err.Error()
				return
			}
			defer cs.Close()
			for j, tool := range []string{"search", "callers", "build_context"} {
				args := map[string]any{"query": "server store"}
				switch tool {
				case "callers":
					args = map[string]any{"symbol": "Server.Serve"}
				case "build_context":
					args = map[string]any{"task": "server store", "budget": 1000}
				}
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
				if err != nil || res.IsError {
					errs <- tool + ": " + func() string {
						if err != nil {
							return err.Error()
						}
						return text(res)
					}()
				}
				_ = i + j
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestHTTPCancelOnDisconnect: a slow call is cancelled when its client
// goes away.
func TestHTTPCancelOnDisconnect(t *testing.T) {
	started := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	f := newFixture(t, Options{beforeTool: func(ctx context.Context, tool string) error {
		if tool != "repo_map" {
			return nil
		}
		started <- struct{}{}
		select {
		case <-ctx.Done():
			cancelled <- ctx.Err()
			return ctx.Err()
		case <-time.After(20 * time.Second):
			cancelled <- nil
			return nil
		}
	}})
	ts := httptest.NewServer(f.srv.Handler())
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "leaver", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "repo_map", Arguments: map[string]any{}})
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("slow call never started")
	}
	cancel() // the client goes away mid-call
	select {
	case err := <-cancelled:
		if err == nil {
			t.Fatal("the slow call ran on after its client left")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call was not cancelled")
	}
	<-done
	cs.Close()
}

func TestTraceAndImpact(t *testing.T) {
	f := newFixture(t, Options{})
	var tr catalog.TraceOut
	res := call(t, f.cs, "trace", map[string]any{"target": "Server.st"}, &tr)
	if res.IsError || len(tr.Writes) == 0 || len(tr.Reads) == 0 {
		t.Fatalf("trace(Server.st) = %s", text(res))
	}
	if w := tr.Writes[0]; w.Revision == "" || w.StartLine < 1 || tr.Index.Generation == 0 {
		t.Fatalf("trace citations: %+v %+v", w.Loc, tr.Index)
	}
	wantError(t, call(t, f.cs, "trace", map[string]any{"target": "no_such_value_anywhere"}, nil), engine.NotFound)
	wantError(t, call(t, f.cs, "trace", map[string]any{"target": " "}, nil), engine.InvalidArgument)

	var im catalog.ImpactOut
	res = call(t, f.cs, "impact", map[string]any{"symbol": "NewServer"}, &im)
	if res.IsError || len(im.Changed) != 1 || len(im.Dependents) == 0 || im.Dependents[0].QualifiedName != "Run" {
		t.Fatalf("impact(NewServer) = %s", text(res))
	}
	if c := im.Changed[0]; c.Path != "server/server.go" || c.Revision == "" || c.StartLine < 1 || c.SymbolID == "" {
		t.Fatalf("impact citations: %+v", c)
	}
	os.WriteFile(filepath.Join(f.root, "store", "store.go"), []byte(strings.Replace(enginetest.Files["store/store.go"], "return s.m[key]", "return s.m[key] + \"!\"", 1)), 0o644)
	res = call(t, f.cs, "impact", map[string]any{"working": true}, &im)
	if res.IsError || len(im.Changed) == 0 || im.Changed[0].QualifiedName != "MemStore.Get" {
		t.Fatalf("impact(working) = %s", text(res))
	}
	wantError(t, call(t, f.cs, "impact", map[string]any{"symbol": "Run", "working": true}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "impact", map[string]any{"diff": "--output=/tmp/x"}, nil), engine.InvalidArgument)
	wantError(t, call(t, f.cs, "impact", map[string]any{"symbol": "Nope"}, nil), engine.NotFound)
	// git refuses the revision (impact's typed error, not its text)
	wantError(t, call(t, f.cs, "impact", map[string]any{"diff": "no-such-revision"}, nil), engine.InvalidArgument)
	// an ambiguous name lists its definitions, unless all are asked for
	meta := wantError(t, call(t, f.cs, "impact", map[string]any{"symbol": "Serve"}, nil), engine.Ambiguous)
	if c, _ := meta["candidates"].([]any); len(c) != 2 {
		t.Fatalf("impact(Serve) candidates = %v", meta["candidates"])
	}
	res = call(t, f.cs, "impact", map[string]any{"symbol": "Serve", "all": true}, &im)
	if res.IsError || len(im.Changed) != 2 || im.Changed[0].Why != "named" {
		t.Fatalf("impact(Serve, all) = %s", text(res))
	}
}

func TestAnalysisCap(t *testing.T) {
	f := newFixture(t, Options{MaxBytes: 1500})
	var tr catalog.TraceOut
	res := call(t, f.cs, "trace", map[string]any{"target": "Server.st"}, &tr)
	if res.IsError || tr.Omitted["flows"] != 1 || len(tr.Writes) != 1 || len(text(res)) > 1500 {
		t.Fatalf("capped trace: %s", text(res))
	}
}

func TestHTTPRefusesCrossOrigin(t *testing.T) {
	f := newFixture(t, Options{})
	ts := httptest.NewServer(f.srv.Handler())
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin request: %s", resp.Status)
	}
}

// TestSearchNamedChange: a query naming a pull request gets the change it
// names, with its files, on the first page only.
func TestSearchNamedChange(t *testing.T) {
	f := newFixture(t, Options{})
	p := filepath.Join(f.root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\n// Polite greets politely.\nfunc Polite() {}\n")...), 0o644)
	enginetest.Git(t, f.root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "server: greet politely (#23)")
	if _, err := f.eng.Reindex(context.Background(), nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	var p1, p2 catalog.SearchOut
	call(t, f.cs, "search", map[string]any{"query": "greetings are rude since #23", "limit": 1}, &p1)
	if len(p1.Named) != 1 || p1.Named[0].Ref != "#23" || p1.Named[0].Subject != "server: greet politely (#23)" ||
		!slices.Contains(p1.Named[0].Files, "server/greet.go") {
		t.Fatalf("named: %+v", p1.Named)
	}
	call(t, f.cs, "search", map[string]any{"query": "greetings are rude since #23", "limit": 1, "cursor": p1.NextCursor}, &p2)
	if len(p2.Named) != 0 || len(p2.Hits) != 1 {
		t.Fatalf("page 2: %+v", p2)
	}
}

// marshal is json.Marshal(v), failing the test on an error.
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return b
}
