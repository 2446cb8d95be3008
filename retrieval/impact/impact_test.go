package impact_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/impact"
)

var shop = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"pay/pay.go": `package pay

import "errors"

// Charger takes payments.
type Charger interface {
	Charge(n int) error
}

// Card is a Charger.
type Card struct{}

// Charge implements Charger.
func (Card) Charge(n int) error {
	return validate(n)
}

func validate(n int) error {
	if n <= 0 {
		return errors.New("amount must be positive")
	}
	return nil
}

// Checkout charges through the interface.
func Checkout(c Charger, n int) error {
	return c.Charge(n)
}
`,
	"pay/pay_test.go": `package pay

import "testing"

func TestValidate(t *testing.T) {
	if validate(1) != nil {
		t.Fatal("1 is valid")
	}
}

func TestCheckout(t *testing.T) {
	if Checkout(Card{}, 1) != nil {
		t.Fatal("checkout")
	}
}

func helper() error { return validate(2) }

func TestViaHelper(t *testing.T) {
	if helper() != nil {
		t.Fatal("helper")
	}
}

func TestNothing(t *testing.T) {}

func BenchmarkValidate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		validate(3)
	}
}
`,
	"api/api.go": `package api

import "example.com/shop/pay"

// Handle serves a purchase.
func Handle() error { return pay.Checkout(pay.Card{}, 5) }
`,
	"api/api_test.go": `package api

import "testing"

func TestHandle(t *testing.T) {
	if Handle() != nil {
		t.Fatal("handle")
	}
}
`,
	"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestUnrelated(t *testing.T) {}\n",
	".github/CODEOWNERS":  "# owners\n* @everyone\n/pay/ @payments @alice\n",
	"py/shop/cart.py":     "def total(items):\n    return sum(items)\n",
	"py/tests/test_cart.py": `from shop.cart import total


class TestTotal:
    def test_sum(self):
        assert total([1, 2]) == 3


def test_empty():
    assert total([]) == 0


def test_other():
    assert True
`,
}

func build(t *testing.T, files map[string]string) (string, *embedded.Store) {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		fp := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(fp), 0o755)
		if err := os.WriteFile(fp, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, index(t, root)
}

func index(t *testing.T, root string) *embedded.Store {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(root, ".cairn")
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Run(ctx, w, indexer.Options{Root: root, StateDir: dir, NoSCIPDiscovery: true, ExcludeDirs: []string{".cairn"}}); err != nil {
		t.Fatal(err)
	}
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func names[T any](xs []T, f func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, f(x))
	}
	slices.Sort(out)
	return out
}

func TestGoImpact(t *testing.T) {
	root, s := build(t, shop)
	res, err := impact.ForTarget(context.Background(), s, "validate", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	res.WriteText(&text, 0)
	tests := names(res.Tests, func(x impact.Test) string { return x.QualifiedName })
	want := []string{"BenchmarkValidate", "TestCheckout", "TestHandle", "TestValidate", "TestViaHelper"}
	if !slices.Equal(tests, want) {
		t.Errorf("tests %v, want %v\n%s", tests, want, text.String())
	}
	deps := names(res.Dependents, func(x impact.Symbol) string { return x.QualifiedName })
	for _, d := range []string{"Card.Charge", "helper", "Checkout"} {
		if !slices.Contains(deps, d) {
			t.Errorf("dependent %s missing: %v", d, deps)
		}
	}
	// each dependent names what it uses one edge closer to the change:
	// a changed symbol at depth 1, a dependent one depth less beyond
	// (or, for an interface method a dependent implements, at its depth)
	depthOf := map[graph.SymbolID]int{}
	for _, c := range res.Changed {
		depthOf[c.SymbolID] = 0
	}
	for _, d := range res.Dependents {
		depthOf[d.SymbolID] = d.Depth
	}
	for _, d := range res.Dependents {
		if d.QualifiedName == "Card.Charge" && (d.Depth != 1 || d.Via != "calls") {
			t.Errorf("Card.Charge at depth %d via %s", d.Depth, d.Via)
		}
		if du, ok := depthOf[d.Uses]; !ok || du != d.Depth-1 && !(du == d.Depth && d.Via == "implements") {
			t.Errorf("%s at depth %d uses %q (depth %d, known %v)", d.QualifiedName, d.Depth, d.Uses, du, ok)
		}
	}
	cmds := strings.Join(res.Commands, "\n")
	if !strings.Contains(cmds, "go test ./pay -run '^(TestValidate|TestCheckout|TestViaHelper)$' -bench '^(BenchmarkValidate)$' -benchtime 1x") ||
		!strings.Contains(cmds, "go test ./api -run '^(TestHandle)$'") {
		t.Errorf("commands:\n%s", cmds)
	}
	if strings.Contains(cmds, "TestNothing") || strings.Contains(cmds, "TestUnrelated") {
		t.Errorf("unaffected tests selected:\n%s", cmds)
	}
	if len(res.Owners) == 0 || !slices.Equal(res.Owners[0].Owners, []string{"@payments", "@alice"}) || !res.Owners[0].Changed {
		t.Errorf("owners %+v", res.Owners)
	}
	if !slices.ContainsFunc(res.Owners, func(o impact.Owner) bool { return o.Pattern == "*" && o.Owners[0] == "@everyone" }) {
		t.Errorf("the api package's owner is missing: %+v", res.Owners)
	}
	if res.Risk.Level == "" || len(res.Risk.Reasons) == 0 || res.Risk.Public {
		t.Errorf("risk %+v", res.Risk)
	}
	// the commands run, and run exactly the selected tests
	for _, c := range res.Commands {
		cmd := exec.Command("sh", "-c", c+" -v -count=1")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
		if strings.Contains(string(out), "TestNothing") {
			t.Errorf("%s ran an unselected test:\n%s", c, out)
		}
	}
}

// TestTestsThroughFunctionValues: past the listed depth, a test still
// reaches the change through a function used as a value (a handler table,
// a seam variable) and the variable holding it.
func TestTestsThroughFunctionValues(t *testing.T) {
	_, s := build(t, map[string]string{
		"go.mod": "module example.com/fv\n\ngo 1.22\n",
		"fv/fv.go": `package fv

func step(n int) int { return n + 1 }

func wrap(n int) int { return step(n) * 2 }

var handlers = map[string]func(int) int{"wrap": wrap}

var seam = wrap

// Analysis is run through its Run field.
type Analysis struct{ Run func(int) int }

// Analyzer's Run is wrap.
var Analyzer = &Analysis{Run: wrap}

// Dispatch runs the named handler.
func Dispatch(name string, n int) int { return handlers[name](n) }
`,
		"fv/fv_test.go": `package fv

import "testing"

func TestDispatch(t *testing.T) {
	if Dispatch("wrap", 1) != 4 {
		t.Fatal("wrap")
	}
}

func TestSeam(t *testing.T) {
	if seam(1) != 4 {
		t.Fatal("seam")
	}
}

func TestAnalyzer(t *testing.T) {
	if Analyzer.Run(1) != 4 {
		t.Fatal("analyzer")
	}
}

func TestUnrelated(t *testing.T) {}
`,
	})
	res, err := impact.ForTarget(context.Background(), s, "step", impact.Options{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	res.WriteText(&text, 0)
	tests := names(res.Tests, func(x impact.Test) string { return x.QualifiedName })
	if want := []string{"TestAnalyzer", "TestDispatch", "TestSeam"}; !slices.Equal(tests, want) {
		t.Errorf("tests %v, want %v\n%s", tests, want, text.String())
	}
}

func TestGoImpactCommandsRun(t *testing.T) {
	root, s := build(t, shop)
	res, err := impact.ForTarget(context.Background(), s, "Handle", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 1 {
		t.Fatalf("commands %v", res.Commands)
	}
	cmd := exec.Command("sh", "-c", res.Commands[0]+" -v -count=1")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", res.Commands[0], err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestHandle") {
		t.Errorf("TestHandle did not run:\n%s", out)
	}
}

func TestImplementations(t *testing.T) {
	_, s := build(t, shop)
	res, err := impact.ForTarget(context.Background(), s, "Charger.Charge", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	impls := names(res.Implementations, func(x impact.Symbol) string { return x.QualifiedName })
	if !slices.Contains(impls, "Card.Charge") {
		t.Errorf("implementations %v", impls)
	}
	if !slices.ContainsFunc(res.Tests, func(x impact.Test) bool { return x.QualifiedName == "TestCheckout" }) {
		t.Errorf("TestCheckout calls through the interface, not selected")
	}
}

func TestPythonSelectors(t *testing.T) {
	_, s := build(t, shop)
	res, err := impact.ForTarget(context.Background(), s, "total", impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sels := names(res.Tests, func(x impact.Test) string { return x.Selector })
	want := []string{"py/tests/test_cart.py::TestTotal::test_sum", "py/tests/test_cart.py::test_empty"}
	if !slices.Equal(sels, want) {
		t.Errorf("selectors %v, want %v", sels, want)
	}
	if len(res.Commands) != 1 || !strings.HasPrefix(res.Commands[0], "python -m pytest ") || strings.Contains(res.Commands[0], "test_other") {
		t.Errorf("commands %v", res.Commands)
	}
}

func TestDiff(t *testing.T) {
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
	p := filepath.Join(root, "pay", "pay.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte("n <= 0"), []byte("n < 0"), 1), 0o644)
	s := index(t, root)
	res, err := impact.ForDiff(context.Background(), s, impact.Diff{}, impact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 1 || res.Changed[0].QualifiedName != "validate" || !strings.Contains(res.Changed[0].Why, "lines 19-19 changed") {
		t.Fatalf("changed %+v", res.Changed)
	}
	if !slices.ContainsFunc(res.Tests, func(x impact.Test) bool { return x.QualifiedName == "TestHandle" }) {
		t.Errorf("tests %v", names(res.Tests, func(x impact.Test) string { return x.QualifiedName }))
	}
	git("add", "pay/pay.go")
	res, err = impact.ForDiff(context.Background(), s, impact.Diff{Staged: true}, impact.Options{})
	if err != nil || len(res.Changed) != 1 {
		t.Fatalf("staged: %v %+v", err, res)
	}
	if _, err := impact.ForDiff(context.Background(), s, impact.Diff{Rev: "no-such-rev"}, impact.Options{}); err == nil || !strings.Contains(err.Error(), "git diff") {
		t.Errorf("a bad revision: %v", err)
	}
	if _, err := impact.ForDiff(context.Background(), s, impact.Diff{Rev: "--output=/tmp/x"}, impact.Options{}); err == nil {
		t.Errorf("an option passed as a revision is accepted")
	}
}

// TestPackagesLineBounded: the text answer lists at most maxList packages
// and says how many more (the kernel's kfree touches 1,351 directories).
func TestPackagesLineBounded(t *testing.T) {
	var r impact.Result
	for i := range 30 {
		r.Packages = append(r.Packages, fmt.Sprintf("pkg%02d", i))
	}
	var b strings.Builder
	if err := r.WriteText(&b, 10); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "packages (30): pkg00, ") || !strings.Contains(out, "pkg09, … 20 more") || strings.Contains(out, "pkg10") {
		t.Fatalf("packages line:\n%s", out)
	}
	b.Reset()
	r.WriteText(&b, 0)
	if !strings.Contains(b.String(), "pkg29") {
		t.Fatal("with no bound every package is listed")
	}
}
