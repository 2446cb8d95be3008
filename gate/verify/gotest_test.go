package verify

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

func TestModuleOf(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "server", "api"), 0o755)
	os.WriteFile(filepath.Join(root, "server", "go.mod"), []byte("module x\n"), 0o644)
	for _, tc := range []struct {
		pats    []string
		mod     string
		rel     []string
		wantErr bool
	}{
		{[]string{"./server/..."}, "server", []string{"./..."}, false},
		{[]string{"./server"}, "server", []string{"."}, false},
		{[]string{"./server/api", "./server/..."}, "server", []string{"./api", "./..."}, false},
		{[]string{"./server/api/..."}, "server", []string{"./api/..."}, false},
		{[]string{"./..."}, "", nil, true},
		{[]string{"../x"}, "", nil, true},
	} {
		mod, rel, err := moduleOf(root, tc.pats)
		if (err != nil) != tc.wantErr || mod != tc.mod || !cmp.Equal(rel, tc.rel) {
			t.Errorf("moduleOf(%v) = %q, %v, %v; want %q, %v, error %v", tc.pats, mod, rel, err, tc.mod, tc.rel, tc.wantErr)
		}
	}
}

// testdata/gotest.json is go test -json (Go 1.26) over a package with a
// passing, a failing, a skipped test and a subtest, and one that does not
// build.
func TestGoParse(t *testing.T) {
	out, err := os.ReadFile("testdata/gotest.json")
	if err != nil {
		t.Fatal(err)
	}
	run, err := goRunner{}.Parse(nil, &sandbox.Result{Stdout: out, ExitCode: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range run.Tests {
		got = append(got, tr.Name+" "+string(tr.Outcome))
	}
	want := []string{"TestPass pass", "TestFail fail", "TestSkip skip", "TestSub pass", "TestSub/a pass"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tests (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"m/broken"}, run.BuildFailed); d != "" {
		t.Errorf("build failures (-want +got):\n%s", d)
	}
	// No events at all: the go command failed before any package.
	run, _ = goRunner{}.Parse(nil, &sandbox.Result{Stdout: []byte("go: no such pattern\n"), ExitCode: 1})
	if len(run.BuildFailed) == 0 {
		t.Error("a go test that printed no events is not a build failure")
	}
}

func TestJudgeTests(t *testing.T) {
	tr := func(name string, o Outcome) TestResult { return TestResult{Name: name, Outcome: o} }
	for _, tc := range []struct {
		name  string
		tests []TestResult
		named []string
		want  Status
	}{
		{"all pass", []TestResult{tr("A", OutcomePass)}, nil, Pass},
		{"a skip is not a pass", []TestResult{tr("A", OutcomeSkip)}, nil, NotRun},
		{"pass and skip", []TestResult{tr("A", OutcomePass), tr("B", OutcomeSkip)}, nil, Pass},
		{"nothing ran", nil, nil, NotRun},
		{"named never ran", []TestResult{tr("A", OutcomePass)}, []string{"A", "B"}, NotRun},
		{"named and skipped", []TestResult{tr("A", OutcomePass), tr("B", OutcomeSkip)}, []string{"A", "B"}, Pass},
		{"fail", []TestResult{tr("A", OutcomePass), tr("B", OutcomeFail)}, nil, Fail},
		{"flaky", []TestResult{tr("A", OutcomeFlaky)}, nil, Fail},
		{"pre-existing only", []TestResult{tr("A", OutcomePass), tr("B", OutcomePreExisting)}, nil, Pass},
		{"started, never finished", []TestResult{tr("A", OutcomePass), tr("B", OutcomeNotRun)}, nil, NotRun},
	} {
		if got, why := judgeTests(withNamed(tc.tests, tc.named)); got != tc.want {
			t.Errorf("%s: %v (%s), want %v", tc.name, got, why, tc.want)
		}
	}
	if d := cmp.Diff([]string{"TestA", "TestB"}, namedTests("./x -run ^(TestA|TestB)$")); d != "" {
		t.Errorf("namedTests (-want +got):\n%s", d)
	}
	if n := namedTests("./x -run TestA"); n != nil {
		t.Errorf("an unanchored -run names %v", n)
	}
}

func TestIsGoTest(t *testing.T) {
	for _, c := range []struct {
		path, name string
		want       bool
	}{
		{"a/x_test.go", "TestFoo", true},
		{"a/x_test.go", "TestMain", false},
		{"a/x_test.go", "BenchmarkFoo", false},
		{"a/x_test.go", "ExampleFoo", false},
		{"a/x.go", "TestFoo", false},
	} {
		if got := IsGoTest(c.path, c.name); got != c.want {
			t.Errorf("IsGoTest(%q, %q) = %v", c.path, c.name, got)
		}
	}
}

// TestGoParseExitDuringTest: a test that ends the test binary (log.Fatal,
// os.Exit, a crash) gets no end event from go test -json; it failed —
// grpc-go-2996's regression test calls code that log.Fatal's at the base —
// and the tests after it never ran.
func TestGoParseExitDuringTest(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(`package x

import (
	"log"
	"testing"
)

func TestA(t *testing.T) {}

func TestB(t *testing.T) { log.Fatal("no such file") }

func TestC(t *testing.T) {}
`), 0o644)
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("go test: %v, want exit status 1\n%s", err, out)
	}
	run, err := goRunner{}.Parse(nil, &sandbox.Result{Stdout: out, ExitCode: ee.ExitCode()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Outcome{}
	for _, tr := range run.Tests {
		got[tr.Name] = tr.Outcome
	}
	if got["TestA"] != OutcomePass || got["TestB"] != OutcomeFail || len(run.BuildFailed) != 0 {
		t.Errorf("outcomes %v, build failed %v; want TestA pass, TestB fail, no build failure", got, run.BuildFailed)
	}
	if o, ok := got["TestC"]; ok && o != OutcomeNotRun {
		t.Errorf("TestC %v after the binary exited", o)
	}
}

// TestGoParseRepeatedRuns: with -count=N a test that fails in one
// repetition and passes in the others failed, and one whose binary dies
// in a later repetition (a panic) failed too.
func TestGoParseRepeatedRuns(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(`package x

import "testing"

var a, b, c int

func TestA(t *testing.T) { a++; if a == 2 { t.Fatal("second run") } }

func TestB(t *testing.T) { b++ }

func TestC(t *testing.T) { c++; if c == 3 { var m map[int]int; m[0] = 1 } }
`), 0o644)
	cmd := exec.Command("go", "test", "-json", "-count=4", "-run", "^(TestA|TestB)$", ".")
	cmd.Dir = dir
	out, _ := cmd.Output()
	run, err := goRunner{}.Parse(nil, &sandbox.Result{Stdout: out, ExitCode: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := findTest(run.Tests, "TestA"), findTest(run.Tests, "TestB"); a == nil || b == nil || a.Outcome != OutcomeFail || b.Outcome != OutcomePass {
		t.Fatalf("-count=4: %+v, want TestA fail (its second run), TestB pass", run.Tests)
	}
	cmd = exec.Command("go", "test", "-json", "-count=4", "-run", "^TestC$", ".")
	cmd.Dir = dir
	out, _ = cmd.Output()
	run, err = goRunner{}.Parse(nil, &sandbox.Result{Stdout: out, ExitCode: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := findTest(run.Tests, "TestC"); c == nil || c.Outcome != OutcomeFail {
		t.Fatalf("-count=4, a panic in the third run: %+v, want TestC fail", run.Tests)
	}
}
