package impact_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/impact"
)

// mixins: test methods of a base class pytest never collects, run through
// the subclasses it does collect — by name (python_classes, here
// configured), or as unittest.TestCase subclasses; a Test class with an
// __init__ and a module outside testpaths are not collected.
var mixins = map[string]string{
	"pytest.ini":      "[pytest]\npython_classes = Test* Check\npython_functions = test* check_*\ntestpaths = tests\n",
	"pkg/__init__.py": "",
	"pkg/store.py": `class Store:
    def load(self, path):
        return path


def run(codec, data):
    return codec.encode(data)
`,
	"pkg/codecs.py": `class JSONCodec:
    def encode(self, data):
        return str(data)
`,
	"tests/__init__.py": "",
	"tests/test_io.py": `import unittest

from pkg.store import Store, run


class StoreIOBase:
    def test_load(self):
        Store().load("x")


class TestStoreIOJSON(StoreIOBase):
    fmt = "json"


class StoreIOYAML(StoreIOBase, unittest.TestCase):
    fmt = "yaml"


class CheckIO(StoreIOBase):
    pass


class TestOwnLoad(StoreIOBase):
    def test_load(self):
        pass


class TestWithInit(StoreIOBase):
    def __init__(self):
        self.x = 1


def check_run():
    run(None, {})


def helper_run():
    run(None, {})
`,
	"docs/test_example.py": `from pkg.store import Store


def test_doc():
    Store().load("y")
`,
}

// TestPytestSelectorsCollectable: every selector is a node id pytest, as
// the project configures it, collects — checked with the real pytest when
// it is installed (.ci/deps.sh installs python3-pytest).
func TestPytestSelectorsCollectable(t *testing.T) {
	root, s := build(t, mixins)
	res, err := impact.ForTarget(context.Background(), s, "Store.load", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range res.Tests {
		got = append(got, x.Selectors...)
		if len(x.Selectors) == 0 {
			got = append(got, x.Selector)
		}
	}
	slices.Sort(got)
	want := []string{"tests/test_io.py::CheckIO::test_load", "tests/test_io.py::StoreIOYAML::test_load", "tests/test_io.py::TestStoreIOJSON::test_load"}
	if !slices.Equal(got, want) {
		t.Errorf("selectors %q, want %q", got, want)
	}
	if len(res.Commands) != 1 || res.Commands[0] != "python -m pytest "+strings.Join(want, " ") {
		t.Errorf("commands %q", res.Commands)
	}
	collected := pytestCollect(t, root)
	if collected == nil {
		return
	}
	for _, id := range want {
		if !collected[id] {
			t.Errorf("pytest does not collect %s (collected: %v)", id, collected)
		}
	}
	// the name-only call codec.encode(…) reaches check_run (python_functions
	// = check_*), not helper_run, and the chain says how
	res, err = impact.ForTarget(context.Background(), s, "JSONCodec.encode", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sels := names(res.Tests, func(x impact.Test) string { return x.Selector }); !slices.Equal(sels, []string{"tests/test_io.py::check_run"}) {
		t.Fatalf("tests through codec.encode: %q", sels)
	}
	if !collected["tests/test_io.py::check_run"] {
		t.Errorf("pytest does not collect check_run: %v", collected)
	}
}

// pytestCollect runs pytest --collect-only in root and returns the node ids
// it collects; nil (the test skipped) without pytest.
func pytestCollect(t *testing.T, root string) map[string]bool {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(py, "-c", "import pytest").Run()
	}
	if err != nil {
		if _, e := os.Stat("/usr/bin/python3"); e == nil && exec.Command("/usr/bin/python3", "-c", "import pytest").Run() == nil {
			py, err = "/usr/bin/python3", nil
		}
	}
	if err != nil {
		t.Log("pytest is not installed (.ci/deps.sh installs python3-pytest): selectors not checked against it")
		return nil
	}
	cmd := exec.Command(py, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
	cmd.Dir = root
	out, _ := cmd.CombinedOutput() // exit 5 when nothing is collected
	ids := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "::") {
			ids[strings.TrimSpace(l)] = true
		}
	}
	return ids
}

// TestNameOnlyDispatch: a call of a method on a receiver of unknown type
// (codec.encode(…)) is a name-only edge impact walks and counts, and the
// test it reaches carries the chain that Chain (what path shows) returns.
func TestNameOnlyDispatch(t *testing.T) {
	_, s := build(t, mixins)
	ctx := context.Background()
	res, err := impact.ForTarget(ctx, s, "JSONCodec.encode", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dependents) == 0 || res.Dependents[0].QualifiedName != "run" || res.Dependents[0].Confidence != "name-only" {
		t.Fatalf("dependents %+v", res.Dependents)
	}
	if res.Risk.FanIn != 1 || !slices.ContainsFunc(res.Risk.Reasons, func(r string) bool { return strings.Contains(r, "name-only") }) {
		t.Errorf("risk %+v: the name-only dependents are not counted as such", res.Risk)
	}
	if len(res.Tests) != 1 {
		t.Fatalf("tests %+v", res.Tests)
	}
	tt := res.Tests[0]
	var chain []string
	for _, e := range tt.Chain {
		chain = append(chain, fmt.Sprintf("%s -%s/%s-> %s", e.FromName, e.Kind, e.Confidence, e.ToName))
	}
	want := []string{"check_run -calls/resolved-> run", "run -calls/name-only-> JSONCodec.encode"}
	if !slices.Equal(chain, want) {
		t.Errorf("chain %q, want %q", chain, want)
	}
	defs, err := graph.FindDefinitions(ctx, s, "JSONCodec.encode")
	if err != nil || len(defs) != 1 {
		t.Fatal(defs, err)
	}
	edges, err := impact.Chain(ctx, s, []graph.SymbolID{tt.SymbolID}, []graph.SymbolID{defs[0].ID}, 12, impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != len(tt.Chain) {
		t.Fatalf("Chain %+v, the test's chain %+v", edges, tt.Chain)
	}
	for i := range edges {
		if edges[i].From != tt.Chain[i].From || edges[i].To != tt.Chain[i].To {
			t.Errorf("Chain edge %d %s->%s, the test's %s->%s", i, edges[i].From, edges[i].To, tt.Chain[i].From, tt.Chain[i].To)
		}
	}
}

// TestNameOnlyNotInGo: in Go the resolver types receivers, so an
// unresolved x.Commit() is a library's method (here database/sql's), not a
// name-only caller of the repository's Commit.
func TestNameOnlyNotInGo(t *testing.T) {
	_, s := build(t, map[string]string{
		"go.mod":       "module example.com/db\n\ngo 1.22\n",
		"db/db.go":     "package db\n\nimport \"database/sql\"\n\ntype Batch struct{}\n\nfunc (Batch) Commit() error { return nil }\n\nfunc Save(tx *sql.Tx) error { return tx.Commit() }\n",
		"db/x_test.go": "package db\n\nimport \"testing\"\n\nfunc TestSave(t *testing.T) { Save(nil) }\n",
	})
	res, err := impact.ForTarget(context.Background(), s, "Batch.Commit", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dependents) != 0 || len(res.Tests) != 0 {
		t.Errorf("tx.Commit() of database/sql taken for Batch.Commit: dependents %+v, tests %+v", res.Dependents, res.Tests)
	}
}

// TestChangedTestsSelected: a diff that changes or adds tests selects
// them, though nothing reaches them from other changed code.
func TestChangedTestsSelected(t *testing.T) {
	root, _ := build(t, shop)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".cairn/\n"), 0o644)
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "base")
	p := filepath.Join(root, "pay", "pay_test.go")
	b, _ := os.ReadFile(p)
	b = []byte(strings.Replace(string(b), "func TestNothing(t *testing.T) {}", "func TestNothing(t *testing.T) { t.Log(\"x\") }", 1))
	b = append(b, "\nfunc TestAdded(t *testing.T) {}\n"...)
	os.WriteFile(p, b, 0o644)
	pp := filepath.Join(root, "py", "tests", "test_cart.py")
	b, _ = os.ReadFile(pp)
	os.WriteFile(pp, []byte(strings.Replace(string(b), "assert True", "assert 1", 1)), 0o644)
	s := index(t, root)
	res, err := impact.ForDiff(context.Background(), s, impact.Diff{}, impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := names(res.Tests, func(x impact.Test) string { return x.QualifiedName + " " + x.Why })
	want := []string{"TestAdded lines 32-33 changed", "TestNothing lines 25-25 changed", "test_other lines 14-14 changed"}
	if !slices.Equal(got, want) {
		t.Errorf("tests %q, want %q", got, want)
	}
	if slices.Contains(res.Risk.Reasons, "no test reaches the changed code") {
		t.Errorf("risk %v", res.Risk.Reasons)
	}
	want = []string{"go test ./pay -run '^(TestNothing|TestAdded)$'", "python -m pytest py/tests/test_cart.py::test_other"}
	if !slices.Equal(res.Commands, want) {
		t.Errorf("commands %q, want %q", res.Commands, want)
	}
}

// TestGoTestRuleAndScale: go test's rule decides what is a test (Testify is
// a helper), and a package with many selected tests runs whole rather than
// as a -run pattern of every name.
func TestGoTestRuleAndScale(t *testing.T) {
	var b strings.Builder
	b.WriteString("package big\n\nimport \"testing\"\n\nfunc Testify() int { return F() }\n\nfunc TestViaTestify(t *testing.T) { Testify() }\n")
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&b, "\nfunc TestCase%02d(t *testing.T) { F() }\n", i)
	}
	_, s := build(t, map[string]string{
		"go.mod":          "module example.com/big\n\ngo 1.22\n",
		"big/big.go":      "package big\n\nfunc F() int { return 1 }\n",
		"big/big_test.go": b.String(),
	})
	res, err := impact.ForTarget(context.Background(), s, "F", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Tests, func(x impact.Test) bool { return x.Name == "Testify" }) {
		t.Errorf("Testify, a helper, is selected as a test")
	}
	if !slices.ContainsFunc(res.Tests, func(x impact.Test) bool { return x.Name == "TestViaTestify" }) || len(res.Tests) != 71 {
		t.Errorf("%d tests", len(res.Tests))
	}
	if !slices.Equal(res.Commands, []string{"go test ./big"}) {
		t.Errorf("commands %q", res.Commands)
	}
}
