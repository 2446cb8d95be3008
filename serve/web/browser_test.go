package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// The pages in a real browser: Debian's chromium, headless, driven over
// the DevTools protocol (chromedp). CAIRN_TEST_ARTIFACTS names a
// directory for the screenshots (default: the test's temporary
// directory, logged).

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: .ci/deps.sh installs Debian's chromium")
	}
	t.Skip("no chromium on PATH (.ci/deps.sh installs Debian's chromium)")
	return ""
}

// browser is one headless chromium tab that records every request it
// makes and every script error.
type browser struct {
	t        *testing.T
	ctx      context.Context
	base     string
	shots    string
	mu       sync.Mutex
	requests []string
	errors   []string
}

func newBrowser(t *testing.T, base string) *browser {
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true),
		// nothing but the server under test may answer
		chromedp.ProxyServer("127.0.0.1:9")) // (loopback bypasses a proxy)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	b := &browser{t: t, ctx: ctx, base: base, shots: os.Getenv("CAIRN_TEST_ARTIFACTS")}
	if b.shots == "" {
		b.shots = t.TempDir()
	} else if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, e.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// open loads path, waits for sel and saves a screenshot named name.
func (b *browser) open(path, sel, name string) {
	b.t.Helper()
	resp, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(b.base+path))
	if err != nil {
		b.t.Fatalf("%s: %v", path, err)
	}
	if resp.Status != 200 {
		b.t.Fatalf("%s: status %d: %s", path, resp.Status, b.text("body"))
	}
	if err := chromedp.Do(b.ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		b.t.Fatalf("%s: %v", path, err)
	}
	b.shot(name)
}

func (b *browser) shot(name string) {
	b.t.Helper()
	shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), shot, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) count(sel string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+jsString(sel)+`).length`))
	if err != nil {
		b.t.Fatal(err)
	}
	return n
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(function(){var e=document.querySelector(`+jsString(sel)+`);return e?e.textContent:"(none)"})()`))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// textAt is the text of the i-th element matching sel.
func (b *browser) textAt(sel string, i int) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(function(){var e=document.querySelectorAll(%s)[%d];return e?e.textContent:"(none)"})()`, jsString(sel), i)))
	if err != nil {
		b.t.Fatalf("text of %s #%d: %v", sel, i, err)
	}
	return strings.TrimSpace(s)
}

// follow clicks the first element matching sel, waits for the page it
// leads to and returns its address.
func (b *browser) follow(sel string) *url.URL {
	b.t.Helper()
	if b.count(sel) == 0 {
		b.t.Fatalf("nothing to follow: no %s on the page", sel)
	}
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
		b.t.Fatalf("follow %s: %v", sel, err)
	}
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	u, err := url.Parse(loc)
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

func jsString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func TestPagesInChromium(t *testing.T) {
	_, hs := newServer(t, Options{})
	b := newBrowser(t, hs.URL)

	b.open("/", "#map", "home")
	if n := b.count("#map .dir a.symbol"); n == 0 {
		t.Error("the home page lists no central symbols")
	}
	if got := b.text("#problems"); !strings.Contains(got, "server/broken.go") || !strings.Contains(got, "syntax error") {
		t.Errorf("the file that does not parse is not listed: %q", got)
	}
	if got := b.text("#freshness"); got != "fresh" {
		t.Errorf("freshness %q on a just-indexed repository", got)
	}
	// entry points: the two routes main registers, both mains, the job
	// the report daemon schedules
	for _, want := range []struct{ kind, label string }{
		{"http", "GET /tasks/{id}"}, {"http", "POST /tasks/{id}/complete"}, {"main", "server/main.go main"},
		{"main", "server/cmd/reportd/main.go main"}, {"job", "sweep"},
	} {
		sel := `#entries tr.entry[data-kind="` + want.kind + `"]`
		found := false
		for i := range b.count(sel) {
			if b.textAt(sel+" a.entry-label", i) == want.label {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s entry point %q on the home page", want.kind, want.label)
		}
	}
	if u := b.follow(`#entries tr.entry[data-kind="http"] a.entry-label`); u.Path != "/source" || u.Query().Get("path") != "server/handlers.go" ||
		!strings.Contains(b.text(".code .here"), "func (h *Handler)") {
		t.Errorf("the route leads to %s, line %q; want its handler's declaration", u, b.text(".code .here"))
	}
	b.open("/", "#pkggraph svg", "home-packages")
	// the package graph: a node per code directory, an edge per import
	// of the project's own code
	for _, n := range []string{"server", "server/report", "server/cmd/reportd", "web/src", "web/src/ui"} {
		if b.count(`#pkggraph .node[data-node="pkg:`+n+`"]`) != 1 {
			t.Errorf("no package node %s", n)
		}
	}
	for _, e := range [][2]string{{"server/cmd/reportd", "server/report"}, {"web/src/ui", "web/src"}} {
		if b.count(`#pkggraph .edge[data-from="pkg:`+e[0]+`"][data-to="pkg:`+e[1]+`"]`) != 1 {
			t.Errorf("no import edge %s → %s", e[0], e[1])
		}
	}
	if n := b.count("#pkggraph .edge"); n != 2 {
		t.Errorf("%d import edges, want 2", n)
	}
	if u := b.follow(`#pkggraph a.node[data-node="pkg:server/report"]`); u.Path != "/" || u.Query().Get("under") != "server/report" {
		t.Errorf("the package node leads to %s", u)
	}
	if got := b.text("#map .dir h3"); got != "server/report/" {
		t.Errorf("the page of server/report maps %q", got)
	}
	// a symbol page lists the tests that reach it, with their command
	b.open("/symbol?name=Weekly", "#symtests", "symbol-tests")
	if got := b.text("#symtests"); !strings.Contains(got, "TestWeekly") {
		t.Errorf("the tests that reach Weekly: %q", got)
	}
	if got := b.text("pre.cmd"); !strings.Contains(got, "go test") || !strings.Contains(got, "TestWeekly") {
		t.Errorf("the command that runs them: %q", got)
	}

	b.open("/search?q=ArtifactZzqq", "#unresolved", "search-unresolved")
	if got := b.text("#unresolved"); !strings.Contains(got, "no definition is named ArtifactZzqq") {
		t.Errorf("search for a name nothing defines says %q", got)
	}
	b.open("/search?q=the+weekly+count+is+wrong+since+%2317", "#named", "search-named")
	if got := b.text("#named"); !strings.Contains(got, "#17") || !strings.Contains(got, "report: count the week's finished tasks (#17)") ||
		!strings.Contains(got, "server/report/report.go") {
		t.Errorf("the change the query names: %q", got)
	}
	if u := b.follow("#named li a"); u.Path != "/source" {
		t.Errorf("a named change's file leads to %s", u)
	}
	b.open("/search?q=artifact+url+mapper", "#hits", "search")
	if n := b.count("#hits li a.symbol"); n == 0 {
		t.Fatal("search found no definitions")
	}
	name := b.text("#hits li a.symbol")
	if u := b.follow("#hits li a.symbol"); u.Path != "/symbol" {
		t.Errorf("a search hit leads to %s", u)
	}
	if h := b.text("h1"); !strings.Contains(h, name) {
		t.Errorf("the hit %q leads to the page of %q", name, h)
	}

	b.open("/symbol?name=Handler.GetTask", "#callgraph svg", "symbol")
	if n, e := b.count("#callgraph .node"), b.count("#callgraph .edge"); n < 3 || e < 2 {
		t.Errorf("call graph of Handler.GetTask: %d nodes, %d edges; want its callees Store.LoadTask and ToResponse", n, e)
	}
	if n := b.count("#callgraph .edge.precise, #callgraph .edge.resolved, #callgraph .edge.name-only"); n == 0 {
		t.Error("no edge is styled by its confidence")
	}
	if u := b.follow(`#callgraph a.node[data-node^="out:"][data-node*="ToResponse"]`); u.Path != "/symbol" {
		t.Errorf("the ToResponse node leads to %s", u)
	}
	if h := b.text("h1"); !strings.Contains(h, "ToResponse") {
		t.Errorf("the ToResponse node leads to the page of %q", h)
	}

	b.open("/trace?target=Task.ArtifactURL", "#flowgraph svg", "trace")
	gap := b.text(`#gaps li.gap[data-kind="dropped"]`)
	if !strings.Contains(gap, "ToResponse") || !strings.Contains(gap, "server/mapper.go") {
		t.Errorf("the dropped gap is not at the mapper: %q", gap)
	}
	if n, e := b.count("#flowgraph .node"), b.count("#flowgraph .edge"); n < 5 || e < 4 {
		t.Errorf("flow graph: %d nodes, %d edges", n, e)
	}
	if got := b.text("#flowgraph .node.gap.dropped text.label"); got != "ToResponse" {
		t.Errorf("the highlighted gap node is %q, want the mapper ToResponse", got)
	}
	if b.count("#flowgraph .edge.gap") == 0 {
		t.Error("no edge into the gap is highlighted")
	}
	u := b.follow("#flowgraph a.node.gap.dropped")
	if u.Path != "/source" || u.Query().Get("path") != "server/mapper.go" {
		t.Errorf("the gap node leads to %s", u)
	}
	if here := b.text(".code .here"); !strings.Contains(here, "ToResponse") {
		t.Errorf("the gap's source line is %q, want ToResponse's declaration", here)
	}
	b.open(u.RequestURI(), "#symbols", "source")
	if b.count("#symbols a.symbol") == 0 {
		t.Error("the source page links no symbols")
	}
	if got := b.text(".code .here a.def"); got != "→ ToResponse" {
		t.Errorf("the declaration line links %q, want ToResponse", got)
	}
	if u := b.follow(".code .here a.def"); u.Path != "/symbol" || !strings.Contains(b.text("h1"), "ToResponse") {
		t.Errorf("the declaration's link leads to %s (%s)", u, b.text("h1"))
	}

	b.open("/impact?target=ToResponse", "#risk", "impact")
	if b.count(".dependents li") == 0 {
		t.Error("ToResponse has no dependents on the impact page")
	}
	// the dependents as a graph: ToResponse at the right, its caller
	// GetTask joined to it, each node its symbol's page
	if n, e := b.count("#impactgraph .node"), b.count("#impactgraph .edge"); n < 2 || e < 1 {
		t.Errorf("impact graph: %d nodes, %d edges", n, e)
	}
	if b.count(`#impactgraph .node.root[data-node*="ToResponse"]`) != 1 {
		t.Error("the changed symbol is not the graph's root")
	}
	if b.count(`#impactgraph .edge[data-from*="GetTask"][data-to*="ToResponse"]`) != 1 {
		t.Error("no edge from the caller GetTask to ToResponse")
	}
	// depth 2: main registers GetTask (a reference), so main uses GetTask
	if b.count(`#impactgraph .edge[data-from$="main()."][data-to*="GetTask"]`) != 1 {
		t.Errorf("no edge from main to GetTask at depth 2: %d edges", b.count("#impactgraph .edge"))
	}
	if u := b.follow(`#impactgraph a.node[data-node*="GetTask"]`); u.Path != "/symbol" || !strings.Contains(b.text("h1"), "GetTask") {
		t.Errorf("the GetTask node leads to %s (%s)", u, b.text("h1"))
	}

	b.open("/context?task=the+artifact+url+disappears+after+refresh&budget=3000", "#items", "context")
	if b.count("#items tr") < 2 {
		t.Error("the context pack has no items")
	}

	b.open("/runs", "#runs", "runs")
	if u := b.follow(`#runs a[href^="/runs/"]`); u.Path != "/runs/"+runID {
		t.Errorf("the run link leads to %s", u)
	}
	b.open("/runs/"+runID, "#events", "run")
	if b.count("#events tr") < 4 || b.count("#criteria tr") < 2 {
		t.Error("the run page lacks its events or its verification")
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err != nil || u.Scheme == "data" {
			continue
		}
		if h := u.Hostname(); h != "127.0.0.1" {
			t.Errorf("a request left loopback: %s", r)
		}
	}
	if len(b.requests) < 10 {
		t.Errorf("only %d requests recorded: is the recorder listening?", len(b.requests))
	}
	for _, e := range b.errors {
		t.Errorf("script error: %s", e)
	}
	t.Logf("screenshots in %s", b.shots)
}

// TestPagesOnTree loads the pages on a larger real tree: CAIRN_WEB_TREE
// names an indexed repository (CAIRN_WEB_INDEX its index directory when
// not TREE/.cairn; bench/web/run.sh leaves mono1m indexed in
// $CAIRN_BENCH_WORK/web/mono1m.idx), else cairn's own source, committed
// (git archive HEAD) and indexed here — some 600 files (skipped with
// -short). A symbol page whose call graph exceeds MaxNodes must show the
// "N more" node.
func TestPagesOnTree(t *testing.T) {
	tree := os.Getenv("CAIRN_WEB_TREE")
	if tree == "" {
		if testing.Short() {
			t.Skip("-short: the pages on cairn's own source need it indexed (about a minute)")
		}
		tree = ownSource(t)
	}
	eng, err := engine.Open(context.Background(), engine.Options{Root: tree, IndexDir: os.Getenv("CAIRN_WEB_INDEX")})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := New(Options{Engine: eng, RunsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	b := newBrowser(t, hs.URL)
	timed := func(path, sel, name string) {
		start := time.Now()
		b.open(path, sel, "tree-"+name)
		t.Logf("%-60s %6.0f ms (with the screenshot)", path, float64(time.Since(start).Microseconds())/1000)
	}
	timed("/", "#map", "home")
	if n := b.count("#map a.symbol"); n < 10 {
		t.Errorf("the map lists %d central symbols", n)
	}
	if n := b.count("#entries tr.entry"); n == 0 {
		t.Error("no entry points on the home page")
	}
	pn, pe := b.count("#pkggraph .node"), b.count("#pkggraph .edge")
	t.Logf("package graph: %d nodes, %d edges", pn, pe)
	if pn < 2 || pe < 1 || pn > MaxNodes+1 {
		t.Errorf("package graph: %d nodes, %d edges", pn, pe)
	}
	// the first package node opens its directory: the page narrowed to it
	if u := b.follow("#pkggraph a.node"); u.Path != "/" || u.Query().Get("under") == "" {
		t.Errorf("a package node leads to %s", u)
	} else if b.count("#map a.symbol") == 0 || !strings.Contains(b.text("p.under"), u.Query().Get("under")) {
		t.Errorf("the page of %s maps nothing", u)
	}
	b.shot("tree-home-under")
	// the most central function or method, from the API
	code, body := get(t, hs.URL+"/api/repo_map?limit=100")
	var m struct {
		Symbols []struct {
			SymbolID string `json:"symbol_id"`
			Path     string `json:"path"`
			Kind     string `json:"kind"`
		} `json:"symbols"`
	}
	if code != 200 || json.Unmarshal(body, &m) != nil {
		t.Fatalf("repo_map: %d %s", code, body)
	}
	i := slices.IndexFunc(m.Symbols, func(s struct {
		SymbolID string `json:"symbol_id"`
		Path     string `json:"path"`
		Kind     string `json:"kind"`
	}) bool {
		return s.Kind == "function" || s.Kind == "method"
	})
	if i < 0 {
		t.Fatalf("no function among the %d most central symbols", len(m.Symbols))
	}
	top := m.Symbols[i]
	timed("/symbol?depth=2&name="+url.QueryEscape(top.SymbolID), "#callgraph", "symbol")
	n, e := b.count("#callgraph .node"), b.count("#callgraph .edge")
	if n < 2 || e < 1 {
		t.Errorf("the most central symbol's call graph: %d nodes, %d edges", n, e)
	}
	if n > MaxNodes && b.count(`#callgraph .node.more`) == 0 {
		t.Errorf("%d nodes drawn and no \"more\" node", n)
	}
	timed("/search?q=index+generation+snapshot", "#hits", "search")
	if b.count("#hits a.symbol") == 0 {
		t.Error("no search hits")
	}
	timed("/source?path="+url.QueryEscape(top.Path), "#code", "source")
	timed("/impact?all=true&target="+url.QueryEscape(top.SymbolID), "main", "impact")
	if n, e := b.count("#impactgraph .node"), b.count("#impactgraph .edge"); n < 2 || e < 1 {
		t.Errorf("the most central symbol's impact graph: %d nodes, %d edges", n, e)
	}
	if tr := os.Getenv("CAIRN_WEB_TRACE"); tr != "" {
		timed("/trace?target="+url.QueryEscape(tr), "#flowgraph", "trace")
	}
	for _, r := range b.requests {
		if u, err := url.Parse(r); err == nil && u.Scheme != "data" && u.Hostname() != "127.0.0.1" {
			t.Errorf("a request left loopback: %s", r)
		}
	}
}

// TestUnsavedAppInChromium loads the pages on the other fixture app,
// artifact-unsaved: the completion handler sets the URL and never stores
// it, so the trace's gap is not-persisted, at the handler, not at the
// mapper.
func TestUnsavedAppInChromium(t *testing.T) {
	root := filepath.Join(t.TempDir(), "app")
	if err := os.CopyFS(root, os.DirFS("../../testdata/apps/artifact-unsaved")); err != nil {
		t.Fatal(err)
	}
	enginetest.Git(t, root, "init", "-q")
	enginetest.Git(t, root, "add", ".")
	enginetest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixture")
	enginetest.Index(t, root)
	eng, err := engine.Open(context.Background(), engine.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := New(Options{Engine: eng, RunsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	b := newBrowser(t, hs.URL)

	b.open("/", "#map", "unsaved-home")
	if b.count(`#entries tr.entry[data-kind="http"]`) != 2 || b.count(`#entries tr.entry[data-kind="main"]`) != 1 {
		t.Errorf("entry points: %q", b.text("#entries"))
	}
	if n := b.count("#pkggraph .node"); n != 2 {
		t.Errorf("package graph of server/ and web/src/: %d nodes", n)
	}
	b.open("/trace?target=Task.ArtifactURL", "#flowgraph svg", "unsaved-trace")
	gap := b.text(`#gaps li.gap[data-kind="not-persisted"]`)
	if !strings.Contains(gap, "Handler.CompleteTask") || !strings.Contains(gap, "server/handlers.go:31") {
		t.Errorf("the not-persisted gap is not at the completion handler: %q", gap)
	}
	if b.count(`#gaps li.gap[data-kind="dropped"]`) != 0 {
		t.Error("a dropped gap, though the mapper copies the field")
	}
	if got := b.text("#flowgraph .node.gap.not-persisted text.label"); got != "Handler.CompleteTask" {
		t.Errorf("the highlighted gap node is %q, want Handler.CompleteTask", got)
	}
	if u := b.follow("#flowgraph a.node.gap"); u.Path != "/source" || u.Query().Get("path") != "server/handlers.go" {
		t.Errorf("the gap node leads to %s", u)
	}
	b.open("/symbol?name=Handler.CompleteTask", "#callgraph svg", "unsaved-symbol")
	if n, e := b.count("#callgraph .node"), b.count("#callgraph .edge"); n < 2 || e < 1 {
		t.Errorf("call graph of Handler.CompleteTask: %d nodes, %d edges", n, e)
	}
	b.open("/impact?target=Store.CompleteTask", "#risk", "unsaved-impact")
	if b.count(`#impactgraph .edge[data-from*="CompleteTask"]`) == 0 {
		t.Error("the handler is not drawn as a dependent of Store.CompleteTask")
	}
	b.open("/search?q=artifact+url", "#hits", "unsaved-search")
	b.open("/context?task=artifact+url+lost+on+completion&budget=3000", "#items", "unsaved-context")
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		if u, err := url.Parse(r); err == nil && u.Scheme != "data" && u.Hostname() != "127.0.0.1" {
			t.Errorf("a request left loopback: %s", r)
		}
	}
	for _, e := range b.errors {
		t.Errorf("script error: %s", e)
	}
}

// ownSource commits cairn's own source (HEAD of the checkout holding this
// test) into a new repository and indexes it.
func ownSource(t *testing.T) string {
	t.Helper()
	tree := filepath.Join(t.TempDir(), "cairn")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("git", "-C", "../..", "archive", "HEAD")
	untar := exec.Command("tar", "-x", "-C", tree)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Skipf("cairn's source is not a git checkout here (%v): set CAIRN_WEB_TREE", err)
	}
	if err := untar.Wait(); err != nil {
		t.Fatal(err)
	}
	enginetest.Git(t, tree, "init", "-q")
	enginetest.Git(t, tree, "add", ".")
	enginetest.Git(t, tree, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "cairn")
	enginetest.Index(t, tree)
	return tree
}
