package web

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
	"github.com/cairn-dev/cairn/serve/mcp"
)

var update = flag.Bool("update", false, "rewrite schema/openapi.json")

const fixtureApp = "../../testdata/apps/artifact-dropped"

// fixtureExtra is added to the artifact-dropped app.
var fixtureExtra = map[string]string{
	"server/report/report.go":      "package report\n\n// Weekly counts the week's finished tasks.\nfunc Weekly() int { return 0 }\n",
	"server/report/report_test.go": "package report\n\nimport \"testing\"\n\nfunc TestWeekly(t *testing.T) { Weekly() }\n",
	"server/cmd/reportd/main.go": `package main

import (
	"example.com/tasks/report"
	"github.com/robfig/cron/v3"
)

func main() {
	c := cron.New()
	c.AddFunc("@weekly", sweep)
	c.Run()
}

func sweep() { report.Weekly() }
`,
	"web/src/ui/status.ts": `import { TaskDTO } from "../api";

export function statusBadge(t: TaskDTO): string {
  return "<span>" + t.status + "</span>";
}
`,
}

// fixture is the artifact-dropped app, committed and indexed once per
// test binary, with one agent run beside it.
var fixture struct {
	once sync.Once
	root string
	runs string
	err  error
}

// fixtureRepo copies the app into a git repository and indexes it.
func fixtureRepo(t *testing.T) (root, runs string) {
	t.Helper()
	fixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-web-*")
		if err != nil {
			fixture.err = err
			return
		}
		fixture.root = filepath.Join(dir, "app")
		if err := os.CopyFS(fixture.root, os.DirFS(fixtureApp)); err != nil {
			fixture.err = err
			return
		}
		// a command with a job, its own package, and a front-end module
		// in a directory of its own: the home page's entry points and
		// package graph have more than one kind and an edge each way of
		// mapping imports (go.mod, a relative specifier)
		for p, c := range fixtureExtra {
			abs := filepath.Join(fixture.root, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				fixture.err = err
				return
			}
			if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
				fixture.err = err
				return
			}
		}
		// a file that does not parse: the home page lists it
		if err := os.WriteFile(filepath.Join(fixture.root, "server", "broken.go"), []byte("package server\n\nfunc broken( {\n"), 0o644); err != nil {
			fixture.err = err
			return
		}
		// two commits, the second citing a pull request: a search that
		// names it lists the change
		who := []string{"-c", "user.name=t", "-c", "user.email=t@example.com"}
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"reset", "-q", "--", "server/report"},
			append(who, "commit", "-q", "-m", "fixture"), {"add", "."},
			append(who, "commit", "-q", "-m", "report: count the week's finished tasks (#17)")} {
			if out, err := exec.Command("git", append([]string{"-C", fixture.root}, args...)...).CombinedOutput(); err != nil {
				fixture.err = err
				t.Log(string(out))
				return
			}
		}
		fixture.runs = filepath.Join(dir, "runs")
		fixture.err = writeRun(fixture.runs)
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	if _, err := os.Stat(filepath.Join(fixture.root, ".cairn")); err != nil {
		enginetest.Index(t, fixture.root)
	}
	return fixture.root, fixture.runs
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.root != "" {
		os.RemoveAll(filepath.Dir(fixture.root))
	}
	os.Exit(code)
}

const runID = "20261202-090000-abcdef"

// writeRun records a small finished agent run: contract, plan, notes,
// events, and an evidence directory.
func writeRun(root string) error {
	r, err := state.Create(root, state.Meta{RunID: runID, Repo: "app", Base: "0123456789abcdef", Model: "scripted"}, []byte("objective: keep the artifact URL after a refresh\n"))
	if err != nil {
		return err
	}
	defer r.Close()
	for _, k := range []string{state.KindRunStarted, state.KindToolCall, state.KindToolResult} {
		if _, err := r.Append(k, 1, map[string]string{"tool": "trace"}); err != nil {
			return err
		}
	}
	st := &state.TaskState{Step: 2, Status: "verified", Objective: "keep the artifact URL after a refresh",
		Plan:      []state.PlanStep{{Text: "trace Task.ArtifactURL", Done: true}, {Text: "fix ToResponse"}},
		Decisions: []state.Note{{Step: 2, Text: "copy the field in the mapper"}}, RootCause: "ToResponse drops ArtifactURL"}
	if err := r.SaveCheckpoint(st); err != nil {
		return err
	}
	ev := filepath.Join(r.Dir, "evidence")
	if err := os.MkdirAll(ev, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"change.patch":  "--- a/server/mapper.go\n+++ b/server/mapper.go\n@@ -1 +1 @@\n-\tStatus: t.Status,\n+\tStatus: t.Status, ArtifactURL: t.ArtifactURL,\n",
		"CHANGE.md":     "# keep the artifact URL\n\n## Cause\n\nToResponse drops ArtifactURL.\n",
		"evidence.json": `{"report":{"verdict":"pass","criteria":[{"id":"c1","kind":"tests","status":"pass","text":"go test ./server"}]}}`,
	}
	for name, c := range files {
		if err := os.WriteFile(filepath.Join(ev, name), []byte(c), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// newServer serves the fixture over a real listener on loopback.
func newServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	root, runs := fixtureRepo(t)
	eng, err := engine.Open(context.Background(), engine.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	opts.Engine = eng
	if opts.RunsDir == "" {
		opts.RunsDir = runs
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs
}

func get(t *testing.T, url string, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func category(t *testing.T, b []byte) string {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("not an error body: %v\n%s", err, b)
	}
	return e.Error.Category
}

// TestAPISameAsMCP: each endpoint answers what an MCP client gets from
// the tool of the same name, through a real MCP session.
func TestAPISameAsMCP(t *testing.T) {
	s, hs := newServer(t, Options{})
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	other := mcp.New(mcp.Options{Engine: s.eng, MaxBytes: 256 << 10})
	if _, err := other.SDK().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		tool  string
		query string
		args  map[string]any
	}{
		{"definition", "symbol=ToResponse", map[string]any{"symbol": "ToResponse"}},
		{"references", "symbol=ToResponse&limit=5", map[string]any{"symbol": "ToResponse", "limit": 5}},
		{"callers", "symbol=ToResponse&depth=2", map[string]any{"symbol": "ToResponse", "depth": 2}},
		{"trace", "target=Task.ArtifactURL", map[string]any{"target": "Task.ArtifactURL"}},
		{"search", "query=artifact+url", map[string]any{"query": "artifact url"}},
		{"read_span", "path=server/mapper.go&start_line=1&end_line=5", map[string]any{"path": "server/mapper.go", "start_line": 1, "end_line": 5}},
		{"entry_points", "kinds=http&kinds=job", map[string]any{"kinds": []string{"http", "job"}}},
		{"package_graph", "depth=2", map[string]any{"depth": 2}},
	} {
		code, body := get(t, hs.URL+"/api/"+c.tool+"?"+c.query)
		if code != 200 {
			t.Fatalf("%s: %d %s", c.tool, code, body)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s over MCP: %v %+v", c.tool, err, res)
		}
		want, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		var a, b any
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s: the API's body: %v", c.tool, err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if d := cmp.Diff(b, a); d != "" {
			t.Errorf("%s: the API differs from the MCP tool (-mcp +api):\n%s", c.tool, d)
		}
	}
	// POST takes the same arguments as JSON
	resp, err := http.Post(hs.URL+"/api/definition", "application/json", strings.NewReader(`{"symbol":"ToResponse"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"server/mapper.go"`)) {
		t.Errorf("POST definition: %d %s", resp.StatusCode, b)
	}
}

// TestAPIErrors: bad arguments get a category and a status, never an
// empty answer.
func TestAPIErrors(t *testing.T) {
	_, hs := newServer(t, Options{})
	for _, c := range []struct {
		path string
		code int
		cat  string
	}{
		{"/api/definition?symbol=NoSuchThing", 404, "not_found"},
		{"/api/callers?symbol=ToResponse&depth=9", 400, "invalid_argument"},
		{"/api/callers?symbol=ToResponse&depth=deep", 400, "invalid_argument"},
		{"/api/definition?symbol=ToResponse&bogus=1", 400, "invalid_argument"},
		{"/api/verify_change?task=x", 404, "not_found"}, // not served: it writes
		{"/api/nope", 404, "not_found"},
		{"/api/paths?from=Handler.GetTask&to=ToResponse&depth=99", 400, "invalid_argument"},
	} {
		code, body := get(t, hs.URL+c.path)
		if code != c.code || category(t, body) != c.cat {
			t.Errorf("%s: %d %s, want %d %s", c.path, code, body, c.code, c.cat)
		}
	}
	// pages show the engine's error with its status
	for _, c := range []struct {
		path string
		code int
		cat  string
	}{
		{"/impact?diff=no-such-revision", 400, "invalid_argument"},
		{"/symbol?name=NoSuchThing", 404, "not_found"},
		{"/symbol", 400, "invalid_argument"},
		{"/source?path=server/nope.go", 404, "not_found"},
		{"/trace?target=Task.ArtifactURL&depth=99", 400, "invalid_argument"},
		{"/context?task=x&budget=1", 400, "invalid_argument"},
	} {
		code, body := get(t, hs.URL+c.path)
		if code != c.code || !bytes.Contains(body, []byte(`data-category="`+c.cat+`"`)) {
			t.Errorf("%s: %d, want %d with a %s error shown", c.path, code, c.code, c.cat)
		}
	}
	if code, body := get(t, hs.URL+"/impact?diff=HEAD"); code != 200 || !bytes.Contains(body, []byte(`id="risk"`)) {
		t.Errorf("/impact?diff=HEAD: %d", code)
	}
	code, body := get(t, hs.URL+"/api/paths?from=Handler.GetTask&to=ToResponse")
	var p engine.PathsResult
	if code != 200 || json.Unmarshal(body, &p) != nil || len(p.Paths) == 0 {
		t.Errorf("paths: %d %s", code, body)
	}
}

// TestAPIArgumentsCapped: a POST body over mcp.MaxArguments is refused
// as invalid_argument, not read whole and run.
func TestAPIArgumentsCapped(t *testing.T) {
	_, hs := newServer(t, Options{})
	for _, n := range []int{mcp.MaxArguments + 1, 3 * mcp.MaxArguments} {
		body := `{"query":"` + strings.Repeat("N", n) + `"}`
		resp, err := http.Post(hs.URL+"/api/search", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || category(t, b) != "invalid_argument" || !bytes.Contains(b, []byte("exceed")) {
			t.Errorf("POST /api/search of %d bytes: %d %.200s, want 400 invalid_argument naming the cap", len(body), resp.StatusCode, b)
		}
	}
}

// TestOpenAPIFile: schema/openapi.json is the served description.
func TestOpenAPIFile(t *testing.T) {
	s, hs := newServer(t, Options{})
	got, err := s.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := "../../schema/openapi.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schema/openapi.json is not what the server describes: go test ./serve/web -run OpenAPIFile -update")
	}
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(want, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(s.toolNames(), "paths") {
		if doc.Paths["/api/"+name] == nil {
			t.Errorf("openapi.json lacks /api/%s", name)
		}
	}
	if _, body := get(t, hs.URL+"/api/openapi.json"); !bytes.Equal(body, want) {
		t.Errorf("/api/openapi.json is not schema/openapi.json")
	}
}

func TestGraphLayout(t *testing.T) {
	g := Graph{Nodes: []Node{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}, Edges: []Edge{{From: "a", To: "b"}, {From: "b", To: "c"}, {From: "a", To: "c"}, {From: "c", To: "a"}, {From: "a", To: "zz"}}}
	l := g.layout()
	x := map[string]int{}
	for _, n := range l.nodes {
		x[n.ID] = n.X
	}
	if !(x["a"] < x["b"] && x["b"] < x["c"]) || x["d"] != x["a"] {
		t.Errorf("columns %v: want a < b < c (longest path; the back edge c→a ignored), d with a", x)
	}
	if len(l.edges) != 4 {
		t.Errorf("%d edges drawn, want 4 (the one to an unknown node left out)", len(l.edges))
	}
	var many Graph
	for i := range 50 {
		many.Nodes = append(many.Nodes, Node{ID: string(rune('A' + i))})
	}
	svg := string(many.SVG())
	if n := strings.Count(svg, `data-node=`); n != MaxNodes+1 {
		t.Errorf("%d nodes drawn, want %d and a more node", n, MaxNodes+1)
	}
	if !strings.Contains(svg, ">10 more<") {
		t.Errorf("no \"10 more\" node")
	}
	// past the cap, nodes fold by directory and column; their edges follow
	big := Graph{Max: 2, Nodes: []Node{{ID: "root", Ranked: true}, {ID: "k", Sub: "a/x.go", Rank: 1, Ranked: true}}}
	for i, sub := range []string{"a/y.go", "a/z.go", "b/y.go", "a/w.go"} {
		id := fmt.Sprintf("h%d", i)
		big.Nodes = append(big.Nodes, Node{ID: id, Sub: sub, Rank: 1, Ranked: true})
		big.Edges = append(big.Edges, Edge{From: "root", To: id})
	}
	nodes, edges, folded := big.collapse()
	var got []string
	for _, n := range nodes[2:] {
		got = append(got, n.ID+" "+n.Label+" "+n.Sub)
	}
	if d := cmp.Diff([]string{"more:a:1:true 3 more a/", "more:b:1:true 1 more b/"}, got); folded != 4 || d != "" {
		t.Errorf("folded %d (want 4):\n%s", folded, d)
	}
	if l := big.layout(); len(l.edges) != 2 || len(edges) != 4 {
		t.Errorf("%d edges drawn (want one to each folded node), %d kept", len(l.edges), len(edges))
	}
	// a fixed column keeps maxColumn nodes
	var col Graph
	for i := range 20 {
		col.Nodes = append(col.Nodes, Node{ID: fmt.Sprint(i), Sub: "p/f.go", Rank: -1, Ranked: true})
	}
	if nodes, _, folded := col.collapse(); len(nodes) != maxColumn+1 || folded != 20-maxColumn || nodes[maxColumn].Label != "8 more" {
		t.Errorf("a column of 20: %d nodes, %d folded", len(nodes), folded)
	}
}

// TestRunPages: the run list and a run's page, and a run id that tries to
// leave the runs directory.
func TestRunPages(t *testing.T) {
	_, hs := newServer(t, Options{})
	code, body := get(t, hs.URL+"/runs")
	if code != 200 || !bytes.Contains(body, []byte(`href="/runs/`+runID+`"`)) {
		t.Errorf("/runs: %d, no link to the run", code)
	}
	code, body = get(t, hs.URL+"/runs/"+runID)
	for _, want := range []string{"keep the artifact URL after a refresh", "fix ToResponse", "copy the field in the mapper", "ArtifactURL: t.ArtifactURL", "go test ./server", "tool_call"} {
		if code != 200 || !bytes.Contains(body, []byte(want)) {
			t.Errorf("/runs/%s: %d, lacks %q", runID, code, want)
		}
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, id := range []string{"..", "nope", "..%2F..%2Fetc", "%2E%2E"} {
		resp, err := c.Get(hs.URL + "/runs/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("/runs/%s answered 200", id)
		}
	}
}

var _ = time.Second

func TestListCut(t *testing.T) {
	first := funcs["first"].(func(int, any) any)
	beyond := funcs["beyond"].(func(int, any) int)
	long := make([]int, 150)
	if got := first(listCap, long).([]int); len(got) != listCap || beyond(listCap, long) != 50 {
		t.Errorf("a list of 150: %d shown, %d beyond", len(got), beyond(listCap, long))
	}
	if got := first(listCap, long[:3]).([]int); len(got) != 3 || beyond(listCap, long[:3]) != 0 {
		t.Errorf("a list of 3 cut")
	}
}
