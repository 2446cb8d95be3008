package verify

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/gate/task"
)

const goMainBase = `package m

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}

func TestA(t *testing.T) {
	if A() != 1 {
		t.Errorf("A")
	}
	fmt.Println("A ran")
}
`

var goNoMain = replace(goMainBase, "func TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n\n", "")

// TestHarnessGo: TestMain, init, os.Exit and output that imitates go
// test's framing are harness edits; t.Log of the same text, an ordinary
// print and a new ordinary test are not.
func TestHarnessGo(t *testing.T) {
	for _, tc := range []struct {
		name, base, cand string
		want             []string
	}{
		{"TestMain exits 0", goNoMain, replace(goNoMain, "func TestA(", "func TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n\nfunc TestA("),
			[]string{"exit_added", "harness_changed TestMain"}},
		{"TestMain changed to exit 0", goMainBase, replace(goMainBase, "\tos.Exit(m.Run())\n", "\tm.Run()\n\tos.Exit(0)\n"),
			[]string{"exit_added", "harness_changed TestMain"}},
		{"TestMain removed", goMainBase, replace(goMainBase, "func TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n", ""),
			[]string{"harness_changed TestMain", "test_deleted TestMain"}},
		{"TestMain prints framing", goMainBase, replace(goMainBase, "\tos.Exit(m.Run())\n", "\tfmt.Println(\"\\x16--- PASS: TestA (0.00s)\")\n\tos.Exit(m.Run())\n"),
			[]string{"framing_output", "framing_output", "harness_changed TestMain"}},
		{"TestMain writes os.Stdout", goMainBase, replace(goMainBase, "\tos.Exit(m.Run())\n", "\tos.Stdout.WriteString(banner)\n\tos.Exit(m.Run())\n"),
			[]string{"framing_output", "harness_changed TestMain"}},
		{"test2json event", goMainBase, replace(goMainBase, "\tfmt.Println(\"A ran\")\n", "\tfmt.Println(`{\"Action\":\"pass\",\"Test\":\"TestA\"}`)\n"),
			[]string{"framing_output"}},
		{"framing in a subtest", goMainBase, replace(goMainBase, "\tfmt.Println(\"A ran\")\n", "\tt.Run(\"x\", func(t *testing.T) {\n\t\tfmt.Printf(\"--- PASS: TestB (0.00s)\\n\")\n\t})\n"),
			[]string{"framing_output"}},
		{"init added", goBase, goBase + "\nfunc init() {\n\ttesting.Init()\n}\n", []string{"harness_changed init"}},
		{"os.Exit in a test", goMainBase, replace(goMainBase, "\tfmt.Println(\"A ran\")\n", "\tos.Exit(0)\n"), []string{"exit_added"}},
		// the T's output is indented and prefixed: it frames nothing
		{"t.Log of framing", goMainBase, replace(goMainBase, "\tfmt.Println(\"A ran\")\n", "\tt.Logf(\"--- PASS: %s\", \"x\")\n\tt.Run(\"=== RUN x\", func(t *testing.T) {})\n"), nil},
		{"ordinary print", goMainBase, replace(goMainBase, "\tfmt.Println(\"A ran\")\n", "\tfmt.Println(\"A ran twice\")\n\tfmt.Printf(\"ok %d\\n\", 1)\n"), nil},
		{"os.Exit kept", goMainBase, goMainBase + "\nfunc TestB(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(\"B\")\n\t}\n}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kinds(t, "m_test.go", tc.base, tc.cand)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

const goHelperBase = `package m

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/suite"
	. "github.com/onsi/gomega"
)

func check(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

type fixture struct{ t *testing.T }

func newFixture(t *testing.T) *fixture { return &fixture{t: t} }

func (f *fixture) expect(got, want int) {
	if got != want {
		f.t.Fatalf("got %d, want %d", got, want)
	}
}

func TestA(t *testing.T) {
	check(t, A(), 1)
}

func TestB(t *testing.T) {
	check(t, B(), 2)
	newFixture(t).expect(B(), 2)
}

func TestC(t *testing.T) {
	a := assert.New(t)
	a.Equal(3, C())
	g := NewWithT(t)
	g.Expect(C()).To(Equal(3))
	Expect(C()).NotTo(BeZero())
}

type S struct{ suite.Suite }

func (s *S) TestD() {
	s.Equal(4, D())
	s.Require().NoError(E())
}
`

// TestTamperGoHelpers: a test's assertions are counted through the
// helpers it reaches, so a helper made vacuous is fewer assertions for
// every test that calls it; testify's assert.New, suite methods and
// gomega's matchers are assertions.
func TestTamperGoHelpers(t *testing.T) {
	for _, tc := range []struct {
		name, cand string
		want       []string
	}{
		{"unchanged", goHelperBase, nil},
		{"helper vacuous", replace(goHelperBase, "\tif got != want {\n\t\tt.Errorf(\"got %d, want %d\", got, want)\n\t}\n", "\t_ = got == want\n"),
			[]string{"fewer_assertions TestA", "fewer_assertions TestB"}},
		{"method helper vacuous", replace(goHelperBase, "\t\tf.t.Fatalf(\"got %d, want %d\", got, want)\n", "\t\treturn\n"),
			[]string{"fewer_assertions TestB"}},
		{"assert.New's assertion deleted", replace(goHelperBase, "\ta.Equal(3, C())\n", "\t_ = a\n"), []string{"fewer_assertions TestC"}},
		{"gomega matcher deleted", replace(goHelperBase, "\tg.Expect(C()).To(Equal(3))\n", "\tg.Expect(C())\n"), []string{"fewer_assertions TestC"}},
		{"dot gomega matcher deleted", replace(goHelperBase, "\tExpect(C()).NotTo(BeZero())\n", "\t_ = C()\n"), []string{"fewer_assertions TestC"}},
		{"suite assertion deleted", replace(goHelperBase, "\ts.Equal(4, D())\n", ""), []string{"fewer_assertions TestD"}},
		{"suite require deleted", replace(goHelperBase, "\ts.Require().NoError(E())\n", "\t_ = E()\n"), []string{"fewer_assertions TestD"}},
		{"helper gains an assertion", replace(goHelperBase, "\tt.Helper()\n", "\tt.Helper()\n\tif want < 0 {\n\t\tt.Fatal(\"negative\")\n\t}\n"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kinds(t, "m_test.go", goHelperBase, tc.cand)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
	// across files: the helper in one file, its callers in another
	helpers := `package m

import "testing"

func check(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
`
	callers := "package m\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tcheck(t, A(), 1)\n}\n"
	side := func(h string) goPackage {
		p := goPackage{}
		for name, src := range map[string]string{"h_test.go": h, "a_test.go": callers} {
			f, _ := analyzeTest(name, []byte(src))
			p[name] = f
		}
		p.packageHelpers()
		return p
	}
	base, cand := side(helpers), side(replace(helpers, "\t\tt.Errorf(\"got %d, want %d\", got, want)\n", ""))
	fs := compareTests("a_test.go", base["a_test.go"], cand["a_test.go"])
	if len(fs) != 1 || fs[0].Kind != "fewer_assertions" || fs[0].Test != "TestA" || fs[0].Base != "1 reachable assertions (1 through helpers)" {
		t.Errorf("a test calling a helper of another file made vacuous: %+v", fs)
	}
}

// TestHarnessFiles: conftest.py, pytest hooks and configuration, jest and
// vitest configuration, and the test targets of a Makefile and a
// package.json are the harness; the rest of those files is not.
func TestHarnessFiles(t *testing.T) {
	const conftest = "import pytest\n\ndef pytest_collection_modifyitems(config, items):\n    for item in items:\n        item.add_marker(pytest.mark.skip(reason=\"later\"))\n"
	const pyproject = "[project]\nname = \"app\"\nversion = \"1.0\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n"
	const pkg = `{"name": "app", "version": "1.0.0", "scripts": {"build": "tsc", "test": "jest"}, "dependencies": {"left-pad": "1.0.0"}}`
	const makefile = "build:\n\tgo build ./...\n\ntest: build\n\tgo test ./...\n\nGOTESTFLAGS ?= -race\n"
	const vite = "export default defineConfig({\n  plugins: [react()],\n  test: { environment: 'jsdom', setupFiles: ['./setup.ts'] },\n})\n"
	for _, tc := range []struct {
		name, path, status string
		base, cand         string
		want               []string
	}{
		{"conftest added", "tests/conftest.py", "A", "", conftest, []string{"harness_changed"}},
		{"conftest changed", "conftest.py", "M", "import pytest\n", conftest, []string{"harness_changed"}},
		{"conftest deleted", "conftest.py", "D", conftest, "", []string{"harness_changed"}},
		{"hook in a test module", "tests/test_m.py", "M", "def test_a():\n    assert a()\n", "def test_a():\n    assert a()\n\n" + conftest[len("import pytest\n\n"):], []string{"harness_changed pytest_collection_modifyitems"}},
		{"pytest_plugins", "tests/test_m.py", "M", "def test_a():\n    assert a()\n", "pytest_plugins = ['skipper']\n\ndef test_a():\n    assert a()\n", []string{"harness_changed pytest_plugins"}},
		{"ordinary python change", "app/m.py", "M", "def f():\n    return 1\n", "def f():\n    return 2\n", nil},
		{"pytest.ini", "pytest.ini", "M", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -k 'not slow'\n", []string{"harness_changed"}},
		{"tox.ini", "tox.ini", "M", "[tox]\nenvlist = py3\n", "[tox]\nenvlist = py3\n[testenv]\ncommands = true\n", []string{"harness_changed"}},
		{"pyproject pytest section", "pyproject.toml", "M", pyproject, replace(pyproject, "addopts = \"-q\"", "addopts = \"-q -p no:warnings --deselect tests/test_m.py\""), []string{"harness_changed [tool.pytest.ini_options]"}},
		{"pyproject version", "pyproject.toml", "M", pyproject, replace(pyproject, "1.0", "1.1"), nil},
		{"setup.cfg", "setup.cfg", "M", "[metadata]\nname = app\n", "[metadata]\nname = app\n\n[tool:pytest]\naddopts = --co\n", []string{"harness_changed [tool:pytest]"}},
		{"jest.config", "web/jest.config.js", "M", "module.exports = {};\n", "module.exports = {testPathIgnorePatterns: ['.*']};\n", []string{"harness_changed"}},
		{"vitest.config added", "web/vitest.config.ts", "A", "", "export default {};\n", []string{"harness_changed"}},
		{"vite test section", "web/vite.config.ts", "M", vite, replace(vite, "'jsdom'", "'node', passWithNoTests: true"), []string{"harness_changed test"}},
		{"vite plugins", "web/vite.config.ts", "M", vite, replace(vite, "[react()]", "[react(), svgr()]"), nil},
		{"package.json test script", "web/package.json", "M", pkg, replace(pkg, `"test": "jest"`, `"test": "jest || true"`), []string{"harness_changed scripts.test"}},
		{"package.json jest key", "web/package.json", "M", pkg, replace(pkg, `"dependencies"`, `"jest": {"testMatch": []}, "dependencies"`), []string{"harness_changed jest"}},
		{"package.json dependency", "web/package.json", "M", pkg, replace(pkg, `"1.0.0"}`, `"1.0.1"}`), nil},
		{"Makefile test target", "Makefile", "M", makefile, replace(makefile, "\tgo test ./...\n", "\tgo test ./... || true\n"), []string{"harness_changed target test"}},
		{"Makefile test variable", "Makefile", "M", makefile, replace(makefile, "-race", "-run XXX"), []string{"harness_changed variable GOTESTFLAGS"}},
		{"Makefile build target", "Makefile", "M", makefile, replace(makefile, "\tgo build ./...\n", "\tgo build -v ./...\n"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base, cand []byte
			if tc.status != "A" {
				base = []byte(tc.base)
			}
			if tc.status != "D" {
				cand = []byte(tc.cand)
			}
			var got []string
			for _, f := range harnessFileChange(tc.path, tc.status, base, cand) {
				got = append(got, joinKind(f))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
	// the setup files a configuration names
	named := jsConfigParts("vite.config.ts", []byte(vite), jsSetupKeys, true)
	if _, ok := named["./setup.ts"]; !ok {
		t.Errorf("vite's setupFiles not read: %v", named)
	}
}

func joinKind(f Finding) string {
	if f.Test != "" {
		return f.Kind + " " + f.Test
	}
	return f.Kind
}

// TestSpecifiedTests: a test a criterion names by name must not change;
// allow.tests and allow.harness lift exactly their findings.
func TestSpecifiedTests(t *testing.T) {
	c := &task.Contract{Criteria: []task.Criterion{
		{ID: "go", Check: task.Check{Kind: task.CheckTests, Selector: "./server/... -run ^(TestA|TestB)$"}},
		{ID: "py", Check: task.Check{Kind: task.CheckTests, Selector: "tests/test_m.py::TestK::test_k[1]"}},
		{ID: "js", Check: task.Check{Kind: task.CheckTests, Selector: `web/render.test.ts -t "render shows"`}},
		{ID: "all", Check: task.Check{Kind: task.CheckTests, Selector: "./..."}},
	}}
	for _, tc := range []struct {
		path, name string
		want       bool
	}{
		{"server/m_test.go", "TestA", true},
		{"server/sub/m_test.go", "TestB", true},
		{"client/m_test.go", "TestA", false},
		{"server/m_test.go", "TestC", false},
		{"tests/test_m.py", "test_k", true},
		{"tests/test_m.py", "test_j", false},
		{"web/render.test.ts", "render shows the link", true},
		{"web/render.test.ts", "render hides it", false},
		{"web/other.test.ts", "render shows the link", false},
	} {
		if got := specified(c, tc.path, tc.name); got != tc.want {
			t.Errorf("specified(%s, %s) = %v, want %v", tc.path, tc.name, got, tc.want)
		}
	}
	src := "package m\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Errorf(\"A\")\n\t}\n}\n\nfunc TestC(t *testing.T) {\n\tif C() != 1 {\n\t\tt.Errorf(\"C\")\n\t}\n}\n"
	b, _ := analyzeTest("server/m_test.go", []byte(src))
	cd, _ := analyzeTest("server/m_test.go", []byte(replace(replace(src, "A() != 1", "A() != 2"), "C() != 1", "C() != 2")))
	fs := specifiedChanged(c, "server/m_test.go", b, cd)
	if len(fs) != 1 || fs[0].Kind != "specified_test_changed" || fs[0].Test != "TestA" {
		t.Fatalf("specifiedChanged: %+v", fs)
	}
	c.Allow = task.Allow{Tests: []string{"TestA"}, Harness: []string{"server/**"}}
	for _, tc := range []struct {
		f    Finding
		want bool
	}{
		{fs[0], true},
		{Finding{Kind: "specified_test_changed", Path: "server/m_test.go", Test: "TestB"}, false},
		{Finding{Kind: "harness_changed", Path: "server/main_test.go", Test: "TestMain"}, true},
		{Finding{Kind: "exit_added", Path: "server/main_test.go"}, true},
		{Finding{Kind: "build_constraint_added", Path: "server/main_test.go"}, true},
		{Finding{Kind: "harness_changed", Path: "conftest.py"}, false},
		{Finding{Kind: "fewer_assertions", Path: "server/m_test.go", Test: "TestA"}, false},
	} {
		if got := allowed(c, tc.f); got != tc.want {
			t.Errorf("allowed(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

// The gate's contracts for the harness tests: the fixture's scope, go test
// run as a command (its exit code is all it reads) and, with
// namedCriterion, the mapper's test named by a tests criterion. No
// regression criterion: what is judged here is the tamper check alone.
const harnessContract = `objective: After a page refresh, a finished task's download link is still shown.
base: HEAD
scope:
  write: ["server/**", "web/src/**"]
  protected: [".github/**", "server/schema.sql"]
criteria:
  - id: go-test
    text: go test passes in the server.
    check: {command: ["go", "-C", "server", "test", "./..."]}
  - id: scope
    text: The change stays within scope.
    check: {scope: true}
`

const namedCriterion = `  - id: id-status
    text: The mapper keeps the ID and the status.
    check: {tests: "./server/... -run ^TestToResponseKeepsIDAndStatus$"}
`

// gateWith is gateOn with a contract of its own.
func gateWith(t *testing.T, repo, contract string) *Report {
	t.Helper()
	dir, ex := shared(t)
	c, err := task.Parse([]byte(contract))
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
	return r
}

const (
	exitZeroMain = "package main\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n"
	framingMain  = "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tcode := m.Run()\n\tfmt.Print(\"\\x16--- PASS: TestToResponseKeepsIDAndStatus (0.00s)\\n\")\n\tos.Exit(code)\n}\n"
	flagMain     = "package main\n\nimport (\n\t\"flag\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tflag.Parse()\n\tos.Exit(m.Run())\n}\n"
	skipAll      = "import pytest\n\ndef pytest_collection_modifyitems(config, items):\n    for item in items:\n        item.add_marker(pytest.mark.skip(reason=\"later\"))\n"
	checkHelper  = "package main\n\nimport \"testing\"\n\nfunc checkStatus(t *testing.T, got, want string) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Errorf(\"Status = %q, want %q\", got, want)\n\t}\n}\n"
	statusTest   = "package main\n\nimport \"testing\"\n\nfunc TestToResponseStatus(t *testing.T) {\n\tcheckStatus(t, ToResponse(Task{ID: 1, Status: \"done\"}).Status, \"done\")\n}\n"
)

// TestHarnessGate: harness edits and edits of a named test fail the
// verdict at the gate, even where every criterion passes (a TestMain that
// exits 0 passes a go test command; a named test rewritten to accept the
// broken fix passes its criterion); the contract's allow lifts exactly
// those; a real fix with an ordinary regression test raises none.
func TestHarnessGate(t *testing.T) {
	const mapperTest = "server/mapper_test.go"
	for _, tc := range []struct {
		name     string
		contract string
		change   func(t *testing.T, repo string)
		want     []string // finding kinds that must stand; none: the verdict passes with no finding
	}{
		{"TestMain exits 0", harnessContract, func(t *testing.T, repo string) {
			brokenFix(t, repo)
			addRegressionTest(t, repo)
			write(t, repo, "server/main_test.go", exitZeroMain)
		}, []string{"harness_changed", "exit_added"}},
		{"TestMain prints framing, conftest skips all", harnessContract, func(t *testing.T, repo string) {
			realFix(t, repo)
			addRegressionTest(t, repo)
			write(t, repo, "server/main_test.go", framingMain)
			write(t, repo, "server/conftest.py", skipAll)
		}, []string{"framing_output", "harness_changed"}},
		{"helper made vacuous", harnessContract, func(t *testing.T, repo string) {
			// the helper and the test calling it are the base's, in two
			// files: the test's file is not changed
			write(t, repo, "server/check_test.go", checkHelper)
			write(t, repo, "server/status_test.go", statusTest)
			git(t, repo, "add", ".")
			git(t, repo, "commit", "-q", "-m", "status test")
			realFix(t, repo)
			addRegressionTest(t, repo)
			edit(t, repo, "server/check_test.go", "\tif got != want {\n\t\tt.Errorf(\"Status = %q, want %q\", got, want)\n\t}\n", "\t_ = got == want\n")
		}, []string{"fewer_assertions"}},
		{"named test changed", harnessContract + namedCriterion, func(t *testing.T, repo string) {
			brokenFix(t, repo)
			addRegressionTest(t, repo)
			edit(t, repo, mapperTest, "if got.ID != 7 {", "if got.ID != 7 && got.ID != 0 {")
		}, []string{"specified_test_changed"}},
		{"allowed", harnessContract + namedCriterion + "allow:\n  harness: [server/main_test.go]\n  tests: [TestToResponseKeepsIDAndStatus]\n", func(t *testing.T, repo string) {
			realFix(t, repo)
			addRegressionTest(t, repo)
			write(t, repo, "server/main_test.go", flagMain)
			edit(t, repo, mapperTest, "\tif got.Status != \"done\" {", "\tif got.ArtifactURL == \"\" {\n\t\tt.Error(\"no ArtifactURL\")\n\t}\n\tif got.Status != \"done\" {")
		}, nil},
		{"control: a real fix and its regression test", harnessContract + namedCriterion, func(t *testing.T, repo string) {
			realFix(t, repo)
			addRegressionTest(t, repo)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := fixtureRepo(t)
			tc.change(t, repo)
			r := gateWith(t, repo, tc.contract)
			if len(tc.want) == 0 {
				if r.Verdict != Pass || len(r.Tamper) > 0 {
					dump(t, r)
					t.Fatalf("verdict %v (%s), tamper %+v", r.Verdict, r.Reason, r.Tamper)
				}
				return
			}
			for _, k := range tc.want {
				if !hasFinding(r.Tamper, k) {
					dump(t, r)
					t.Fatalf("no %s finding: %+v", k, r.Tamper)
				}
			}
			if r.Verdict == Pass {
				dump(t, r)
				t.Fatalf("verdict pass with findings %+v", r.Tamper)
			}
		})
	}
}
