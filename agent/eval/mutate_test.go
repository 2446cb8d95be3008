package eval

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// assertionStyles asserts in every style the mutations neutralise, beside
// calls that are not assertions (marked keep).
const assertionStyles = `package p

import (
	"log"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/stretchr/testify/suite"
)

func TestStyles(t *testing.T) {
	got, err := f()
	if got != 1 {
		t.Errorf("got %d, want 1", got)
	}
	if diff := cmp.Diff(1, got); diff != "" {
		t.Fatalf("mismatch (-want +got):\n%s",
			diff)
	}
	assert.Equal(t, 1, got)
	require.NoError(t,
		err,
		"f failed: %v (%s)", err, ` + "`raw (\n  text`" + `)
	a := assert.New(t)
	a.True(got > 0)
	t.Run("sub", func(t *testing.T) {
		require.Eventually(t, func() bool {
			assert.Equal(t, 1, got) // inside the outer call: wrapped with it
			return true
		}, time.Second, time.Millisecond)
	})
	if !assert.NoError(t, err) { // keep: an assertion used as a value
		return
	}
	t.Log("keep")
	log.Printf("keep")
	log.Fatal("keep: an imported package's Fatal")
}

func TestGomega(t *testing.T) {
	g := NewWithT(t)
	g.Expect(f()).To(Equal(1))
	Expect(1).NotTo(BeZero())
	Ω(1).Should(Equal(1))
	Eventually(func() int { return 1 }).
		WithTimeout(time.Second).
		Should(Equal(1))
	Expect(1) // keep: no matcher, no assertion
}

type S struct{ suite.Suite }

func (s *S) TestSuite() {
	s.Equal(1, 1)
	s.Require().NoError(nil)
	s.Assert().True(true)
	s.T().Errorf("x")
	s.SetupTest() // keep
}

func helper(t *testing.T) { t.Helper(); t.FailNow() }

func f() (int, error) { return 1, nil }
`

// ifFalse counts, in a parsed source, the assertions the matcher finds
// outside and inside `if false {}` blocks.
func ifFalse(t *testing.T, src string) (live, dead int) {
	t.Helper()
	g, err := parseGoSource("out.go", src)
	if err != nil {
		t.Fatalf("the result does not parse: %v\n%s", err, src)
	}
	var walk func(n ast.Node, recv string, under bool)
	walk = func(n ast.Node, recv string, under bool) {
		ast.Inspect(n, func(c ast.Node) bool {
			if c == n {
				return true
			}
			switch c := c.(type) {
			case *ast.IfStmt:
				if id, ok := c.Cond.(*ast.Ident); ok && id.Name == "false" {
					walk(c.Body, recv, true)
					return false
				}
			case *ast.ExprStmt:
				if call, ok := c.X.(*ast.CallExpr); ok && g.isAssertion(call, recv) {
					if under {
						dead++
					} else {
						live++
					}
					return false
				}
			}
			return true
		})
	}
	for _, d := range g.file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
			recv := ""
			if fn.Recv != nil && len(fn.Recv.List[0].Names) == 1 {
				recv = fn.Recv.List[0].Names[0].Name
			}
			walk(fn.Body, recv, false)
		}
	}
	return live, dead
}

func TestNeutraliseStyles(t *testing.T) {
	for _, c := range []struct {
		name, recv string
		n          int
	}{
		// t.Errorf, t.Fatalf (multi-line), assert.Equal, require.NoError
		// (multi-line, a raw string), a.True, require.Eventually (whole)
		{"TestStyles", "", 6},
		// g.Expect, Expect, Ω, Eventually(…).WithTimeout(…).Should (multi-line)
		{"TestGomega", "", 4},
		// s.Equal, s.Require(), s.Assert(), s.T().Errorf
		{"TestSuite", "S", 4},
		{"helper", "", 1},
	} {
		out, n, err := neutraliseFunc(assertionStyles, c.name, c.recv)
		if err != nil || n != c.n {
			t.Errorf("%s: %d wrapped, want %d (%v)", c.name, n, c.n, err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "out.go", out, 0); err != nil {
			t.Fatalf("%s: the result does not parse: %v\n%s", c.name, err, out)
		}
	}
	out := neutralise(assertionStyles)
	live, dead := ifFalse(t, out)
	// if !assert.NoError(…) is a condition, not a statement
	if live != 0 || dead != 15 {
		t.Errorf("%d assertion statements live, %d under if false; want 0 and 15\n%s", live, dead, out)
	}
	for _, keep := range []string{"\n\tt.Log(\"keep\")\n", "\n\tlog.Printf(\"keep\")\n", "\n\tlog.Fatal(\"keep", "\n\tExpect(1) // keep", "\n\ts.SetupTest() // keep",
		"\n\tif !assert.NoError(t, err) { // keep"} {
		if !strings.Contains(out, keep) {
			t.Errorf("%q was changed:\n%s", keep, out)
		}
	}
	// multi-line calls whole, one tab in, a raw string's lines as they were
	for _, want := range []string{
		"\t\tif false {\n\t\t\tt.Fatalf(\"mismatch (-want +got):\\n%s\",\n\t\t\t\tdiff)\n\t\t}\n",
		"\tif false {\n\t\trequire.NoError(t,\n\t\t\terr,\n\t\t\t\"f failed: %v (%s)\", err, `raw (\n  text`)\n\t}\n",
		"\tif false {\n\t\tEventually(func() int { return 1 }).\n\t\t\tWithTimeout(time.Second).\n\t\t\tShould(Equal(1))\n\t}\n",
		"func helper(t *testing.T) { t.Helper(); if false { t.FailNow() } }",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want\n%s\nin\n%s", want, out)
		}
	}
	if _, _, err := neutraliseFunc(assertionStyles, "TestNone", ""); err == nil {
		t.Error("a missing function: no error")
	}
}

// a package's test files with helpers: TestA reaches mustEqual through
// check; TestB reaches (*harness).expect through newHarness, whose body
// names the type; TestC reaches no helper with an assertion.
var helperPkg = map[string]string{
	"a_test.go": `package p

import "testing"

func unrelated(t *testing.T) { t.Fatal("never called") }

func TestA(t *testing.T) {
	check(t, 1)
}

func TestC(t *testing.T) {
	_ = quiet()
}

func quiet() int { return 1 }
`,
	"helpers_test.go": `package p

import "testing"

func check(t *testing.T, got int) {
	t.Helper()
	mustEqual(t, got, 1)
}

func mustEqual(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

// expect of another type, which TestB does not reach
type other struct{}

func (other) expect(t *testing.T) { t.Fatal("no") }

type harness struct{ t *testing.T }

func newHarness(t *testing.T) *harness { return &harness{t: t} }

func (h *harness) expect(v int) {
	if v != 1 {
		h.t.Fatalf("v = %d", v)
	}
}
`,
	"b_test.go": `package p

import "testing"

func TestB(t *testing.T) {
	h := newHarness(t)
	h.expect(1)
}
`,
}

func TestFindHelper(t *testing.T) {
	repo := t.TempDir()
	dir := filepath.Join(repo, "pkg", "p")
	os.MkdirAll(dir, 0o755)
	for f, src := range helperPkg {
		os.WriteFile(filepath.Join(dir, f), []byte(src), 0o644)
	}
	for test, want := range map[string]helperRef{
		"TestA": {File: "pkg/p/helpers_test.go", Name: "mustEqual"},
		"TestB": {File: "pkg/p/helpers_test.go", Name: "expect", Recv: "harness"},
	} {
		h, err := findHelper(repo, "pkg/p", test)
		if err != nil || h != want {
			t.Errorf("%s: helper %+v, %v; want %+v", test, h, err, want)
		}
	}
	if h, err := findHelper(repo, "pkg/p", "TestC"); err == nil {
		t.Errorf("TestC reaches no assertion helper, found %+v", h)
	}
	// the helper made vacuous: its assertion under if false, nothing else
	if err := neutraliseIn(repo, "pkg/p/helpers_test.go", "expect", "harness"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "helpers_test.go"))
	if !strings.Contains(string(b), "\tif v != 1 {\n\t\tif false {\n\t\t\th.t.Fatalf(\"v = %d\", v)\n\t\t}\n\t}\n") ||
		!strings.Contains(string(b), "func (other) expect(t *testing.T) { t.Fatal(\"no\") }") {
		t.Errorf("helpers_test.go:\n%s", b)
	}
	if err := neutraliseIn(repo, "pkg/p/a_test.go", "quiet", ""); err == nil {
		t.Error("a function without assertions: no error")
	}
}

func TestFixPackage(t *testing.T) {
	repo := t.TempDir()
	for f, src := range map[string]string{"a/z.go": "package alpha\n", "b/y.go": "// doc\npackage beta\n", "b/x_test.go": "package beta\n"} {
		os.MkdirAll(filepath.Join(repo, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(repo, f), []byte(src), 0o644)
	}
	fix := []string{"README.md", "b/x_test.go", "b/y.go", "a/z.go"}
	for _, c := range []struct {
		testDirs       []string
		wantDir, wantP string
	}{{nil, "b", "beta"}, {[]string{"a"}, "a", "alpha"}} {
		if d, p, err := fixPackage(repo, fix, c.testDirs); err != nil || d != c.wantDir || p != c.wantP {
			t.Errorf("tests in %v: %s %s %v, want %s %s", c.testDirs, d, p, err, c.wantDir, c.wantP)
		}
	}
	if _, _, err := fixPackage(repo, []string{"README.md", "b/x_test.go"}, nil); err == nil {
		t.Error("a fix of no Go package: no error")
	}
	if n := issueNumber("grpc__grpc-go-3476"); n != "3476" {
		t.Errorf("issueNumber: %q", n)
	}
}

// goTest runs go test in a module of its own (standard library only).
func goTest(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-count=1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestVacuousAndExit makes the vacuous_regression and harness_exit files
// in a small module and runs them: the vacuous test passes with its
// constant and does not build without it; a TestMain that exits 0 makes a
// failing test's package pass, added or edited into an existing TestMain.
func TestVacuousAndExit(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644)
	for f, src := range map[string]string{
		"fixed/code.go":      "package fixed\n\nfunc F() int { return 1 }\n",
		"exit/exit_test.go":  "package exit_test\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Fatal(\"fails\") }\n",
		"main/m_test.go":     "package main\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tcode := m.Run()\n\tos.Exit(code)\n}\n",
		"main/fails_test.go": "package main\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Error(\"fails\") }\n",
		"main/main.go":       "package main\n\nfunc main() {}\n",
	} {
		os.MkdirAll(filepath.Join(mod, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(mod, f), []byte(src), 0o644)
	}

	test, err := writeVacuous(mod, "fixed", "fixed", "org__repo-42")
	if err != nil || test != "TestFixedIssue42" {
		t.Fatalf("writeVacuous: %q %v", test, err)
	}
	prod, _ := os.ReadFile(filepath.Join(mod, "fixed", "cairn_fixed.go"))
	tf, _ := os.ReadFile(filepath.Join(mod, "fixed", "cairn_fixed_test.go"))
	if !strings.HasPrefix(string(prod), "package fixed\n") || !strings.Contains(string(prod), "const fixedIssue42 = true") ||
		!strings.HasPrefix(string(tf), "package fixed\n") || !strings.Contains(string(tf), "func TestFixedIssue42(t *testing.T)") {
		t.Errorf("the vacuous files:\n%s\n%s", prod, tf)
	}
	if _, err := writeVacuous(mod, "fixed", "fixed", "org__repo-42"); err == nil {
		t.Error("writeVacuous over its own files: no error")
	}

	what, err := addExitMain(mod, "exit", "exit_test")
	if err != nil || !strings.Contains(what, "added in exit/cairn_main_test.go") {
		t.Fatalf("addExitMain (new): %q %v", what, err)
	}
	what, err = addExitMain(mod, "main", "main")
	if err != nil || !strings.Contains(what, "TestMain of main/m_test.go") {
		t.Fatalf("addExitMain (existing): %q %v", what, err)
	}
	if _, err := os.Stat(filepath.Join(mod, "main", exitMainFile)); err == nil {
		t.Error("a second TestMain was added beside the existing one")
	}

	if out, err := goTest(t, mod, "./fixed", "./exit", "./main"); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	os.Remove(filepath.Join(mod, "fixed", "cairn_fixed.go"))
	if out, err := goTest(t, mod, "./fixed"); err == nil || !strings.Contains(out, "undefined: fixedIssue42") {
		t.Errorf("without the constant the package should not build: %v\n%s", err, out)
	}
}
