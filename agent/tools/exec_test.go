package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
)

// TestRunTests: per-test outcomes of a real go test run in the sandbox —
// one test passes, one fails (the dropped field), one skips — then the
// fix makes the failing one pass.
func TestRunTests(t *testing.T) {
	f := newFixture(t, Env{})
	var out runTestsOut
	res := f.call(t, "run_tests", `{"selector": "./server/..."}`)
	if res.IsError {
		t.Fatalf("run_tests: %s", res.Content)
	}
	mustDecode(t, res.Content, &out)
	if out.Runner != "go" || out.Passed != 1 || out.Failed != 1 || out.Skipped != 1 || !slices.Equal(out.Failing, []string{"TestToResponseKeepsArtifactURL"}) {
		t.Fatalf("run_tests at the base: %s", res.Content)
	}
	fail := out.Tests[slices.IndexFunc(out.Tests, func(x testOut) bool { return x.Name == "TestToResponseKeepsArtifactURL" })]
	if fail.Outcome != "fail" || !strings.Contains(fail.Output, "want the stored one") {
		t.Errorf("the failing test: %+v", fail)
	}
	if !slices.ContainsFunc(out.Tests, func(x testOut) bool { return x.Name == "TestToResponseKeepsID" && x.Outcome == "pass" }) {
		t.Errorf("the passing test is not listed: %+v", out.Tests)
	}
	if len(f.rec.tested) != 1 || f.rec.tested[0].failed != 1 || f.rec.tested[0].passed != 1 {
		t.Errorf("recorded %+v", f.rec.tested)
	}

	f.ok(t, "edit", args("path", "server/mapper.go", "old", "\t\tStatus: t.Status,\n", "new", fixedMapper), nil)
	f.ok(t, "run_tests", `{"selector": "./server -run ^TestToResponse"}`, &out)
	if out.Passed != 2 || out.Failed != 0 || out.Skipped != 0 {
		t.Errorf("after the fix: %+v", out)
	}

	// a package that does not build is reported as such, with its output
	f.ok(t, "create", args("path", "server/broken.go", "content", "package main\n\nvar x int = \"s\"\n"), nil)
	f.ok(t, "run_tests", `{"selector": "./server/..."}`, &out)
	if len(out.BuildFailed) == 0 || !strings.Contains(out.Output, "broken.go") {
		t.Errorf("build failure: %+v", out)
	}
}

func TestShell(t *testing.T) {
	f := newFixture(t, Env{MaxOutput: 200, Limits: sandbox.Limits{Wall: 30 * time.Second}})
	var out shellOut
	f.ok(t, "shell", `{"argv": ["bash", "-c", "seq 1 1000; echo oops >&2; exit 3"]}`, &out)
	if out.ExitCode != 3 || !out.Truncated || out.StdoutBytes != 3893 || !strings.HasSuffix(out.Stdout, "1000\n") ||
		len(out.Stdout) > 150 || out.Stderr != "oops\n" || out.Backend != sandbox.BackendBwrap {
		t.Errorf("shell: %+v", out)
	}
	// a file a command changes is re-indexed and recorded
	f.ok(t, "shell", `{"argv": ["bash", "-c", "printf 'package main\\n\\nfunc FromShell() {}\\n' > server/shell.go"]}`, &out)
	if !slices.Equal(out.Changed, []string{"server/shell.go"}) || !slices.Contains(f.rec.modified, "server/shell.go") {
		t.Errorf("changed %v, modified %v", out.Changed, f.rec.modified)
	}
	var def catalog.DefinitionOut
	f.ok(t, "definition", args("symbol", "FromShell"), &def)
	// the timeout is capped by the limits, and a command killed at it says so
	start := time.Now()
	f.ok(t, "shell", `{"argv": ["sleep", "60"], "timeout_s": 1}`, &out)
	if !out.TimedOut || time.Since(start) > 20*time.Second {
		t.Errorf("timeout: %+v after %v", out, time.Since(start))
	}
	// output with a secret is redacted
	f.ok(t, "shell", `{"argv": ["cat", "server/config.go"]}`, &out)
	if strings.Contains(out.Stdout, fakeSecret) {
		t.Errorf("secret in shell output: %s", out.Stdout)
	}
}

// TestGuarded: the tools' declared effects are what the policy decides
// on — the gate's go test command is allowed, a command outside the
// allowlist and a write to CI configuration are refused before they run.
func TestGuarded(t *testing.T) {
	f := newFixture(t, Env{})
	chk, err := policy.NewChecker(policy.Default(), f.ws.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	var events []policy.Event
	audit := policy.AuditorFunc(func(_ context.Context, e policy.Event) error { events = append(events, e); return nil })
	guard := func(name string) policy.Tool { return policy.Guard(f.tools[name], chk, audit) }
	ctx := context.Background()
	res, err := guard("run_tests").Run(ctx, json.RawMessage(`{"selector": "./server -run ^TestToResponseKeepsID$"}`))
	if err != nil || res.IsError {
		t.Fatalf("guarded run_tests: %v %s", err, res.Content)
	}
	res, err = guard("shell").Run(ctx, json.RawMessage(`{"argv": ["rm", "-rf", "server"]}`))
	if err != nil || !res.IsError || !strings.Contains(string(res.Content), "Refused by policy") {
		t.Fatalf("guarded rm: %v %s", err, res.Content)
	}
	res, err = guard("create").Run(ctx, json.RawMessage(`{"path": ".github/workflows/ci.yml", "content": "on: push\n"}`))
	if err != nil || !res.IsError {
		t.Fatalf("guarded create in .github: %v %s", err, res.Content)
	}
	if _, err := os.Stat(filepath.Join(f.ws.Dir, "server/mapper.go")); err != nil {
		t.Error("the refused command ran")
	}
	if len(events) != 3 || events[0].Decision.Verdict != policy.Allow || events[1].Decision.Verdict != policy.Deny {
		t.Errorf("audit %+v", events)
	}
}

// deafExecutor runs commands without the caller's cancellation (as an
// executor that does not honour it would) and records their wall limits.
type deafExecutor struct {
	sandbox.Executor
	walls []time.Duration
}

func (d *deafExecutor) Run(ctx context.Context, ws *sandbox.Workspace, c sandbox.Command) (*sandbox.Result, error) {
	d.walls = append(d.walls, c.Limit.Wall)
	return d.Executor.Run(context.WithoutCancel(ctx), ws, c)
}

// TestCommandsWithinDeadline: a command's wall limit is at most what is
// left of the caller's deadline (the run's wall-time budget), so it ends
// there even when nothing else stops it; past the deadline no command runs.
func TestCommandsWithinDeadline(t *testing.T) {
	f := newFixture(t, Env{})
	deaf := &deafExecutor{Executor: sharedExecutor(t)}
	ts, err := New(Env{Workspace: f.ws, Executor: deaf, Engine: f.eng, Recorder: f.rec, Limits: sandbox.Limits{Wall: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Tool{}
	for _, tl := range ts {
		byName[tl.Name()] = tl
	}
	for _, c := range []struct{ tool, input string }{
		{"shell", `{"argv": ["sleep", "60"]}`},
		{"run_tests", `{"selector": "./server/..."}`},
	} {
		deaf.walls = nil
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		start := time.Now()
		byName[c.tool].Run(ctx, json.RawMessage(c.input)) // past the deadline the tool may end in a Go error
		cancel()
		if len(deaf.walls) != 1 || deaf.walls[0] <= 0 || deaf.walls[0] > 2*time.Second {
			t.Errorf("%s: command wall limits %v, want one of at most the 2 s left", c.tool, deaf.walls)
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("%s: took %v with 2 s left", c.tool, took)
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	deaf.walls = nil
	if _, err := byName["shell"].Run(ctx, json.RawMessage(`{"argv": ["true"]}`)); err == nil || len(deaf.walls) != 0 {
		t.Errorf("past the deadline: error %v, commands %v", err, deaf.walls)
	}
}
