package verify

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// The fixture: testdata/apps/artifact-dropped with testdata/overlay (a test
// of the mapper, a CI workflow) committed as the base, at a fixed date so
// every copy has the same base commit and the gate's base cache serves
// them all.

const fixtureApp = "../../testdata/apps/artifact-dropped"

var (
	gateDirOnce sync.Once
	gateDir     string
	executor    sandbox.Executor
	execErr     error
)

// The gate directory is kept between test processes: a cold Go build
// cache costs minutes on a busy machine. Its base results go at the start,
// so every process computes its own.
var keptGateDir = filepath.Join(os.TempDir(), "cairn-verify-test-gate")

func TestMain(m *testing.M) {
	os.RemoveAll(filepath.Join(keptGateDir, "cache", "base"))
	os.Exit(m.Run())
}

// shared is the gate directory (its build cache and base results serve
// every test) and the bubblewrap executor.
func shared(t *testing.T) (string, sandbox.Executor) {
	t.Helper()
	gateDirOnce.Do(func() {
		gateDir = keptGateDir
		var goroot, modcache string
		goroot, modcache, execErr = sandbox.GoToolchain(context.Background())
		if execErr != nil {
			return
		}
		executor, execErr = sandbox.Select(context.Background(), sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	})
	if execErr != nil {
		t.Fatalf("bubblewrap and go must run for these tests: %v", execErr)
	}
	return gateDir, executor
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fixtureRepo is a fresh repository of the fixture at its base commit.
func fixtureRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	copyTree(t, fixtureApp, repo)
	copyTree(t, "testdata/overlay", repo)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	return repo
}

func write(t *testing.T, repo, rel, body string) {
	t.Helper()
	p := filepath.Join(repo, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, repo, rel, old, new string) {
	t.Helper()
	p := filepath.Join(repo, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", rel, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The change's parts.
func realFix(t *testing.T, repo string) {
	edit(t, repo, "server/mapper.go", "Status: t.Status,\n", "Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n")
}

// brokenFix maps the artifact and loses the ID: the base's mapper test
// fails on it, which the tamper variants then hide.
func brokenFix(t *testing.T, repo string) {
	edit(t, repo, "server/mapper.go", "ID:     t.ID,\n\t\tStatus: t.Status,\n", "Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n")
}

const regressionTest = `package main

import "testing"

func TestToResponseKeepsArtifactURL(t *testing.T) {
	got := ToResponse(Task{ID: 1, Status: "done", ArtifactURL: "https://files.example/a.zip"})
	if got.ArtifactURL != "https://files.example/a.zip" {
		t.Fatalf("ArtifactURL = %q, want the stored one", got.ArtifactURL)
	}
}
`

func addRegressionTest(t *testing.T, repo string) {
	write(t, repo, "server/artifact_test.go", regressionTest)
}

func gateOn(t *testing.T, repo string, lim sandbox.Limits) *Report {
	t.Helper()
	dir, ex := shared(t)
	c, err := task.ParseFile("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := task.Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Verify(context.Background(), Options{Attempt: a, Repo: repo, Candidate: Candidate{Working: repo},
		Executor: ex, Dir: dir, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	if t.Failed() || testing.Verbose() {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("report: %s", b)
	}
	return r
}

func status(r *Report, id string) Status {
	if c := r.Criterion(id); c != nil {
		return c.Status
	}
	return -1
}

func hasFinding(fs []Finding, kind string) bool {
	for _, f := range fs {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

func dump(t *testing.T, r *Report) {
	t.Helper()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %s", b)
}

func TestRealFixWithRegressionTestPasses(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	write(t, repo, ".cairn/index/meta.json", "{}") // cairn's own index is not part of the change
	r := gateOn(t, repo, sandbox.Limits{})
	if r.Verdict != Pass {
		dump(t, r)
		t.Fatalf("verdict %v: %s", r.Verdict, r.Reason)
	}
	reg := r.Criterion("regression")
	if len(reg.BaseTests) != 1 || reg.BaseTests[0].Outcome != OutcomeFail || reg.Tests[0].Outcome != OutcomePass {
		t.Errorf("regression: base %+v change %+v", reg.BaseTests, reg.Tests)
	}
	st := r.Criterion("server-tests")
	if len(st.Tests) != 2 || st.Backend != sandbox.BackendBwrap || st.Argv[0] != "go" || st.Dir != "server" {
		t.Errorf("server-tests: %+v", st)
	}
}

func TestFixWithoutTestFailsRegression(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	r := gateOn(t, repo, sandbox.Limits{})
	if r.Verdict != Fail || status(r, "regression") != Fail || status(r, "server-tests") != Pass {
		dump(t, r)
		t.Fatalf("verdict %v (%s), regression %v", r.Verdict, r.Reason, status(r, "regression"))
	}
}

// TestBrokenFixFails: without tampering, the broken fix fails the
// server's tests — the baseline the tamper variants hide.
func TestBrokenFixFails(t *testing.T) {
	repo := fixtureRepo(t)
	brokenFix(t, repo)
	addRegressionTest(t, repo)
	r := gateOn(t, repo, sandbox.Limits{})
	if r.Verdict != Fail || status(r, "server-tests") != Fail || len(r.Tamper) != 0 {
		dump(t, r)
		t.Fatalf("verdict %v (%s)", r.Verdict, r.Reason)
	}
}

func TestTamperFlagged(t *testing.T) {
	const test = "server/mapper_test.go"
	idAssert := "\tif got.ID != 7 {\n\t\tt.Errorf(\"ID = %d, want 7\", got.ID)\n\t}\n"
	for _, tc := range []struct {
		name, kind string
		tamper     func(t *testing.T, repo string)
		in         string // where the finding is: "tamper" or "scope"
	}{
		{"assertion deleted", "fewer_assertions", func(t *testing.T, repo string) { edit(t, repo, test, idAssert, "") }, "tamper"},
		{"t.Skip", "skip_added", func(t *testing.T, repo string) {
			edit(t, repo, test, "func TestToResponseKeepsIDAndStatus(t *testing.T) {\n", "func TestToResponseKeepsIDAndStatus(t *testing.T) {\n\tt.Skip(\"flaky on CI\")\n")
		}, "tamper"},
		{"build tag", "build_constraint_added", func(t *testing.T, repo string) {
			edit(t, repo, test, "package main\n", "//go:build integration\n\npackage main\n")
		}, "tamper"},
		{"if false", "fewer_assertions", func(t *testing.T, repo string) {
			edit(t, repo, test, idAssert, "\tif false {\n"+idAssert+"\t}\n")
		}, "tamper"},
		{"protected file", "protected", func(t *testing.T, repo string) {
			edit(t, repo, "server/schema.sql", "", "-- relaxed\n")
			edit(t, repo, test, idAssert, "")
		}, "scope"},
		{"CI config", "ci_config_edited", func(t *testing.T, repo string) {
			edit(t, repo, ".github/workflows/ci.yml", "go test ./...", "go test -run XXX ./...")
		}, "tamper"},
		{"test file deleted", "test_file_deleted", func(t *testing.T, repo string) {
			os.Remove(filepath.Join(repo, test))
		}, "tamper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := fixtureRepo(t)
			brokenFix(t, repo)
			addRegressionTest(t, repo)
			tc.tamper(t, repo)
			r := gateOn(t, repo, sandbox.Limits{})
			findings := r.Tamper
			if tc.in == "scope" {
				findings = r.Scope
			}
			if r.Verdict == Pass || !hasFinding(findings, tc.kind) {
				dump(t, r)
				t.Fatalf("verdict %v, no %s finding in %s: %+v", r.Verdict, tc.kind, tc.in, findings)
			}
		})
	}
}

func TestOutsideScopeFails(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	edit(t, repo, "README.md", "", "Fixed.\n")
	r := gateOn(t, repo, sandbox.Limits{})
	if r.Verdict != Fail || status(r, "scope") != Fail || !hasFinding(r.Scope, "outside_write_scope") {
		dump(t, r)
		t.Fatalf("verdict %v (%s), scope %v", r.Verdict, r.Reason, status(r, "scope"))
	}
	if status(r, "regression") != Pass || status(r, "server-tests") != Pass {
		t.Errorf("the fix's own checks: regression %v, server-tests %v", status(r, "regression"), status(r, "server-tests"))
	}
}

func TestHungTestBlocked(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	write(t, repo, "server/hang_test.go", "package main\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestHangs(t *testing.T) { time.Sleep(time.Hour) }\n")
	start := time.Now()
	r := gateOn(t, repo, sandbox.Limits{Wall: 15 * time.Second})
	if r.Verdict == Pass || status(r, "server-tests") != Blocked {
		dump(t, r)
		t.Fatalf("verdict %v, server-tests %v", r.Verdict, status(r, "server-tests"))
	}
	if !strings.Contains(r.Criterion("server-tests").Reason, "wall limit") {
		t.Errorf("reason %q", r.Criterion("server-tests").Reason)
	}
	t.Logf("gate with two hung runs: %v", time.Since(start))
}

func TestDiffThatDoesNotApplyIsBlocked(t *testing.T) {
	repo := fixtureRepo(t)
	dir, ex := shared(t)
	c, err := task.ParseFile("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := task.Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	patch := "diff --git a/server/mapper.go b/server/mapper.go\n--- a/server/mapper.go\n+++ b/server/mapper.go\n@@ -1,3 +1,3 @@\n-package nothere\n+package main2\n \n // x\n"
	r, err := Verify(context.Background(), Options{Attempt: a, Repo: repo, Candidate: Candidate{Patch: []byte(patch)}, Executor: ex, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Blocked || status(r, "server-tests") != Blocked || !strings.Contains(r.Reason, "does not apply") {
		dump(t, r)
		t.Fatalf("verdict %v: %s", r.Verdict, r.Reason)
	}
}

func TestBuildFailureBlocks(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	edit(t, repo, "server/mapper.go", "return TaskResponse{", "return TaskResponse{{")
	r := gateOn(t, repo, sandbox.Limits{})
	st := r.Criterion("server-tests")
	if r.Verdict == Pass || st.Status != Blocked || !strings.Contains(st.Reason, "build failed") {
		dump(t, r)
		t.Fatalf("verdict %v, server-tests %v: %s", r.Verdict, st.Status, st.Reason)
	}
}

// TestPreExistingFailure: a test failing at the base is reported
// pre_existing and not blamed on the change.
func TestPreExistingFailure(t *testing.T) {
	repo := fixtureRepo(t)
	write(t, repo, "server/legacy_test.go", "package main\n\nimport \"testing\"\n\nfunc TestLegacy(t *testing.T) { t.Fatal(\"broken since forever\") }\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "a failing test")
	realFix(t, repo)
	addRegressionTest(t, repo)
	r := gateOn(t, repo, sandbox.Limits{})
	st := r.Criterion("server-tests")
	if r.Verdict != Pass || st.Status != Pass || findTest(st.Tests, "TestLegacy").Outcome != OutcomePreExisting {
		dump(t, r)
		t.Fatalf("verdict %v (%s), server-tests %v", r.Verdict, r.Reason, st.Status)
	}
}

// TestFlakyFails: a test that fails once and passes on its rerun is
// flaky, and the criterion fails.
func TestFlakyFails(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	write(t, repo, "server/flaky_test.go", `package main

import (
	"os"
	"testing"
)

func TestFlaky(t *testing.T) {
	if _, err := os.Stat("flaky.marker"); err != nil {
		os.WriteFile("flaky.marker", nil, 0o644)
		t.Fatal("first run fails")
	}
}
`)
	r := gateOn(t, repo, sandbox.Limits{})
	st := r.Criterion("server-tests")
	if r.Verdict == Pass || st.Status != Fail || findTest(st.Tests, "TestFlaky").Outcome != OutcomeFlaky {
		dump(t, r)
		t.Fatalf("verdict %v, server-tests %v: %s", r.Verdict, st.Status, st.Reason)
	}
}

// TestRegressionTestPassingAtBaseFails: a new test that passes without
// the fix shows nothing.
func TestRegressionTestPassingAtBaseFails(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/id_test.go", "package main\n\nimport \"testing\"\n\nfunc TestKeepsID(t *testing.T) {\n\tif ToResponse(Task{ID: 3}).ID != 3 {\n\t\tt.Fatal(\"ID\")\n\t}\n}\n")
	r := gateOn(t, repo, sandbox.Limits{})
	reg := r.Criterion("regression")
	if r.Verdict != Fail || reg.Status != Fail || !strings.Contains(reg.Reason, "fails at the base") {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v: %s", r.Verdict, reg.Status, reg.Reason)
	}
}

// TestImpactTests: the engine indexes the candidate, its impact on the
// diff selects the mapper's tests, and they pass; without the engine the
// criterion is blocked.
func TestImpactTests(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	dir, ex := shared(t)
	c, err := task.Parse([]byte("objective: After a page refresh, a finished task's download link is still shown.\nscope: {write: [\"server/**\"]}\ncriteria:\n  - {id: impact, text: The tests that reach the change pass., check: {impact_tests: true}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := task.Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		impact ImpactSelector
		want   Status
	}{{EngineImpact{}, Pass}, {nil, Blocked}} {
		r, err := Verify(context.Background(), Options{Attempt: a, Repo: repo, Candidate: Candidate{Working: repo}, Executor: ex, Dir: dir, Impact: tc.impact})
		if err != nil {
			t.Fatal(err)
		}
		im := r.Criterion("impact")
		t.Logf("impact: %v %s", im.Status, im.Reason)
		if im.Status != tc.want || tc.want == Pass && findTest(im.Tests, "TestToResponseKeepsIDAndStatus") == nil {
			dump(t, r)
			t.Fatalf("impact %v (%s), want %v", im.Status, im.Reason, tc.want)
		}
	}
}

// TestMissingRunnerBlocks: a command that is not there blocks, and the
// gate does not pass.
func TestMissingRunnerBlocks(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	dir, ex := shared(t)
	c, err := task.Parse([]byte("objective: After a page refresh, a finished task's download link is still shown.\nscope: {write: [\"server/**\"]}\ncriteria:\n  - {id: lint, text: The linter passes., check: {command: [no-such-linter, run]}}\n"))
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
	if l := r.Criterion("lint"); r.Verdict != Blocked || l.Status != Blocked || !strings.Contains(l.Reason, "not found") {
		dump(t, r)
		t.Fatalf("verdict %v, lint %v: %s", r.Verdict, l.Status, l.Reason)
	}
}

// TestMain in the change's test file is the package's entry point, not a
// test: go test never reports it, and regression must not wait for it
// (grpc-go-2760's test patch changes one). A TestMain is the harness: the
// contract allows this one by its file.
func TestChangedTestMainIsNotARegressionTest(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/artifact_test.go", strings.Replace(regressionTest, `import "testing"`, "import (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }", 1))
	contract, err := os.ReadFile("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := gateWith(t, repo, string(contract)+"allow:\n  harness: [server/artifact_test.go]\n")
	if r.Verdict != Pass {
		dump(t, r)
		t.Fatalf("verdict %v: %s", r.Verdict, r.Reason)
	}
}

// commitBase adds files to the fixture's base commit.
func commitBase(t *testing.T, repo string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		write(t, repo, rel, body)
	}
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "--amend", "-m", "base")
}

const helperBase = `package main

import "testing"

// checkResponse is shared by the tests of this package.
func checkResponse(t *testing.T, got, want TaskResponse) {
	t.Helper()
	if got.ID != want.ID {
		t.Errorf("ID = %d, want %d", got.ID, want.ID)
	}
}
`

const helperUser = `package main

import "testing"

var responseChecks = []func(*testing.T, TaskResponse, TaskResponse){checkResponse}

func TestResponseOfFinishedTask(t *testing.T) {
	in := Task{ID: 3, Status: "done", ArtifactURL: "https://files.example/b.zip"}
	for _, check := range responseChecks {
		check(t, ToResponse(in), TaskResponse{ID: 3, ArtifactURL: in.ArtifactURL})
	}
}

func TestUnrelated(t *testing.T) {
	if ToResponse(Task{Status: "x"}).Status != "x" {
		t.Error("status")
	}
}
`

// TestChangedHelperIsARegressionTest: the diff changes a helper of the
// test files, not a Test function's body (grpc-go-2932's test patch): the
// tests that reach the helper — here through a package variable, from
// another file — are its regression tests.
func TestChangedHelperIsARegressionTest(t *testing.T) {
	repo := fixtureRepo(t)
	commitBase(t, repo, map[string]string{"server/check_test.go": helperBase, "server/finished_test.go": helperUser})
	realFix(t, repo)
	edit(t, repo, "server/check_test.go", "\t}\n}\n", "\t}\n\tif got.ArtifactURL != want.ArtifactURL {\n\t\tt.Errorf(\"ArtifactURL = %q, want %q\", got.ArtifactURL, want.ArtifactURL)\n\t}\n}\n")
	r := gateOn(t, repo, sandbox.Limits{})
	reg := r.Criterion("regression")
	if r.Verdict != Pass || len(reg.BaseTests) != 1 || reg.BaseTests[0].Name != "TestResponseOfFinishedTask" ||
		reg.BaseTests[0].Outcome != OutcomeFail || len(reg.Tests) != 1 || reg.Tests[0].Outcome != OutcomePass {
		dump(t, r)
		t.Fatalf("verdict %v (%s); regression %v: %s", r.Verdict, r.Reason, reg.Status, reg.Reason)
	}
}

const suiteBase = `package main

import (
	"reflect"
	"strings"
	"testing"
)

// s is a suite: Test runs each of its TestX methods as the subtest X.
type s struct{}

func Test(t *testing.T) {
	v := reflect.ValueOf(s{})
	for i := 0; i < v.NumMethod(); i++ {
		name := v.Type().Method(i).Name
		if !strings.HasPrefix(name, "Test") {
			continue
		}
		m := v.Method(i)
		t.Run(strings.TrimPrefix(name, "Test"), func(t *testing.T) {
			m.Call([]reflect.Value{reflect.ValueOf(t)})
		})
	}
}

func (s) TestKeepsID(t *testing.T) {
	if ToResponse(Task{ID: 4}).ID != 4 {
		t.Error("ID")
	}
}
`

// TestChangedSuiteMethodIsARegressionTest: a test added as a suite's
// method (grpc-go's `func (s) TestX`) runs as Test/X under the top-level
// test that runs the suite, and is the regression test.
func TestChangedSuiteMethodIsARegressionTest(t *testing.T) {
	repo := fixtureRepo(t)
	commitBase(t, repo, map[string]string{"server/suite_test.go": suiteBase})
	edit(t, repo, "server/suite_test.go", "func (s) TestKeepsID(", `func (s) TestKeepsArtifactURL(t *testing.T) {
	if got := ToResponse(Task{ArtifactURL: "u"}).ArtifactURL; got != "u" {
		t.Errorf("ArtifactURL = %q", got)
	}
}

func (s) TestKeepsID(`)
	r := gateOn(t, repo, sandbox.Limits{})
	reg := r.Criterion("regression")
	if reg.Status != Fail || len(reg.Tests) != 1 || reg.Tests[0].Name != "Test/KeepsArtifactURL" || reg.Tests[0].Outcome != OutcomeFail {
		dump(t, r)
		t.Fatalf("without the fix: regression %v (%s), want fail with Test/KeepsArtifactURL failing", reg.Status, reg.Reason)
	}
	realFix(t, repo)
	r = gateOn(t, repo, sandbox.Limits{})
	reg = r.Criterion("regression")
	if r.Verdict != Pass || len(reg.BaseTests) != 1 || reg.BaseTests[0].Name != "Test/KeepsArtifactURL" || reg.BaseTests[0].Outcome != OutcomeFail ||
		len(reg.Tests) != 1 || reg.Tests[0].Outcome != OutcomePass {
		dump(t, r)
		t.Fatalf("verdict %v (%s); regression %v: %s", r.Verdict, r.Reason, reg.Status, reg.Reason)
	}
}

// intermittentTest fails without the fix only in its third run in a
// process — a race that loses now and then, like grpc-go 2371's (a
// service config handled while the ClientConn closes).
const intermittentTest = `package main

import "testing"

var artifactRuns int

func TestArtifactURLUnderRace(t *testing.T) {
	artifactRuns++
	if got := ToResponse(Task{ArtifactURL: "u"}).ArtifactURL; got != "u" && artifactRuns%3 == 0 {
		t.Fatalf("ArtifactURL = %q in run %d", got, artifactRuns)
	}
}
`

// TestIntermittentBugIsARegressionTest: a regression test that passes
// at the base once but fails there when repeated shows the bug; the
// change must then pass every repetition. Without the fix the same test
// fails on the change.
func TestIntermittentBugIsARegressionTest(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/race_test.go", intermittentTest)
	r := gateOn(t, repo, sandbox.Limits{})
	reg := r.Criterion("regression")
	if r.Verdict != Pass || reg.Status != Pass || len(reg.BaseTests) != 1 || reg.BaseTests[0].Outcome != OutcomeFail ||
		reg.BaseTests[0].Runs != 3 || !strings.Contains(reg.BaseTests[0].Output, "run up to 10 times") ||
		!strings.Contains(reg.Reason, "intermittently") || !strings.Contains(reg.Reason, "pass 10 repetitions") {
		dump(t, r)
		t.Fatalf("verdict %v (%s); regression %v: %s", r.Verdict, r.Reason, reg.Status, reg.Reason)
	}

	repo = fixtureRepo(t)
	write(t, repo, "server/race_test.go", intermittentTest)
	r = gateOn(t, repo, sandbox.Limits{})
	if reg = r.Criterion("regression"); r.Verdict == Pass || reg.Status != Fail || !strings.Contains(reg.Reason, "do not pass on the change") {
		dump(t, r)
		t.Fatalf("without the fix: verdict %v; regression %v: %s", r.Verdict, reg.Status, reg.Reason)
	}
}

// TestFindingsSkipTheRepetitions: when a scope finding fails the verdict
// already, a regression test that passes at the base runs there once, not
// BaseRepeats times, and the reason says why.
func TestFindingsSkipTheRepetitions(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/race_test.go", intermittentTest)
	write(t, repo, "docs/notes.md", "outside the write scope\n")
	r := gateOn(t, repo, sandbox.Limits{})
	reg := r.Criterion("regression")
	if r.Verdict != Fail || !hasFinding(r.Scope, "outside_write_scope") || reg.Status != Fail || len(reg.BaseTests) != 1 ||
		reg.BaseTests[0].Runs > 1 || strings.Contains(reg.BaseTests[0].Output, "run up to") || !strings.Contains(reg.Reason, "repetitions that could show an intermittent failure were skipped") {
		dump(t, r)
		t.Fatalf("verdict %v (%s); regression %v: %s", r.Verdict, r.Reason, reg.Status, reg.Reason)
	}
}

// TestChangedMethodReachesItsTypesTests: a changed method of a test
// helper type reaches the tests that use that type (directly or through
// a constructor), not every test that calls a method of the same name
// (grpc-go 2629: delayListener.Dial changed, and every test calling
// grpc.Dial was selected).
func TestChangedMethodReachesItsTypesTests(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p/l_test.go", `package p

import "testing"

type delayListener struct{}

func (d *delayListener) Dial() error { return nil }

type other struct{}

func (other) Dial() error { return nil }

func newListener() *delayListener { return &delayListener{} }

func TestGraceful(t *testing.T) { d := &delayListener{}; d.Dial() }

func TestViaConstructor(t *testing.T) { newListener().Dial() }

func TestOtherDial(t *testing.T) { o := other{}; o.Dial() }
`)
	groups := packageGroups(&sandbox.Workspace{Dir: dir}, "p", nil, map[string]bool{"delayListener.Dial": true})
	if len(groups) != 1 || !slices.Equal(groups[0].Names, []string{"TestGraceful", "TestViaConstructor"}) {
		t.Fatalf("groups %+v, want TestGraceful and TestViaConstructor only", groups)
	}
	if groups = packageGroups(&sandbox.Workspace{Dir: dir}, "p", nil, map[string]bool{"other.Dial": true}); len(groups) != 1 || !slices.Equal(groups[0].Names, []string{"TestOtherDial"}) {
		t.Fatalf("other.Dial changed: groups %+v, want TestOtherDial only", groups)
	}
}

// TestChangeRepeats: the later a test first failed at the base, the more
// often the change must pass it.
func TestChangeRepeats(t *testing.T) {
	for r, want := range map[int]int{0: 10, 1: 10, 3: 10, 10: 29, 100: 30} {
		if got := changeRepeats([]TestResult{{Outcome: OutcomePass, Runs: 10}, {Outcome: OutcomeFail, Runs: r}}, 10); got != want {
			t.Errorf("first failure in run %d: %d repetitions on the change, want %d", r, got, want)
		}
	}
	if got := changeRepeats([]TestResult{{Outcome: OutcomeFail, Runs: 10}, {Outcome: OutcomeFail, Runs: 2}}, 10); got != 10 {
		t.Errorf("two tests, first failures in runs 10 and 2: %d, want 10 (the sooner sets it)", got)
	}
}
