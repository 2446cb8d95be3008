package verify

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// The node fixtures: testdata/node/jest (CommonJS, a jest.config.js) and
// testdata/node/vitest (TypeScript, vitest only in devDependencies), each
// with a passing, a failing, a skipped/todo, a .only, a syntax-error, a
// failing-afterAll and a flaky test file, and a package-lock.json pinning the runner. Their
// node_modules (.ci/deps.sh runs npm ci there) warm the npm cache; the
// tests install into the workspaces the way the gate does.

// nodeRepo is a fresh repository of a node fixture, node_modules left out
// (and ignored, as a project ignores it).
func nodeRepo(t *testing.T, fixture string) string {
	t.Helper()
	from := filepath.Join("testdata", "node", fixture)
	repo := filepath.Join(t.TempDir(), "repo")
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		name := d.Name()
		if d.IsDir() && name == "node_modules" {
			return filepath.SkipDir
		}
		if strings.HasPrefix(name, ".cairn-") || name == "flaky.marker" {
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(repo, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(repo, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, repo, ".gitignore", "node_modules/\n")
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	return repo
}

// nodeRunnerOn is a workspace of the fixture with its dependencies
// installed, and the runner the workspace selects for selector.
func nodeRunnerOn(t *testing.T, fixture, selector string) (*sandbox.Workspace, Runner, sandbox.Executor) {
	t.Helper()
	dir, ex := shared(t)
	repo := nodeRepo(t, fixture)
	ws, err := sandbox.Create(context.Background(), repo, "HEAD", filepath.Join(t.TempDir(), "run"), ex.Owner())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Remove(context.Background()) })
	r, err := runnerFor(ws, selector)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.(preparer).Prepare(context.Background(), ws, filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	return ws, r, ex
}

// runNode plans, runs under bubblewrap and parses one command.
func runNode(t *testing.T, ws *sandbox.Workspace, r Runner, ex sandbox.Executor, selector string, only []TestID) (*Run, *sandbox.Result) {
	t.Helper()
	cmd, err := r.Plan(ws, selector, only)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Run(context.Background(), ws, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != sandbox.BackendBwrap {
		t.Fatalf("backend %s", res.Backend)
	}
	run, err := r.Parse(ws, res)
	if err != nil {
		t.Fatalf("%v\nstdout: %s\nstderr: %s", err, res.Stdout, res.Stderr)
	}
	return run, res
}

func outcomes(run *Run) []string {
	var got []string
	for _, tr := range run.Tests {
		got = append(got, tr.Package+": "+tr.Name+" = "+string(tr.Outcome))
	}
	slices.Sort(got)
	return got
}

// TestNodeRunners runs each fixture's own jest or vitest in the sandbox
// and reads every outcome from its JSON report.
func TestNodeRunners(t *testing.T) {
	for _, tc := range []struct {
		fixture, runner, ext string
		nested               string // the signed test's full name
		focused              Outcome
	}{
		// jest runs a .only file's focused test; vitest under CI fails it.
		{"jest", "jest", "js", "sum adds (a+b)? negatives $1", OutcomePass},
		{"vitest", "vitest", "ts", "sum with signs adds (a+b)? negatives $1", OutcomeFail},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			dir := ""
			if tc.fixture == "vitest" {
				dir = "src/"
			}
			file := func(name string) string { return dir + name + ".test." + tc.ext }
			sel := strings.Join([]string{file("pass"), file("fail"), file("skip"), file("only"), file("teardown")}, " ")
			ws, r, ex := nodeRunnerOn(t, tc.fixture, sel)
			if r.Name() != tc.runner {
				t.Fatalf("runner %s, want %s", r.Name(), tc.runner)
			}

			run, res := runNode(t, ws, r, ex, sel, nil)
			want := []string{
				file("fail") + ": adds right = pass",
				file("fail") + ": adds wrong = fail",
				file("only") + ": focused = " + string(tc.focused),
				file("only") + ": left out by only = skip",
				file("pass") + ": " + tc.nested + " = pass",
				file("pass") + ": sum adds two numbers = pass",
				file("skip") + ": runs = pass",
				file("skip") + ": skipped for now = skip",
				file("skip") + ": someday = skip",
				file("teardown") + ": fine = pass",
				file("teardown") + ": " + fileFailure + " = fail",
			}
			slices.Sort(want)
			if d := cmp.Diff(want, outcomes(run)); d != "" {
				t.Fatalf("outcomes (-want +got):\n%s\nstderr: %s", d, res.Stderr)
			}
			if len(run.BuildFailed) != 0 {
				t.Errorf("build failures %v", run.BuildFailed)
			}
			if wrong := findTest(run.Tests, "adds wrong"); wrong == nil || !strings.Contains(strings.ToLower(wrong.Output), "expected") || strings.Contains(wrong.Output, "node_modules") || len(wrong.Output) > 2<<10+64 {
				t.Errorf("failure output %q", wrong.Output)
			}

			// A file that does not parse is a build failure, which blocks.
			run, _ = runNode(t, ws, r, ex, file("broken"), nil)
			if d := cmp.Diff([]string{file("broken")}, run.BuildFailed); d != "" || len(run.Tests) != 0 {
				t.Errorf("broken file: tests %v, build failures (-want +got):\n%s", outcomes(run), d)
			}

			// -t selects by full name; what it deselects is not reported.
			run, _ = runNode(t, ws, r, ex, file("pass")+` -t "sum adds two"`, nil)
			if d := cmp.Diff([]string{file("pass") + ": sum adds two numbers = pass"}, outcomes(run)); d != "" {
				t.Errorf("-t (-want +got):\n%s", d)
			}

			// Reruns by exact name, regex characters escaped: just those
			// tests run, and names the runner never ran are Expected.
			only := []TestID{{file("fail"), "adds wrong"}, {file("pass"), tc.nested}, {file("pass"), "sum adds"}}
			run, res = runNode(t, ws, r, ex, sel, only)
			want = []string{file("fail") + ": adds wrong = fail", file("pass") + ": " + tc.nested + " = pass"}
			slices.Sort(want)
			if d := cmp.Diff(want, outcomes(run)); d != "" {
				t.Errorf("rerun %q (-want +got):\n%s", res.Argv, d)
			}
			if d := cmp.Diff([]string{"adds wrong", "sum adds", tc.nested}, run.Expected); d != "" {
				t.Errorf("expected (-want +got):\n%s", d)
			}
			if judged := withNamed(run.Tests, run.Expected); findTest(judged, "sum adds") == nil || findTest(judged, "sum adds").Outcome != OutcomeNotRun {
				t.Errorf("a rerun name that matched nothing: %+v", judged)
			}

			// A test failing once passes on its rerun by name.
			run, _ = runNode(t, ws, r, ex, file("flaky"), nil)
			again, _ := runNode(t, ws, r, ex, file("flaky"), []TestID{{file("flaky"), "fails on its first run"}})
			if d := cmp.Diff([]string{file("flaky") + ": fails on its first run = fail"}, outcomes(run)); d != "" {
				t.Errorf("flaky, first run (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{file("flaky") + ": fails on its first run = pass"}, outcomes(again)); d != "" {
				t.Errorf("flaky, rerun (-want +got):\n%s", d)
			}
		})
	}
}

// TestNodeGate: the gate on the TypeScript fixture, with a change that
// breaks sums of negative numbers. The criterion on positive sums passes;
// the one on signed sums fails (its test passes at the base: not
// pre-existing); one naming a file that does not parse is blocked; a test
// that fails once is flaky.
func TestNodeGate(t *testing.T) {
	repo := nodeRepo(t, "vitest")
	edit(t, repo, "src/sum.ts", "return a + b;", "return Math.abs(a) + Math.abs(b);")
	dir, ex := shared(t)
	c, err := task.Parse([]byte(`objective: Sums stay right.
scope: {write: ["src/**"]}
criteria:
  - {id: positive, text: Positive sums are right., check: {tests: "src/pass.test.ts -t 'adds two numbers'"}}
  - {id: signed, text: Signed sums are right., check: {tests: "src/pass.test.ts -t \"with signs\""}}
  - {id: broken, text: The broken file passes., check: {tests: "src/broken.test.ts"}}
  - {id: flaky, text: The flaky test passes., check: {tests: "src/flaky.test.ts"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	a, err := task.Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Verify(context.Background(), Options{Attempt: a, Repo: repo, Candidate: Candidate{Working: repo}, Executor: ex, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	positive, signed, broken := r.Criterion("positive"), r.Criterion("signed"), r.Criterion("broken")
	if r.Verdict != Fail || positive.Status != Pass || signed.Status != Fail || broken.Status != Blocked {
		dump(t, r)
		t.Fatalf("verdict %v; positive %v, signed %v, broken %v", r.Verdict, positive.Status, signed.Status, broken.Status)
	}
	if len(positive.Tests) != 1 || positive.Argv[0] != "node_modules/.bin/vitest" || positive.Backend != sandbox.BackendBwrap {
		t.Errorf("positive: %+v", positive)
	}
	if s := findTest(signed.Tests, "sum with signs adds (a+b)? negatives $1"); s == nil || len(signed.Tests) != 1 || s.Outcome != OutcomeFail || !strings.Contains(s.Output, "expected 3 to be -3") {
		t.Errorf("signed: %+v", signed.Tests)
	}
	if !strings.Contains(broken.Reason, "build failed: src/broken.test.ts") {
		t.Errorf("broken: %s", broken.Reason)
	}
	// Rerun by name in its workspace, the flaky test passes: flaky, a fail.
	if f := r.Criterion("flaky"); f.Status != Fail || len(f.Tests) != 1 || f.Tests[0].Outcome != OutcomeFlaky || f.Tests[0].Reruns != 1 {
		t.Errorf("flaky: %v %s %+v", f.Status, f.Reason, f.Tests)
	}
}

func TestNodeRunnerChoice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		sel   string
		want  string // runner name and dir, or "error: …"
	}{
		{"jest config", map[string]string{"package.json": `{}`, "jest.config.ts": ""}, "a.test.ts", "jest ."},
		{"vitest config", map[string]string{"package.json": `{"devDependencies":{"jest":"1"}}`, "vitest.config.mts": ""}, "a.test.ts", "vitest ."},
		{"jest key", map[string]string{"package.json": `{"jest":{}}`}, "-t x", "jest ."},
		{"dev dependency", map[string]string{"web/package.json": `{"devDependencies":{"vitest":"3"}}`}, "web/src/a.test.tsx", "vitest web"},
		{"test script", map[string]string{"package.json": `{"scripts":{"test":"vitest run"}}`}, "a.spec.js", "vitest ."},
		{"both configs", map[string]string{"package.json": `{}`, "jest.config.js": "", "vitest.config.ts": ""}, "a.test.ts", "error: both"},
		{"both dependencies", map[string]string{"package.json": `{"devDependencies":{"jest":"1","vitest":"3"}}`}, "a.test.ts", "error: both"},
		{"neither", map[string]string{"package.json": `{}`}, "a.test.ts", "error: neither"},
		{"no package", map[string]string{"x.txt": ""}, "a.test.ts", "error: no package.json"},
		{"two packages", map[string]string{"a/package.json": `{"jest":{}}`, "b/package.json": `{"jest":{}}`}, "a/x.test.js b/y.test.js", "error: different packages"},
		{"other flag", map[string]string{"package.json": `{"jest":{}}`}, "a.test.js --coverage", "error: not allowed"},
		{"outside", map[string]string{"package.json": `{"jest":{}}`}, "../a.test.js", "error: leaves"},
		{"quote", map[string]string{"package.json": `{"jest":{}}`}, `-t "open`, "error: unterminated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, body := range tc.files {
				write(t, root, p, body)
			}
			r, err := runnerFor(&sandbox.Workspace{Dir: root}, tc.sel)
			got := ""
			switch rr := r.(type) {
			case jestRunner:
				got = "jest " + rr.dir
			case vitestRunner:
				got = "vitest " + rr.dir
			}
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.HasPrefix(got, tc.want) && !(strings.HasPrefix(tc.want, "error: ") && strings.Contains(got, strings.TrimPrefix(tc.want, "error: "))) {
				t.Errorf("runnerFor(%q) = %s, want %s", tc.sel, got, tc.want)
			}
		})
	}
}

func TestShellWordsAndNames(t *testing.T) {
	got, err := shellWords(`a.test.ts -t "adds \"two\" numbers" -t='x y' b\ c`)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a.test.ts", "-t", `adds "two" numbers`, "-t=x y", "b c"}, got); d != "" {
		t.Errorf("shellWords (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a (b)?", "c"}, literalNames(`^(a \(b\)\?|c)$`)); d != "" {
		t.Errorf("literalNames (-want +got):\n%s", d)
	}
	for _, p := range []string{"adds", "^adds.*$", "^(a|b)"} {
		if n := literalNames(p); n != nil {
			t.Errorf("literalNames(%q) = %q, want none", p, n)
		}
	}
}

// TestNodePlan: a package below the root runs in its directory with the
// files made relative to it; reruns name the failing tests exactly; what
// is missing is said.
func TestNodePlan(t *testing.T) {
	root := t.TempDir()
	write(t, root, "web/package.json", `{"devDependencies":{"vitest":"3"}}`)
	write(t, root, "web/src/a.test.ts", "")
	write(t, root, "web/src/b.test.ts", "")
	ws := &sandbox.Workspace{Dir: root}
	sel := `web/src/a.test.ts -t "adds two"`
	r, err := runnerFor(ws, sel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Plan(ws, sel, nil); err == nil || !strings.Contains(err.Error(), "web/node_modules/.bin/vitest is missing") {
		t.Errorf("plan without node_modules: %v", err)
	}
	if err := r.(preparer).Prepare(context.Background(), ws, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no package-lock.json") {
		t.Errorf("prepare without a lockfile: %v", err)
	}
	write(t, root, "web/node_modules/.bin/vitest", "")
	cmd, err := r.Plan(ws, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"node_modules/.bin/vitest", "run", "--reporter=default", "--reporter=json", "--outputFile.json=.cairn-vitest.json", "-t", "adds two", "src/a.test.ts"}
	if d := cmp.Diff(want, cmd.Argv); d != "" || cmd.Dir != "web" {
		t.Errorf("plan in %q (-want +got):\n%s", cmd.Dir, d)
	}
	cmd, err = r.Plan(ws, sel, []TestID{{"web/src/b.test.ts", "x (y)"}, {"web/src/a.test.ts", "a.b"}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"node_modules/.bin/vitest", "run", "--reporter=default", "--reporter=json", "--outputFile.json=.cairn-vitest.json", "-t", `^(a\.b|x \(y\))$`, "src/a.test.ts", "src/b.test.ts"}
	if d := cmp.Diff(want, cmd.Argv); d != "" {
		t.Errorf("rerun plan (-want +got):\n%s", d)
	}
	if _, err := r.Plan(ws, "web/src/c.test.ts", nil); err == nil || !strings.Contains(err.Error(), "not in the workspace") {
		t.Errorf("plan of a missing file: %v", err)
	}
}
