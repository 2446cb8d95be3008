package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/cairn-dev/cairn/agent/tools"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/serve/lsp"
	"github.com/cairn-dev/cairn/serve/mcp"
	"github.com/cairn-dev/cairn/serve/web"
)

// TestSameAnswerOnEverySurface asks the same questions — definitions,
// references, callers and implementations of every definition marked in
// testdata/surfaces/shop.txtar — through the CLI (--json), the MCP server
// (in process, through the Go SDK's client) and the LSP server (in process,
// over JSON-RPC), and requires the same locations from all three and the
// answers the markers state. The CLI and MCP name a definition by its
// symbol id, the LSP by the position of its name: the same question. Then
// names: a name denoting two definitions is ambiguous with the same
// candidates on the CLI and over MCP, and definitions, references and
// callers (of all definitions) by plain name agree, field for field.
func TestSameAnswerOnEverySurface(t *testing.T) {
	t.Setenv("CAIRN_STORE", "")
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_WORKTREE_CHECK", "0")
	ar, err := txtar.ParseFile("testdata/surfaces/shop.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		writeFile(t, filepath.Join(dir, f.Name), f.Data)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "shop"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if out, code := cli("index", "-q", "--repo", dir); code != 0 {
		t.Fatalf("index: %s", out)
	}
	m := parseMarkers(t, ar)
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	mc := mcpClient(t, eng)
	lc := lspClient(t, dir)
	hc := httpClient(t, eng)

	// symbol ids of the marked definitions, from `cairn symbols`
	var syms struct{ Results []graph.SymbolView }
	cliJSON(t, &syms, "symbols", "--repo", dir)
	ids, qnames := map[string]string{}, map[string]string{}
	for label, d := range m.defs {
		for _, s := range syms.Results {
			if s.Path == d.path && s.StartLine == d.line && s.Name == ident(label) {
				ids[label], qnames[label] = string(s.SymbolID), s.QualifiedName
			}
		}
		if ids[label] == "" {
			t.Fatalf("no symbol for @def(%s) at %s:%d", label, d.path, d.line)
		}
	}
	labels := make([]string, 0, len(m.defs))
	for l := range m.defs {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	checked := map[string]int{}
	for _, label := range labels {
		d, id := m.defs[label], ids[label]
		at := lc.at(dir, d.path, d.line, d.col)
		t.Run(label, func(t *testing.T) {
			// definitions
			var cd struct{ Results []graph.SymbolView }
			cliJSON(t, &cd, "def", "--repo", dir, id)
			var md catalog.DefinitionOut
			mc.call(t, "definition", map[string]any{"symbol": id}, &md)
			var ld []lspLocation
			lc.call(t, "textDocument/definition", at, &ld)
			want := []string{fmt.Sprintf("%s:%d", d.path, d.line)}
			same(t, "definitions", want, symLines(cd.Results), symLines(md.Definitions), lspLines(dir, ld, false))
			var hd catalog.DefinitionOut
			hc.call(t, "definition", map[string]any{"symbol": id}, &hd)
			sameHTTP(t, "definitions", symLines(md.Definitions), symLines(hd.Definitions))

			// references
			var cr struct{ Results []graph.RefView }
			cliJSON(t, &cr, "refs", "--repo", dir, id)
			var mr catalog.ReferencesOut
			mc.call(t, "references", map[string]any{"symbol": id, "limit": 200}, &mr)
			var lr []lspLocation
			lc.call(t, "textDocument/references", map[string]any{"textDocument": at["textDocument"], "position": at["position"],
				"context": map[string]any{"includeDeclaration": false}}, &lr)
			want = m.refs[label]
			if want != nil {
				checked["references"]++
			}
			same(t, "references", want, refLines(cr.Results), refLines(mr.References), lspLines(dir, lr, true))
			var hr catalog.ReferencesOut
			hc.call(t, "references", map[string]any{"symbol": id, "limit": 200}, &hr)
			sameHTTP(t, "references", refLines(mr.References), refLines(hr.References))

			// callers
			var cc struct{ Results []graph.HopView }
			cliJSON(t, &cc, "callers", "--repo", dir, id)
			var mh catalog.HopsOut
			mc.call(t, "callers", map[string]any{"symbol": id, "limit": 200}, &mh)
			var items []lspItem
			lc.call(t, "textDocument/prepareCallHierarchy", at, &items)
			if len(items) != 1 {
				t.Fatalf("prepareCallHierarchy: %d items", len(items))
			}
			var inc []struct {
				From       lspItem    `json:"from"`
				FromRanges []lspRange `json:"fromRanges"`
			}
			lc.call(t, "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &inc)
			var lcallers []string
			sites := map[string][]string{}
			for _, c := range inc {
				k := fmt.Sprintf("%s %s:%d", c.From.Name, relOf(dir, c.From.URI), c.From.SelectionRange.Start.Line+1)
				lcallers = append(lcallers, k)
				for _, r := range c.FromRanges {
					sites[k] = append(sites[k], fmt.Sprintf("%d:%d", r.Start.Line+1, r.Start.Character+1))
				}
			}
			slices.Sort(lcallers)
			var wantCallers []string
			if names, ok := m.callers[label]; ok {
				checked["callers"]++
				wantCallers = []string{}
				for _, n := range names {
					c := m.defs[n]
					wantCallers = append(wantCallers, fmt.Sprintf("%s %s:%d", qnames[n], c.path, c.line))
				}
				slices.Sort(wantCallers)
			}
			same(t, "callers", wantCallers, hopLines(cc.Results), hopLines(mh.Results), lcallers)
			var hh catalog.HopsOut
			hc.call(t, "callers", map[string]any{"symbol": id, "limit": 200}, &hh)
			sameHTTP(t, "callers", hopLines(mh.Results), hopLines(hh.Results))
			// the call site CLI and MCP cite is one the LSP lists, and
			// they count the LSP's sites
			for _, hs := range [][]graph.HopView{cc.Results, mh.Results} {
				for _, h := range hs {
					k := fmt.Sprintf("%s %s:%d", h.Name, h.Definition.Path, h.Definition.StartLine)
					if h.CallSite == nil || !slices.Contains(sites[k], fmt.Sprintf("%d:%d", h.CallSite.StartLine, h.CallSite.Column)) || h.Sites != len(sites[k]) {
						t.Errorf("caller %s: call site %+v (%d sites), LSP ranges %v", k, h.CallSite, h.Sites, sites[k])
					}
				}
			}

			// implementations
			var ci struct{ Results []graph.HopView }
			cliJSON(t, &ci, "implementations", "--repo", dir, id)
			var mi catalog.HopsOut
			mc.call(t, "implementations", map[string]any{"symbol": id, "limit": 200}, &mi)
			var li []lspLocation
			lc.call(t, "textDocument/implementation", at, &li)
			var wantImpls []string
			if names, ok := m.impls[label]; ok {
				checked["implementations"]++
				wantImpls = []string{}
				for _, n := range names {
					wantImpls = append(wantImpls, fmt.Sprintf("%s:%d", m.defs[n].path, m.defs[n].line))
				}
				slices.Sort(wantImpls)
			}
			same(t, "implementations", wantImpls, hopDefLines(ci.Results), hopDefLines(mi.Results), lspLines(dir, li, false))
			var hi catalog.HopsOut
			hc.call(t, "implementations", map[string]any{"symbol": id, "limit": 200}, &hi)
			sameHTTP(t, "implementations", hopDefLines(mi.Results), hopDefLines(hi.Results))
		})
	}
	for _, q := range []string{"references", "callers", "implementations"} {
		if checked[q] < 2 {
			t.Errorf("only %d markers check %s", checked[q], q)
		}
	}

	// Search: the same files and hits, in the one search shape, from the
	// CLI (--json), MCP, the HTTP API and the agent's search tool.
	for _, q := range []string{"server handles a path from the store", "NewMemStore"} {
		var cs struct {
			catalog.Search
			Results []rankedEntry
		}
		cliJSON(t, &cs, "search", "--repo", dir, "--limit", "10", "--files", "10", q)
		// the CLI's results (what the localization scorers read) are the
		// same files, then the same hits, as one list
		if got, want := len(cs.Results), len(cs.Files)+len(cs.Hits); got != want {
			t.Errorf("search --json %q: %d results, want the %d files and hits", q, got, want)
		}
		for i, r := range cs.Results {
			switch {
			case i < len(cs.Files) && (r.Kind != "file" || r.Path != cs.Files[i].Path || r.Score != cs.Files[i].Score):
				t.Errorf("search --json %q: results[%d] = %s %s, want file %s", q, i, r.Kind, r.Path, cs.Files[i].Path)
			case i >= len(cs.Files) && i-len(cs.Files) < len(cs.Hits) && r.SearchHit.Symbol != cs.Hits[i-len(cs.Files)].Symbol:
				t.Errorf("search --json %q: results[%d] = %s, want hit %s", q, i, r.Symbol, cs.Hits[i-len(cs.Files)].Symbol)
			}
		}
		var ms catalog.SearchOut
		mc.decode(t, "search", map[string]any{"query": q, "limit": 10}, &ms)
		var hs catalog.SearchOut
		hc.call(t, "search", map[string]any{"query": q, "limit": 10}, &hs)
		var as catalog.SearchOut
		agentSearch(t, eng, q, &as)
		want := searchLines(cs.Search)
		if len(cs.Hits) == 0 || len(cs.Files) == 0 {
			t.Fatalf("search %q: %d files, %d hits on the CLI", q, len(cs.Files), len(cs.Hits))
		}
		for _, o := range []struct {
			surface string
			got     catalog.Search
		}{{"MCP", ms.Search}, {"HTTP", hs.Search}, {"agent", as.Search}} {
			if d := cmp.Diff(want, searchLines(o.got)); d != "" {
				t.Errorf("search %q: CLI (-) and %s (+) differ:\n%s", q, o.surface, d)
			}
		}
	}

	// By name: Serve denotes two definitions. Callers ask which, with the
	// same candidates on both surfaces; references answer alike.
	var stdout, stderr strings.Builder
	code := run([]string{"callers", "--json", "--repo", dir, "Serve"}, &stdout, &stderr)
	out := stdout.String()
	var cliErr struct {
		Error struct {
			Category   string
			Candidates []graph.SymbolView
		}
	}
	if err := json.Unmarshal([]byte(out), &cliErr); err != nil || code != 2 || cliErr.Error.Category != "ambiguous" {
		t.Fatalf("cli callers Serve: exit %d %v\n%s", code, err, out)
	}
	res := mc.raw(t, "callers", map[string]any{"symbol": "Serve"})
	meta, _ := res.Meta["cairn/error"].(map[string]any)
	b, err := json.Marshal(meta["candidates"])
	if err != nil {
		t.Fatal(err)
	}
	var mcands []graph.SymbolView
	json.Unmarshal(b, &mcands)
	if !res.IsError || meta["category"] != "ambiguous" {
		t.Fatalf("mcp callers Serve: %+v", res)
	}
	if d := cmp.Diff(cliErr.Error.Candidates, mcands); d != "" || len(mcands) != 2 {
		t.Errorf("ambiguous candidates, CLI (-) and MCP (+):\n%s", d)
	}
	for _, name := range []string{"Serve", "NewServer", "Store", "Fetcher", "Get", "start"} {
		var cr struct{ Results []graph.RefView }
		cliJSON(t, &cr, "refs", "--repo", dir, name)
		var mr catalog.ReferencesOut
		mc.call(t, "references", map[string]any{"symbol": name, "limit": 200}, &mr)
		if d := cmp.Diff(cr.Results, mr.References); d != "" {
			t.Errorf("refs %s: CLI (-) and MCP (+) differ:\n%s", name, d)
		}
		var cd struct{ Results []graph.SymbolView }
		cliJSON(t, &cd, "def", "--repo", dir, name)
		var md catalog.DefinitionOut
		mc.call(t, "definition", map[string]any{"symbol": name}, &md)
		if d := cmp.Diff(cd.Results, md.Definitions); d != "" {
			t.Errorf("def %s: CLI (-) and MCP (+) differ:\n%s", name, d)
		}
		var cc struct{ Results []graph.HopView }
		cliJSON(t, &cc, "callers", "--all", "--depth", "2", "--repo", dir, name)
		var mh catalog.HopsOut
		mc.call(t, "callers", map[string]any{"symbol": name, "all": true, "depth": 2, "limit": 200}, &mh)
		if d := cmp.Diff(cc.Results, mh.Results); d != "" {
			t.Errorf("callers --all %s: CLI (-) and MCP (+) differ:\n%s", name, d)
		}
	}
}

// searchLines are a search's files and hits with their scores.
func searchLines(s catalog.Search) []string {
	var out []string
	for _, f := range s.Files {
		out = append(out, fmt.Sprintf("file %s %.4f %s", f.Path, f.Score, f.Why))
	}
	for _, h := range s.Hits {
		out = append(out, fmt.Sprintf("hit %s:%d-%d %s %s %.4f %s", h.Path, h.StartLine, h.EndLine, h.Kind, h.Symbol, h.Score, h.Why))
	}
	return out
}

// agentSearch asks the agent's search tool (agent/tools over the same
// engine).
func agentSearch(t *testing.T, eng *engine.Engine, q string, out any) {
	t.Helper()
	for _, tl := range tools.EngineTools(eng, "") {
		if tl.Name() != "search" {
			continue
		}
		in, err := json.Marshal(map[string]any{"query": q, "limit": 10})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tl.Run(context.Background(), in)
		if err != nil || res.IsError {
			t.Fatalf("agent search %q: %v %s", q, err, res.Content)
		}
		if err := json.Unmarshal(res.Content, out); err != nil {
			t.Fatalf("agent search: %v", err)
		}
		return
	}
	t.Fatal("the agent has no search tool")
}

// same requires the CLI's, MCP's and LSP's answers to agree, and to be
// want when want is not nil.
// sameHTTP: the HTTP API (serve/web, `cairn serve http`) answers as the
// MCP tool does.
func sameHTTP(t *testing.T, what string, mcpAns, httpAns []string) {
	t.Helper()
	if d := cmp.Diff(mcpAns, httpAns, cmp.Transformer("nil", nonNil)); d != "" {
		t.Errorf("%s: MCP (-) and the HTTP API (+) differ:\n%s", what, d)
	}
}

// httpAPI is the JSON API of `cairn serve http` over a real listener.
type httpAPI struct{ base string }

func httpClient(t *testing.T, eng *engine.Engine) *httpAPI {
	t.Helper()
	srv, err := web.New(web.Options{Engine: eng, RunsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &httpAPI{base: hs.URL}
}

// call asks GET /api/TOOL with args as query parameters.
func (h *httpAPI) call(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	q := url.Values{}
	for k, v := range args {
		q.Set(k, fmt.Sprint(v))
	}
	resp, err := http.Get(h.base + "/api/" + tool + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/%s %v: %d %s", tool, args, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("GET /api/%s: %v", tool, err)
	}
}

func same(t *testing.T, what string, want, cliAns, mcpAns, lspAns []string) {
	t.Helper()
	if d := cmp.Diff(cliAns, mcpAns, cmp.Transformer("nil", nonNil)); d != "" {
		t.Errorf("%s: CLI (-) and MCP (+) differ:\n%s", what, d)
	}
	if d := cmp.Diff(cliAns, lspAns, cmp.Transformer("nil", nonNil)); d != "" {
		t.Errorf("%s: CLI (-) and LSP (+) differ:\n%s", what, d)
	}
	if want != nil {
		if d := cmp.Diff(want, cliAns, cmp.Transformer("nil", nonNil)); d != "" {
			t.Errorf("%s: markers (-) and answers (+) differ:\n%s", what, d)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func symLines(vs []graph.SymbolView) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s:%d", v.Path, v.StartLine))
	}
	slices.Sort(out)
	return out
}

func refLines(vs []graph.RefView) []string {
	var out []string
	for _, v := range vs {
		if v.Revision == "" {
			out = append(out, "uncited "+v.Path)
		}
		out = append(out, fmt.Sprintf("%s:%d:%d", v.Path, v.StartLine, v.Column))
	}
	slices.Sort(out)
	return out
}

func hopLines(vs []graph.HopView) []string {
	var out []string
	for _, v := range vs {
		if v.Definition == nil {
			continue // outside the index: the LSP lists no item for it
		}
		out = append(out, fmt.Sprintf("%s %s:%d", v.Name, v.Definition.Path, v.Definition.StartLine))
	}
	slices.Sort(out)
	return out
}

func hopDefLines(vs []graph.HopView) []string {
	var out []string
	for _, v := range vs {
		if v.Definition != nil {
			out = append(out, fmt.Sprintf("%s:%d", v.Definition.Path, v.Definition.StartLine))
		}
	}
	slices.Sort(out)
	return out
}

// ---- markers

type markerDef struct {
	path      string
	line, col int // 1-based; col is the byte column of the name
}

type markers struct {
	defs    map[string]markerDef
	refs    map[string][]string // label → "path:line:col", sorted
	callers map[string][]string // label → caller labels
	impls   map[string][]string
}

var markerRE = regexp.MustCompile(`@(def|ref|callers|impls)\(([^)]*)\)`)

// ident is the name a label stands for: its last dot-separated part.
func ident(label string) string { return label[strings.LastIndexByte(label, '.')+1:] }

// nthWord finds the byte column (1-based) of the nth whole-word use of
// name in the code part of line.
func nthWord(line, name string, n int) int {
	code := line
	if i := strings.Index(code, "//@"); i >= 0 {
		code = code[:i]
	} else if i := strings.Index(code, "#@"); i >= 0 {
		code = code[:i]
	}
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	locs := word.FindAllStringIndex(code, -1)
	if n >= len(locs) {
		return 0
	}
	return locs[n][0] + 1
}

func parseMarkers(t *testing.T, ar *txtar.Archive) *markers {
	t.Helper()
	m := &markers{defs: map[string]markerDef{}, refs: map[string][]string{}, callers: map[string][]string{}, impls: map[string][]string{}}
	for _, f := range ar.Files {
		for i, line := range strings.Split(string(f.Data), "\n") {
			nth := map[string]int{}
			for _, mm := range markerRE.FindAllStringSubmatch(line, -1) {
				args := strings.Split(mm[2], ",")
				for j := range args {
					args[j] = strings.TrimSpace(args[j])
				}
				label := args[0]
				switch mm[1] {
				case "def":
					col := nthWord(line, ident(label), 0)
					if col == 0 {
						t.Fatalf("%s:%d: @def(%s): no %s on the line", f.Name, i+1, label, ident(label))
					}
					m.defs[label] = markerDef{path: f.Name, line: i + 1, col: col}
				case "ref":
					// the name's uses, skipping its definition on this line
					skip := 0
					if d, ok := m.defs[label]; ok && d.path == f.Name && d.line == i+1 {
						skip = 1
					}
					col := nthWord(line, ident(label), nth[label]+skip)
					if col == 0 {
						t.Fatalf("%s:%d: @ref(%s) #%d: no such use on the line", f.Name, i+1, label, nth[label]+1)
					}
					nth[label]++
					m.refs[label] = append(m.refs[label], fmt.Sprintf("%s:%d:%d", f.Name, i+1, col))
				case "callers":
					m.callers[label] = args[1:]
				case "impls":
					m.impls[label] = args[1:]
				}
			}
		}
	}
	for l := range m.refs {
		slices.Sort(m.refs[l])
	}
	for kind, ls := range map[string]map[string][]string{"ref": m.refs, "callers": m.callers, "impls": m.impls} {
		for l, names := range ls {
			if _, ok := m.defs[l]; !ok {
				t.Fatalf("@%s(%s): no @def labels %s", kind, l, l)
			}
			if kind == "ref" {
				continue
			}
			for _, n := range names {
				if _, ok := m.defs[n]; !ok {
					t.Fatalf("@%s(%s) lists %s, which no @def labels", kind, l, n)
				}
			}
		}
	}
	return m
}

// ---- the CLI

func cliJSON(t *testing.T, out any, args ...string) {
	t.Helper()
	s, code := cli(append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("cairn %v: exit %d\n%s", args, code, s)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		t.Fatalf("cairn %v: %v\n%s", args, err, s)
	}
}

// ---- MCP

type mcpSession struct{ cs *sdk.ClientSession }

func mcpClient(t *testing.T, eng *engine.Engine) *mcpSession {
	t.Helper()
	srv := mcp.New(mcp.Options{Engine: eng})
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
	return &mcpSession{cs: cs}
}

func (m *mcpSession) raw(t *testing.T, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := m.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	return res
}

// decode is call for a tool whose answer may continue (search: its
// next_cursor may be set).
func (m *mcpSession) decode(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	res := m.raw(t, tool, args)
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	if res.IsError || json.Unmarshal(b, out) != nil {
		t.Fatalf("%s(%v): %+v", tool, args, res)
	}
}

func (m *mcpSession) call(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	res := m.raw(t, tool, args)
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		t.Fatalf("%s(%v): %s", tool, args, b.String())
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, b)
	}
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	json.Unmarshal(b, &page)
	if page.NextCursor != "" {
		t.Fatalf("%s(%v): more than one page", tool, args)
	}
}

// ---- LSP

type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

type lspLocation struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

type lspItem struct {
	Name           string          `json:"name"`
	URI            string          `json:"uri"`
	SelectionRange lspRange        `json:"selectionRange"`
	Range          lspRange        `json:"range"`
	Kind           int             `json:"kind"`
	Data           json.RawMessage `json:"data"`
}

type lspSession struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func lspClient(t *testing.T, dir string) *lspSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- lsp.Serve(ctx, sr, sw, lsp.Options{Engine: engine.Options{Root: dir}, Debounce: time.Hour})
	}()
	c := &lspSession{w: cw, r: bufio.NewReader(cr)}
	t.Cleanup(func() {
		cancel()
		cw.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the LSP server did not stop")
		}
	})
	var init map[string]any
	c.call(t, "initialize", map[string]any{"rootUri": fileURI(dir, ""), "capabilities": map[string]any{}}, &init)
	return c
}

func fileURI(root, rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, rel))}).String()
}

func relOf(root, uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	real, _ := filepath.EvalSymlinks(root)
	for _, r := range []string{root, real} {
		if rel, err := filepath.Rel(r, filepath.FromSlash(u.Path)); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return uri
}

// at is the position of a definition's name (ASCII lines: byte and UTF-16
// columns agree).
func (c *lspSession) at(root, path string, line, col int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": fileURI(root, path)},
		"position": map[string]any{"line": line - 1, "character": col - 1}}
}

func lspLines(root string, locs []lspLocation, withCol bool) []string {
	var out []string
	for _, l := range locs {
		s := fmt.Sprintf("%s:%d", relOf(root, l.URI), l.Range.Start.Line+1)
		if withCol {
			s += ":" + strconv.Itoa(l.Range.Start.Character+1)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (c *lspSession) call(t *testing.T, method string, params, out any) {
	t.Helper()
	c.id++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		t.Fatal(err)
	}
	for {
		n := 0
		for {
			line, err := c.r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", method, err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(c.r, body); err != nil {
			t.Fatal(err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Fatal(err)
		}
		if msg.ID == nil || *msg.ID != c.id {
			continue // a notification
		}
		if msg.Error != nil {
			t.Fatalf("%s: %s", method, msg.Error.Message)
		}
		if err := json.Unmarshal(msg.Result, out); err != nil {
			t.Fatalf("%s: %v\n%s", method, err, msg.Result)
		}
		return
	}
}
