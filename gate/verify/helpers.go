package verify

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// Assertions through helpers: a test's count is its body's assertions and
// those of every helper of the package's test files it reaches — a
// function or package variable it mentions by name, a method by its name
// and its receiver type (mentioned by the test, or by a helper it reaches:
// a constructor's result), and what those helpers reach in turn. Each
// helper counts once per test, however often it is called: a helper made
// vacuous lowers the count of every test that reaches it.

// withHelpers sets each test's Asserts to its own and its helpers'.
func withHelpers(tests map[string]*testFunc, helpers map[string]*goDecl) {
	for _, t := range tests {
		t.Asserts = t.Own
		for _, key := range reachedHelpers(t, helpers) {
			t.Asserts += helpers[key].Asserts
		}
	}
}

// reachedHelpers are the keys of the helpers a test reaches, sorted.
func reachedHelpers(t *testFunc, helpers map[string]*goDecl) []string {
	mentioned := map[string]bool{}
	for _, r := range t.Refs {
		mentioned[r] = true
	}
	if t.Recv != "" {
		mentioned[t.Recv] = true // a suite's test reaches its receiver's methods
	}
	reached := map[string]bool{}
	for grew := true; grew; {
		grew = false
		for key, h := range helpers {
			if reached[key] {
				continue
			}
			if h.Recv == "" && !mentioned[key] || h.Recv != "" && !(mentioned[h.Name] && mentioned[h.Recv]) {
				continue
			}
			reached[key], grew = true, true
			for _, r := range h.Refs {
				mentioned[r] = true
			}
		}
	}
	keys := make([]string, 0, len(reached))
	for k := range reached {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// testifyMethods are the assertions of testify's assert.Assertions, which a
// suite.Suite embeds (s.Equal(…) in a suite's method).
var testifyMethods = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`Condition Contains DirExists ElementsMatch Empty Equal EqualError EqualExportedValues
		EqualValues Error ErrorAs ErrorContains ErrorIs Eventually EventuallyWithT Exactly Fail FailNow False FileExists
		Greater GreaterOrEqual HTTPBodyContains HTTPError HTTPStatusCode HTTPSuccess Implements InDelta InDeltaMapValues
		InDeltaSlice InEpsilon InEpsilonSlice IsDecreasing IsIncreasing IsNonDecreasing IsNonIncreasing IsType JSONEq Len
		Less LessOrEqual Negative Never Nil NoDirExists NoError NoFileExists NotContains NotElementsMatch NotEmpty NotEqual
		NotEqualValues NotErrorAs NotErrorIs NotImplements NotNil NotPanics NotRegexp NotSame NotSubset NotZero Panics
		PanicsWithError PanicsWithValue Positive Regexp Same Subset True WithinDuration WithinRange YAMLEq Zero`) {
		testifyMethods[m] = true
		testifyMethods[m+"f"] = true
	}
}

// IsTestifyAssertion reports whether a method name is one of testify's
// assertions (assert.X, require.X, a suite's s.X), for the eval suite's
// tamperings to hide exactly what the gate counts.
func IsTestifyAssertion(name string) bool { return testifyMethods[name] }

// gomega: Expect(x).To(…), Ω(x).Should(…), g.Expect(x).NotTo(…),
// Eventually(f).Should(…) — the matcher call is the assertion; Expect
// alone asserts nothing.
var (
	gomegaMatch  = map[string]bool{"To": true, "ToNot": true, "NotTo": true, "Should": true, "ShouldNot": true}
	gomegaActual = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)?(Expect|Ω|Eventually|Consistently)(WithOffset)?\(`)
)

// noteAsserters records the variables an assignment binds to assert.New
// or require.New.
func (w goWalker) noteAsserters(n *sitter.Node) {
	left, right := n.ChildByFieldName("left"), n.ChildByFieldName("right")
	if left == nil || right == nil || left.NamedChildCount() != right.NamedChildCount() {
		return
	}
	for i := 0; i < int(right.NamedChildCount()); i++ {
		r := right.NamedChild(i)
		if r.Type() != "call_expression" {
			continue
		}
		if fn := r.ChildByFieldName("function"); fn != nil && fn.Type() == "selector_expression" {
			op, field := fn.ChildByFieldName("operand").Content(w.src), fn.ChildByFieldName("field").Content(w.src)
			if (op == "assert" || op == "require") && field == "New" {
				w.asserters[left.NamedChild(i).Content(w.src)] = true
			}
		}
	}
}

// goRecvName is a method's receiver's name ("" for func (s) TestX).
func goRecvName(n *sitter.Node, src []byte) string {
	r := n.ChildByFieldName("receiver")
	if r == nil {
		return ""
	}
	for i := 0; i < int(r.NamedChildCount()); i++ {
		if p := r.NamedChild(i); p.Type() == "parameter_declaration" {
			if name := p.ChildByFieldName("name"); name != nil {
				return name.Content(src)
			}
		}
	}
	return ""
}

// goPackage is a package's Go test files on one side, by path.
type goPackage map[string]*testFile

// packageHelpers recounts every test of the package's files with the
// helpers of all of them.
func (p goPackage) packageHelpers() {
	helpers := map[string]*goDecl{}
	for _, f := range p {
		for k, h := range f.Helpers {
			helpers[k] = h
		}
	}
	for _, f := range p {
		withHelpers(f.Tests, helpers)
	}
}

// goPackages reads, at the base and in the candidate, every Go test file
// of each package directory in dirs, and counts their tests' assertions
// with the package's helpers.
func (g *gate) goPackages(ctx context.Context, ws *sandbox.Workspace, dirs []string) (base, cand map[string]goPackage) {
	base, cand = map[string]goPackage{}, map[string]goPackage{}
	for _, d := range dirs {
		bp, cp := goPackage{}, goPackage{}
		for _, name := range baseTestFiles(ctx, g.opts.Repo, g.base, d) {
			p := path.Join(d, name)
			if src, ok := showBase(ctx, g.opts.Repo, g.base, p); ok {
				if f, ok := analyzeTest(p, src); ok {
					bp[p] = f
				}
			}
		}
		entries, _ := os.ReadDir(filepath.Join(ws.Dir, filepath.FromSlash(d)))
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			p := path.Join(d, e.Name())
			if src, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(p))); err == nil {
				if f, ok := analyzeTest(p, src); ok {
					cp[p] = f
				}
			}
		}
		bp.packageHelpers()
		cp.packageHelpers()
		base[d], cand[d] = bp, cp
	}
	return base, cand
}

// baseTestFiles are the names of the Go test files directly in dir at the
// base.
func baseTestFiles(ctx context.Context, repo, base, dir string) []string {
	tree := base
	if dir != "." {
		tree = base + ":" + dir
	} else {
		tree = base + ":"
	}
	out, err := gitRun(ctx, repo, nil, "ls-tree", "--name-only", "-z", tree)
	if err != nil {
		return nil
	}
	var names []string
	for _, n := range strings.Split(out, "\x00") {
		if strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	return names
}

// helperEvidence says how many of a test's assertions its helpers hold.
func helperEvidence(t *testFunc) string {
	if t.Asserts == t.Own {
		return fmt.Sprintf("%d reachable assertions", t.Asserts)
	}
	return fmt.Sprintf("%d reachable assertions (%d through helpers)", t.Asserts, t.Asserts-t.Own)
}
