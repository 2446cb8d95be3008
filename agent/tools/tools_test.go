package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/agent/internal/agenttest"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/internal/must"
)

// The fixture: testdata/apps/artifact-dropped (the agent's: the response
// mapper drops Task.ArtifactURL) committed in a fresh git repository with
// a mapper test that passes and one that fails until the mapper is fixed,
// and a planted fake secret. A real sandbox workspace of it, a real index
// beside it (RUN/index) and the bubblewrap executor.

const fixtureApp = "../../testdata/apps/artifact-dropped"

const mapperTest = `package main

import "testing"

func TestToResponseKeepsID(t *testing.T) {
	if got := ToResponse(Task{ID: 7, Status: "done"}); got.ID != 7 {
		t.Fatalf("ID = %d", got.ID)
	}
}

func TestToResponseKeepsArtifactURL(t *testing.T) {
	got := ToResponse(Task{ID: 1, Status: "done", ArtifactURL: "https://files.example/a.zip"})
	if got.ArtifactURL != "https://files.example/a.zip" {
		t.Fatalf("ArtifactURL = %q, want the stored one", got.ArtifactURL)
	}
}

func TestSkipped(t *testing.T) { t.Skip("not here") }
`

// fakeSecret is shaped like a GitHub token; read must never show it.
const fakeSecret = "ghp_Zq8rT3vLx0PbN7mK2sW9cY4hJ6dF1gA5eR0u"

const configGo = `package main

// deployToken is planted for the redaction test.
var deployToken = "` + fakeSecret + `"
`

var (
	execOnce sync.Once
	executor sandbox.Executor
	execErr  error
)

// The Go build cache is kept between test processes (a cold one costs
// minutes on a busy machine), as gate/verify's tests keep theirs.
var keptCache = filepath.Join(os.TempDir(), "cairn-tools-test-cache")

func sharedExecutor(t *testing.T) sandbox.Executor {
	t.Helper()
	execOnce.Do(func() {
		goroot, modcache, err := sandbox.GoToolchain(context.Background())
		if err != nil {
			execErr = err
			return
		}
		executor, execErr = sandbox.Select(context.Background(), sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	})
	if execErr != nil {
		t.Fatalf("bubblewrap and go must run for these tests (make test installs bubblewrap): %v", execErr)
	}
	return executor
}

func copyTree(t *testing.T, from, to string) { agenttest.CopyTree(t, from, to) }

func git(t *testing.T, dir string, args ...string) string { return agenttest.Git(t, dir, args...) }

// recorder is the loop's side of the tools, as a test keeps it.
type recorder struct {
	mu       sync.Mutex
	notes    [][2]string
	plan     []string
	finished [2]string
	read     []string
	modified []string
	tested   []testedCall
}

type testedCall struct {
	selector                string
	passed, failed, skipped int
	failing                 []string
}

func (r *recorder) Note(_ context.Context, kind, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, [2]string{kind, text})
	return nil
}
func (r *recorder) Plan(_ context.Context, steps []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.plan = steps
	return nil
}
func (r *recorder) Finish(_ context.Context, rootCause, summary string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = [2]string{rootCause, summary}
	return nil
}
func (r *recorder) Read(p string) { r.mu.Lock(); r.read = append(r.read, p); r.mu.Unlock() }
func (r *recorder) Modified(p string) {
	r.mu.Lock()
	r.modified = append(r.modified, p)
	r.mu.Unlock()
}
func (r *recorder) Tested(sel string, p, f, s int, failing []string) {
	r.mu.Lock()
	r.tested = append(r.tested, testedCall{sel, p, f, s, failing})
	r.mu.Unlock()
}

type fixture struct {
	ws    *sandbox.Workspace
	eng   *engine.Engine
	rec   *recorder
	tools map[string]Tool
	order []string
}

func newFixture(t *testing.T, env Env) *fixture {
	t.Helper()
	ctx := context.Background()
	ex := sharedExecutor(t)
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	copyTree(t, fixtureApp, repo)
	for name, body := range map[string]string{"server/mapper_test.go": mapperTest, "server/config.go": configGo} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	runDir := filepath.Join(root, "run")
	ws, err := sandbox.Create(ctx, repo, "HEAD", runDir, ex.Owner())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Remove(context.Background()) })
	if err := os.MkdirAll(keptCache, 0o755); err != nil {
		t.Fatal(err)
	}
	if o := ex.Owner(); o != nil {
		if err := os.Chown(keptCache, o.UID, o.GID); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(keptCache, filepath.Join(runDir, "cache")); err != nil {
		t.Fatal(err)
	}
	if err := sandbox.PrepareGo(ctx, ws); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(ctx, engine.Options{Root: ws.Dir, IndexDir: filepath.Join(ws.RunDir, "index")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	if _, err := eng.Reindex(ctx, nil, time.Minute); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	env.Workspace, env.Executor, env.Engine, env.Recorder = ws, ex, eng, rec
	ts, err := New(env)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{ws: ws, eng: eng, rec: rec, tools: map[string]Tool{}}
	for _, tl := range ts {
		f.tools[tl.Name()] = tl
		f.order = append(f.order, tl.Name())
	}
	return f
}

// call runs a tool with input; a Go error fails the test.
func (f *fixture) call(t *testing.T, name string, input string) policy.Result {
	t.Helper()
	tl, ok := f.tools[name]
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	res, err := tl.Run(context.Background(), json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s %s: Go error %v", name, input, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its answer.
func (f *fixture) ok(t *testing.T, name, input string, out any) {
	t.Helper()
	res := f.call(t, name, input)
	if res.IsError {
		t.Fatalf("%s %s: error result %s", name, input, res.Content)
	}
	if out != nil {
		if err := json.Unmarshal(res.Content, out); err != nil {
			t.Fatalf("%s answer %s: %v", name, res.Content, err)
		}
	}
}

// refused calls a tool that must answer with an error result and returns
// its text.
func (f *fixture) refused(t *testing.T, name, input string) string {
	t.Helper()
	res := f.call(t, name, input)
	if !res.IsError {
		t.Fatalf("%s %s: not refused: %s", name, input, res.Content)
	}
	var s string
	if json.Unmarshal(res.Content, &s) != nil {
		s = string(res.Content)
	}
	return s
}

// args is the JSON object of the key-value pairs kv (values of types that
// always encode: strings, ints, bools).
func args(kv ...any) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return string(must.JSON(m))
}

func (f *fixture) file(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.ws.Dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustDecode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}
