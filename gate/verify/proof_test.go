package verify

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

const regressionOnly = `objective: After a page refresh, a finished task's download link is still shown.
base: HEAD
scope: {write: ["server/**"]}
criteria:
  - id: regression
    text: A new regression test fails on the base and passes with the change.
    check: {regression: true}
`

// An ordinary model's proof of nothing: no fix, a new constant and a test
// of only it. At the base the test's package does not build (the constant
// is new), which used to count as the test failing there.
func TestConstantOnlyRegressionTestFails(t *testing.T) {
	repo := fixtureRepo(t)
	write(t, repo, "server/fixed.go", "package main\n\n// fixed says the artifact bug is fixed.\nconst fixed = true\n")
	write(t, repo, "server/fixed_test.go", "package main\n\nimport \"testing\"\n\nfunc TestArtifactFixed(t *testing.T) {\n\tif !fixed {\n\t\tt.Fatal(\"not fixed\")\n\t}\n}\n")
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict == Pass || reg.Status != Fail {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v (%s): a test of a new constant proves nothing", r.Verdict, reg.Status, reg.Reason)
	}
	if len(reg.Proofs) != 1 || reg.Proofs[0].Counts || reg.Proofs[0].BaseFailure != "build" || !strings.Contains(reg.Proofs[0].BaseMessage, "undefined: fixed") {
		t.Errorf("proofs %+v: want one, not counting, failing to build at the base with the compiler's message", reg.Proofs)
	}
	if !strings.Contains(reg.Reason, "proves nothing") {
		t.Errorf("reason %q", reg.Reason)
	}
}

// An ordinary model's proof of nothing: a new helper that nothing the base
// runs calls, and a test of it; the change adds code and rewrites none.
// Tried on grpc-go 3476's tree through `cairn verify` before this rule:
// PASS. The same test beside a change that removes or rewrites base code
// (3476's reference replaces BuilderMapEqual) counts.
func TestNewHelperNothingCallsFails(t *testing.T) {
	repo := fixtureRepo(t)
	write(t, repo, "server/artifact.go", `package main

// withArtifact is ToResponse with the artifact URL.
func withArtifact(t Task) TaskResponse {
	r := ToResponse(t)
	r.ArtifactURL = t.ArtifactURL
	return r
}
`)
	write(t, repo, "server/artifact_test.go", `package main

import "testing"

func TestWithArtifact(t *testing.T) {
	got := withArtifact(Task{ID: 1, ArtifactURL: "https://files.example/a.zip"})
	if got.ArtifactURL != "https://files.example/a.zip" {
		t.Fatalf("ArtifactURL = %q", got.ArtifactURL)
	}
}
`)
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict == Pass || reg.Status != Fail || !strings.Contains(reg.Proofs[0].Reason, "proves no fix") {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v (%s)", r.Verdict, reg.Status, reg.Reason)
	}

	// the change also rewrites code the base has: the test counts
	edit(t, repo, "server/mapper.go", "\t\tID:     t.ID,\n", "\t\tID: t.ID + 0,\n")
	r = gateWith(t, repo, regressionOnly)
	p := r.Criterion("regression").Proofs[0]
	if r.Verdict != Pass || !p.Counts {
		dump(t, r)
		t.Errorf("verdict %v, proof %+v", r.Verdict, p)
	}
}

// The control: the fix adds API (the base does not build with its test)
// and the test also exercises the fixed path.
func TestNewAPIWithFixedPathPasses(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/artifact.go", `package main

// HasArtifact reports whether the task produced a file.
func (t Task) HasArtifact() bool { return t.ArtifactURL != "" }
`)
	write(t, repo, "server/artifact_test.go", `package main

import "testing"

func TestResponseCarriesArtifact(t *testing.T) {
	task := Task{ID: 1, Status: "done", ArtifactURL: "https://files.example/a.zip"}
	if !task.HasArtifact() {
		t.Fatal("no artifact")
	}
	if got := ToResponse(task); got.ArtifactURL != task.ArtifactURL {
		t.Fatalf("ArtifactURL = %q", got.ArtifactURL)
	}
}
`)
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict != Pass {
		dump(t, r)
		t.Fatalf("verdict %v (%s), regression %s", r.Verdict, r.Reason, reg.Reason)
	}
	p := reg.Proofs[0]
	if !p.Counts || p.BaseFailure != "build" || p.Coverage.InExisting == 0 || !strings.Contains(strings.Join(p.Coverage.Functions, " "), "mapper.go:ToResponse") {
		t.Errorf("proof %+v %+v", p, p.Coverage)
	}
}

// The real fix's test fails at the base on its assertion, which the proof
// reports with the message.
func TestRealFixProofReportsTheBaseFailure(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict != Pass || len(reg.Proofs) != 1 {
		dump(t, r)
		t.Fatalf("verdict %v (%s)", r.Verdict, r.Reason)
	}
	p := reg.Proofs[0]
	if !p.Counts || p.BaseFailure != "assertion" || !strings.Contains(p.BaseMessage, "ArtifactURL = \"\", want the stored one") || p.ChangeOutcome != OutcomePass || p.Coverage == nil || p.Coverage.Executed == 0 {
		t.Errorf("proof %+v", p)
	}
}

// A test that fails at the base for a reason of its own (here: it reads a
// file only the change adds) and passes on the change executes none of the
// change's code: no proof.
func TestRuntimeFailureThatExecutesNoChangedCodeFails(t *testing.T) {
	repo := fixtureRepo(t)
	edit(t, repo, "server/mapper.go", "func ToResponse(t Task) TaskResponse {\n", "func ToResponse(t Task) TaskResponse {\n\tif t.ID < 0 {\n\t\tt.ID = 0\n\t}\n")
	write(t, repo, "server/fixed.txt", "yes\n") // not a test file: the base lacks it
	write(t, repo, "server/marker_test.go", `package main

import (
	"os"
	"testing"
)

func TestMarker(t *testing.T) {
	if _, err := os.Stat("fixed.txt"); err != nil {
		t.Fatal(err)
	}
}
`)
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict == Pass || reg.Status != Fail || len(reg.Proofs) != 1 || reg.Proofs[0].Counts {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v (%s)", r.Verdict, reg.Status, reg.Reason)
	}
	if p := reg.Proofs[0]; p.BaseFailure != "assertion" || p.Coverage == nil || p.Coverage.Statements == 0 || p.Coverage.Executed != 0 {
		t.Errorf("proof %+v %+v", p, p.Coverage)
	}
}

const namedContract = `objective: The reported bug's test passes.
base: HEAD
scope: {write: ["server/**"]}
criteria:
  - id: reported
    text: The reported failing test passes.
    check: {tests: "./server -run ^TestReportedBug$"}
`

const reportedBug = `package main

import "testing"

func TestReportedBug(t *testing.T) {
	got := ToResponse(Task{ID: 1, ArtifactURL: "https://files.example/a.zip"})
	if got.ArtifactURL == "" {
		t.Fatal("the artifact URL is dropped")
	}
}
`

// "Make this failing test pass": the test is committed at the base and
// named by the contract; a comment changes nothing, and the test's failure
// at the base excuses nothing.
func TestNamedFailingTestMustPass(t *testing.T) {
	repo := fixtureRepo(t)
	commitBase(t, repo, map[string]string{"server/reported_test.go": reportedBug})
	edit(t, repo, "server/mapper.go", "// ToResponse maps", "// ToResponse (fixed) maps")
	r := gateWith(t, repo, namedContract)
	c := r.Criterion("reported")
	if r.Verdict == Pass || c.Status != Fail {
		dump(t, r)
		t.Fatalf("verdict %v, reported %v (%s): a named test still failing is not a pass", r.Verdict, c.Status, c.Reason)
	}
	if len(c.Tests) != 1 || c.Tests[0].Outcome != OutcomeFail {
		t.Errorf("tests %+v", c.Tests)
	}

	// the control: the real fix makes it pass
	repo = fixtureRepo(t)
	commitBase(t, repo, map[string]string{"server/reported_test.go": reportedBug})
	realFix(t, repo)
	if r := gateWith(t, repo, namedContract); r.Verdict != Pass {
		dump(t, r)
		t.Fatalf("real fix: verdict %v (%s)", r.Verdict, r.Reason)
	}
}

// A broad selector still excuses failures the base has, and says how
// many.
func TestBroadSelectorCountsExcusedFailures(t *testing.T) {
	repo := fixtureRepo(t)
	commitBase(t, repo, map[string]string{"server/reported_test.go": reportedBug})
	edit(t, repo, "server/mapper.go", "// ToResponse maps", "// ToResponse (fixed) maps")
	r := gateWith(t, repo, strings.Replace(namedContract, "./server -run ^TestReportedBug$", "./server/...", 1))
	c := r.Criterion("reported")
	if c.Status != Pass || !strings.Contains(c.Reason, "excused 1 failing at the base") {
		dump(t, r)
		t.Fatalf("reported %v (%s)", c.Status, c.Reason)
	}
}

// Framing printed by test code cannot invent a test: a result for a name
// no test file of the package declares is forged.
func TestForgedTestResultIsAFinding(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	// test2json reads framing lines the test binary prints (marked with
	// ^V under go test -json): printed by test code, they make up tests
	write(t, repo, "server/print_test.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestPrints(t *testing.T) {\n\tfmt.Print(\"\\x16=== RUN   TestInvented\\n\\x16--- PASS: TestInvented (0.00s)\\n\")\n}\n")
	r := gateOn(t, repo, sandbox.Limits{})
	if r.Verdict == Pass || !hasFinding(r.Tamper, "forged_result") {
		dump(t, r)
		t.Fatalf("verdict %v, tamper %+v: a made-up test result passed", r.Verdict, r.Tamper)
	}
}

// Results that cannot be checked against the declared tests (a test file
// no parser reads, left out of the build by a constraint) block the
// criterion: never a pass on results nobody could check.
func TestUnlistableTestsBlock(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	write(t, repo, "server/broken_test.go", "//go:build ignore\n\npackage main\n\nfunc (\n")
	r := gateOn(t, repo, sandbox.Limits{})
	c := r.Criterion("server-tests")
	if r.Verdict == Pass || c.Status != Blocked || !strings.Contains(c.Reason, "cannot be listed") {
		dump(t, r)
		t.Fatalf("verdict %v, server-tests %v (%s)", r.Verdict, c.Status, c.Reason)
	}
}

// A panic at the base whose goroutine trace passes through a function the
// change edits is the change's doing (grpc-go 2371's race), and one
// through code the change leaves alone is not.
func TestPanicsInChangedFunction(t *testing.T) {
	cc := &changeCode{files: map[string]*changedFile{
		"google.golang.org/grpc/clientconn.go": {rel: "clientconn.go", lines: []int{750, 751, 752},
			funcs: []funcSpan{{"ClientConn.handleServiceConfig", 740, 790}, {"ClientConn.Close", 800, 840}}},
	}}
	trace := "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 83 [running]:\n" +
		"google.golang.org/grpc.(*ccBalancerWrapper).handleResolvedAddrs(...)\n\t/w/run/03-regression-base/work/balancer_conn_wrappers.go:182\n" +
		"google.golang.org/grpc.(*ClientConn).handleServiceConfig(0x23aabf531b08, {0x9fa2fa, 0x26})\n\t/w/run/03-regression-base/work/clientconn.go:775 +0x363\n"
	if got := cc.panicsIn(trace); got != "clientconn.go:ClientConn.handleServiceConfig" {
		t.Errorf("panicsIn = %q", got)
	}
	other := strings.ReplaceAll(trace, "handleServiceConfig", "Close")
	if got := cc.panicsIn(other); got != "" {
		t.Errorf("a panic in a function the change leaves alone: panicsIn = %q", got)
	}
	if got := cc.panicsIn("    artifact_test.go:8: ArtifactURL = \"\"\n--- FAIL: TestX (0.00s)\n"); got != "" {
		t.Errorf("an assertion: panicsIn = %q", got)
	}
}

// A test that builds only with the change and asserts nothing — its helper
// is new and vacuous — shows only that the change builds and runs.
func TestAssertionlessRegressionTestFails(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/artifact.go", "package main\n\n// HasArtifact reports whether the task produced a file.\nfunc (t Task) HasArtifact() bool { return t.ArtifactURL != \"\" }\n")
	write(t, repo, "server/artifact_test.go", `package main

import "testing"

func checkURL(t *testing.T, got, want string) {
	t.Helper()
	_ = got == want
}

func TestResponseCarriesArtifact(t *testing.T) {
	task := Task{ID: 1, Status: "done", ArtifactURL: "https://files.example/a.zip"}
	_ = task.HasArtifact()
	checkURL(t, ToResponse(task).ArtifactURL, task.ArtifactURL)
}
`)
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict == Pass || reg.Status != Fail || len(reg.Proofs) != 1 || !strings.Contains(reg.Proofs[0].Reason, "asserts nothing") {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v (%s)", r.Verdict, reg.Status, reg.Reason)
	}
	// the same test asserting through another package's helper counts
	edit(t, repo, "server/artifact_test.go", `import "testing"`, "import (\n\t\"testing\"\n\n\t\"example.com/tasks/internal/check\"\n)")
	edit(t, repo, "server/artifact_test.go", "checkURL(t, ToResponse(task).ArtifactURL, task.ArtifactURL)", "check.Equal(t, ToResponse(task).ArtifactURL, task.ArtifactURL)")
	write(t, repo, "server/internal/check/check.go", "package check\n\nimport \"testing\"\n\n// Equal fails t when got is not want.\nfunc Equal(t *testing.T, got, want string) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Fatalf(\"got %q, want %q\", got, want)\n\t}\n}\n")
	if r := gateWith(t, repo, regressionOnly); r.Verdict != Pass {
		dump(t, r)
		t.Fatalf("asserting through another package's helper: verdict %v (%s)", r.Verdict, r.Reason)
	}
}

// A change of tests alone: the test fails at the base and passes on the
// change only because it can tell where it runs (as a racy test does by
// chance); the code under test is the same, so nothing is proven.
func TestTestsOnlyChangeProvesNothing(t *testing.T) {
	repo := fixtureRepo(t)
	write(t, repo, "server/where_test.go", `package main

import (
	"os"
	"strings"
	"testing"
)

func TestWhere(t *testing.T) {
	wd, _ := os.Getwd()
	if strings.Contains(wd, "-base") {
		t.Fatal("at the base")
	}
}
`)
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict == Pass || reg.Status != Fail || len(reg.Proofs) != 1 || !strings.Contains(reg.Proofs[0].Reason, "touches no file but tests") {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v (%s)", r.Verdict, reg.Status, reg.Reason)
	}
}

// Coverage that cannot be collected — here the test refuses to run under
// coverage — blocks the criterion: never a proof assumed.
func TestCoverageThatCannotBeCollectedBlocks(t *testing.T) {
	repo := fixtureRepo(t)
	realFix(t, repo)
	write(t, repo, "server/artifact_test.go", strings.Replace(regressionTest, "\tgot := ToResponse", "\tif testing.CoverMode() != \"\" {\n\t\tt.Fatal(\"not under coverage\")\n\t}\n\tgot := ToResponse", 1))
	r := gateWith(t, repo, regressionOnly)
	reg := r.Criterion("regression")
	if r.Verdict == Pass || reg.Status != Blocked || !strings.Contains(reg.Reason, "coverage could not be collected") {
		dump(t, r)
		t.Fatalf("verdict %v, regression %v (%s)", r.Verdict, reg.Status, reg.Reason)
	}
}
