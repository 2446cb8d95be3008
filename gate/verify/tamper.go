package verify

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

var jsTestFile = regexp.MustCompile(`\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)

// testFunc is one test as the tamper check sees it.
type testFunc struct {
	Name    string
	Asserts int      // assertions reachable in its body and, Go, the helpers it reaches
	Own     int      // Go: assertions reachable in its body alone
	Dead    int      // assertions in its body that can never run (Go)
	Method  bool     // a Go method (a suite's test): go test does not select it by this name
	Skips   int      // skips and expected-failure markers
	Body    string   // its body's text, whitespace-normalized (renames)
	Recv    string   // a Go method's receiver type (a suite's test)
	Refs    []string // Go: the names its body mentions (helpers it may call)
}

// goDecl is a Go test file's function, method or package variable that is
// not a test: a helper the tests share, whose change changes them.
type goDecl struct {
	Body string   // whitespace-normalized text
	Refs []string // the names it mentions
	// Recv and Name: a method's receiver type and name (its key is
	// "Recv.Name": two types' Dial methods are two helpers)
	Recv, Name string
	Asserts    int // assertions reachable in its body (a function or method)
}

// testFile is what the tamper check reads from one test file.
type testFile struct {
	Tests       map[string]*testFunc
	Order       []string
	Constraints []string           // Go build constraints (//go:build, // +build)
	Only        int                // JS/TS .only, fit, fdescribe: the rest never run
	Skips       int                // file-level skip markers (JS/TS .skip, xit …)
	Helpers     map[string]*goDecl // Go: the other declarations, by name
	Harness     goHarness          // Go: TestMain, init, exits and output (harness.go)
}

// analyzeTest parses a test file with tree-sitter; ok is false for a file
// no grammar here reads.
func analyzeTest(p string, src []byte) (*testFile, bool) {
	var lang *sitter.Language
	var walk func(*testFile, *sitter.Node, []byte)
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		lang, walk = golang.GetLanguage(), goTests
	case strings.HasSuffix(base, ".py"):
		lang, walk = python.GetLanguage(), pyTests
	case strings.HasSuffix(base, ".tsx"):
		lang, walk = tsx.GetLanguage(), jsTests
	case strings.HasSuffix(base, ".ts") || strings.HasSuffix(base, ".mts") || strings.HasSuffix(base, ".cts"):
		lang, walk = typescript.GetLanguage(), jsTests
	case strings.HasSuffix(base, ".js") || strings.HasSuffix(base, ".jsx") || strings.HasSuffix(base, ".mjs") || strings.HasSuffix(base, ".cjs"):
		lang, walk = javascript.GetLanguage(), jsTests
	default:
		return nil, false
	}
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang)
	tree, err := parser.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return nil, false
	}
	defer tree.Close()
	f := &testFile{Tests: map[string]*testFunc{}, Helpers: map[string]*goDecl{}}
	walk(f, tree.RootNode(), src)
	if !strings.HasSuffix(base, "_test.go") {
		for _, t := range f.Tests {
			t.Own = t.Asserts // helpers are counted for Go only
		}
	}
	return f, true
}

func (f *testFile) add(t *testFunc) {
	if _, dup := f.Tests[t.Name]; !dup {
		f.Order = append(f.Order, t.Name)
	}
	f.Tests[t.Name] = t
}

var spaces = regexp.MustCompile(`\s+`)

func normalize(s string) string { return spaces.ReplaceAllString(strings.TrimSpace(s), " ") }

// ---- Go ----

var goConstraint = regexp.MustCompile(`^//(go:build\s|\s*\+build\s)`)

func goTests(f *testFile, root *sitter.Node, src []byte) {
	imports := goImportPaths(root, src)
	w := goWalker{src: src, pkgs: goImports(root, src), asserters: map[string]bool{}}
	w.suite = slices.Contains(slices.Collect(maps.Values(imports)), "github.com/stretchr/testify/suite")
	for i := 0; i < int(root.NamedChildCount()); i++ {
		n := root.NamedChild(i)
		switch n.Type() {
		case "comment":
			if c := n.Content(src); goConstraint.MatchString(c) {
				f.Constraints = append(f.Constraints, strings.TrimSpace(c))
			}
		case "function_declaration", "method_declaration":
			// methods too: suites such as grpc-go's grpctest run a
			// receiver's TestX methods as subtests
			name := n.ChildByFieldName("name").Content(src)
			body := n.ChildByFieldName("body")
			mw := w
			if n.Type() == "method_declaration" {
				mw.recv = goRecvName(n, src)
			}
			if !goTestName(name) {
				if body != nil {
					d := &goDecl{Body: normalize(n.Content(src)), Refs: goRefs(body, src), Name: name}
					key := name
					if n.Type() == "method_declaration" {
						d.Recv = goRecvType(n, src)
						key = d.Recv + "." + name
					}
					var own testFunc
					mw.count(&own, body)
					d.Asserts = own.Asserts
					if name == "init" && n.Type() == "function_declaration" {
						f.Harness.Inits = append(f.Harness.Inits, d.Body) // there may be several
					} else {
						f.Helpers[key] = d
					}
				}
				continue
			}
			t := &testFunc{Name: name, Method: n.Type() == "method_declaration"}
			if t.Method {
				t.Recv = goRecvType(n, src)
			}
			if body != nil {
				t.Body = normalize(body.Content(src))
				t.Refs = goRefs(body, src)
				mw.count(t, body)
			}
			t.Own = t.Asserts
			if name == "TestMain" && !t.Method {
				f.Harness.Main = "func TestMain" + t.Body
			}
			f.add(t)
		case "var_declaration", "const_declaration":
			// a table of cases or checks the tests read
			// (a closure in it is a helper too: its assertions count)
			var own testFunc
			w.count(&own, n)
			for _, name := range goDeclNames(n, src) {
				f.Helpers[name] = &goDecl{Body: normalize(n.Content(src)), Refs: goRefs(n, src), Asserts: own.Asserts}
			}
		}
	}
	goHarnessOf(&f.Harness, root, src, imports)
	withHelpers(f.Tests, f.Helpers)
}

// goImports are the names a file's imports bind: `fmt.Errorf` and
// `log.Fatal` are calls of a package, not of a test's *testing.T.
func goImports(root *sitter.Node, src []byte) map[string]bool {
	pkgs := map[string]bool{}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Type() {
		case "import_spec":
			if name := n.ChildByFieldName("name"); name != nil {
				pkgs[name.Content(src)] = true
				return
			}
			if p := n.ChildByFieldName("path"); p != nil {
				ip := strings.Trim(p.Content(src), "\"`")
				elems := strings.Split(ip, "/")
				last := elems[len(elems)-1]
				// example.com/x/v2 is package x; gopkg.in/yaml.v3 is yaml
				if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
					last = elems[len(elems)-2]
				}
				if i := strings.Index(last, ".v"); i > 0 {
					last = last[:i]
				}
				pkgs[strings.ReplaceAll(last, "-", "_")] = true
			}
			return
		case "import_declaration", "import_spec_list":
			for i := 0; i < int(n.NamedChildCount()); i++ {
				walk(n.NamedChild(i))
			}
		}
	}
	for i := 0; i < int(root.NamedChildCount()); i++ {
		if c := root.NamedChild(i); c.Type() == "import_declaration" {
			walk(c)
		}
	}
	return pkgs
}

// goRefs are the distinct names mentioned under n (identifiers, field and
// type names): an over-approximation of what it calls or reads.
func goRefs(n *sitter.Node, src []byte) []string {
	seen := map[string]bool{}
	var refs []string
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Type() {
		case "identifier", "field_identifier", "type_identifier":
			if s := n.Content(src); !seen[s] {
				seen[s] = true
				refs = append(refs, s)
			}
			return
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(n)
	return refs
}

// goDeclNames are the names a var or const declaration binds.
func goDeclNames(n *sitter.Node, src []byte) []string {
	var names []string
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Type() {
		case "var_spec", "const_spec":
			for i := 0; i < int(n.NamedChildCount()); i++ {
				if c := n.NamedChild(i); c.Type() == "identifier" {
					names = append(names, c.Content(src))
				}
			}
			return
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(n)
	return names
}

// goRecvType is a method's receiver type name without the pointer.
func goRecvType(n *sitter.Node, src []byte) string {
	r := n.ChildByFieldName("receiver")
	if r == nil {
		return ""
	}
	var name string
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if name != "" {
			return
		}
		if n.Type() == "type_identifier" {
			name = n.Content(src)
			return
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(r)
	return name
}

func goTestName(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example", "Benchmark"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')) {
			return true
		}
	}
	return false
}

var (
	goAssertMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}
	goSkipMethods   = map[string]bool{"Skip": true, "Skipf": true, "SkipNow": true}
	goEnds          = map[string]bool{"Fatal": true, "Fatalf": true, "FailNow": true, "Skip": true, "Skipf": true, "SkipNow": true}
)

// count counts the assertions and skips reachable under n: a branch of
// an if whose condition is constant (false, !true, false && x …) and the
// statements after a return, panic, t.Fatal*, t.FailNow or t.Skip* in the
// same block are not reachable.
// goWalker counts a Go test's assertions; pkgs are the file's import
// names.
type goWalker struct {
	src  []byte
	pkgs map[string]bool
	// suite: the file imports testify's suite, whose methods assert on
	// their receiver (s.Equal); recv is the receiver's name in the method
	// walked
	suite bool
	recv  string
	// asserters are the variables bound to assert.New or require.New
	// (a := assert.New(t); a.Equal(…))
	asserters map[string]bool
}

// assertCall: a call of testify's assert/require (also through
// s.Require(), s.Assert(), a := assert.New(t), and a testify suite's own
// methods), gomega's Expect/Ω/Eventually/Consistently(…).To/Should…,
// cmp.Diff, reflect.DeepEqual, or an Error*/Fatal*/Fail* method of anything
// that is not an imported package (fmt.Errorf builds an error; it asserts
// nothing).
func (w goWalker) assertCall(op, field string) bool {
	return op == "assert" || op == "require" || op == "cmp" && field == "Diff" || op == "reflect" && field == "DeepEqual" ||
		goAssertMethods[field] && !w.pkgs[op] ||
		strings.HasSuffix(op, ".Require()") || strings.HasSuffix(op, ".Assert()") || w.asserters[op] ||
		w.suite && w.recv != "" && op == w.recv && testifyMethods[field] ||
		gomegaMatch[field] && gomegaActual.MatchString(op)
}

func (w goWalker) count(t *testFunc, n *sitter.Node) {
	src := w.src
	switch n.Type() {
	case "if_statement":
		if init := n.ChildByFieldName("initializer"); init != nil {
			w.count(t, init)
		}
		cond := n.ChildByFieldName("condition")
		v := constBool(cond, src)
		if cond != nil {
			w.count(t, cond)
		}
		if c := n.ChildByFieldName("consequence"); c != nil {
			if v != constFalse {
				w.count(t, c)
			} else {
				t.Dead += w.asserts(c)
			}
		}
		if a := n.ChildByFieldName("alternative"); a != nil {
			if v != constTrue {
				w.count(t, a)
			} else {
				t.Dead += w.asserts(a)
			}
		}
		return
	case "for_statement":
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			if c.Type() != "block" && constBool(c, src) == constFalse {
				t.Dead += w.asserts(n)
				return // for false { … }
			}
		}
	case "block", "statement_list":
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			w.count(t, c)
			if goTerminates(c, src) {
				for j := i + 1; j < int(n.NamedChildCount()); j++ {
					t.Dead += w.asserts(n.NamedChild(j))
				}
				return
			}
		}
		return
	case "short_var_declaration", "assignment_statement":
		w.noteAsserters(n)
	case "call_expression":
		if fn := n.ChildByFieldName("function"); fn != nil && fn.Type() == "selector_expression" {
			op := fn.ChildByFieldName("operand").Content(src)
			field := fn.ChildByFieldName("field").Content(src)
			switch {
			case w.assertCall(op, field):
				t.Asserts++
			case goSkipMethods[field] || op == "testing" && field == "Short":
				t.Skips++
			}
		}
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		w.count(t, n.NamedChild(i))
	}
}

// asserts counts the assertion calls under n, reachable or not.
func (w goWalker) asserts(n *sitter.Node) int {
	src := w.src
	if n.Type() == "call_expression" {
		if fn := n.ChildByFieldName("function"); fn != nil && fn.Type() == "selector_expression" {
			op := fn.ChildByFieldName("operand").Content(src)
			field := fn.ChildByFieldName("field").Content(src)
			if w.assertCall(op, field) {
				return 1 + w.assertsIn(n)
			}
		}
	}
	return w.assertsIn(n)
}

func (w goWalker) assertsIn(n *sitter.Node) int {
	k := 0
	for i := 0; i < int(n.NamedChildCount()); i++ {
		k += w.asserts(n.NamedChild(i))
	}
	return k
}

// goTerminates reports a statement after which its block's next ones do
// not run.
func goTerminates(n *sitter.Node, src []byte) bool {
	switch n.Type() {
	case "return_statement", "goto_statement":
		return true
	case "expression_statement":
		if n.NamedChildCount() == 0 {
			return false
		}
		call := n.NamedChild(0)
		if call.Type() != "call_expression" {
			return false
		}
		fn := call.ChildByFieldName("function")
		switch {
		case fn == nil:
		case fn.Type() == "identifier":
			return fn.Content(src) == "panic"
		case fn.Type() == "selector_expression":
			return goEnds[fn.ChildByFieldName("field").Content(src)]
		}
	}
	return false
}

type tri int

const (
	constUnknown tri = iota
	constTrue
	constFalse
)

// constBool evaluates a condition made of literals: true, false, !, &&,
// || and parentheses.
func constBool(n *sitter.Node, src []byte) tri {
	if n == nil {
		return constUnknown
	}
	switch n.Type() {
	case "true", "True":
		return constTrue
	case "false", "False":
		return constFalse
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return constBool(n.NamedChild(0), src)
		}
	case "unary_expression", "not_operator":
		op := n.ChildByFieldName("operator")
		arg := n.ChildByFieldName("operand")
		if arg == nil {
			arg = n.ChildByFieldName("argument")
		}
		if (op == nil || op.Content(src) == "!" || op.Content(src) == "not") && arg != nil {
			switch constBool(arg, src) {
			case constTrue:
				return constFalse
			case constFalse:
				return constTrue
			}
		}
	case "binary_expression", "boolean_operator":
		l, r := constBool(n.ChildByFieldName("left"), src), constBool(n.ChildByFieldName("right"), src)
		switch n.ChildByFieldName("operator").Content(src) {
		case "&&", "and":
			if l == constFalse || r == constFalse {
				return constFalse
			}
			if l == constTrue && r == constTrue {
				return constTrue
			}
		case "||", "or":
			if l == constTrue || r == constTrue {
				return constTrue
			}
			if l == constFalse && r == constFalse {
				return constFalse
			}
		}
	}
	return constUnknown
}

// ---- Python (pytest) ----

func pyTests(f *testFile, n *sitter.Node, src []byte) {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "class_definition":
			if b := c.ChildByFieldName("body"); b != nil {
				pyTests(f, b, src)
			}
		case "decorated_definition", "function_definition":
			def, skips := c, 0
			if c.Type() == "decorated_definition" {
				def = c.ChildByFieldName("definition")
				for j := 0; j < int(c.NamedChildCount()); j++ {
					if d := c.NamedChild(j); d.Type() == "decorator" && pySkipMarker.MatchString(d.Content(src)) {
						skips++
					}
				}
				if def != nil && def.Type() == "class_definition" {
					pyTests(f, def.ChildByFieldName("body"), src)
					continue
				}
			}
			if def == nil || def.Type() != "function_definition" {
				continue
			}
			name := def.ChildByFieldName("name").Content(src)
			if !strings.HasPrefix(name, "test") {
				continue
			}
			t := &testFunc{Name: name, Skips: skips}
			if body := def.ChildByFieldName("body"); body != nil {
				t.Body = normalize(body.Content(src))
				pyCount(t, body, src)
			}
			f.add(t)
		}
	}
}

var pySkipMarker = regexp.MustCompile(`(pytest\.mark\.(skip|skipif|xfail)|unittest\.(skip|expectedFailure))`)

func pyCount(t *testFunc, n *sitter.Node, src []byte) {
	switch n.Type() {
	case "assert_statement":
		if constBool(n.NamedChild(0), src) != constTrue { // assert True proves nothing
			t.Asserts++
		}
	case "if_statement":
		if constBool(n.ChildByFieldName("condition"), src) == constFalse {
			if alt := n.ChildByFieldName("alternative"); alt != nil {
				pyCount(t, alt, src)
			}
			return
		}
	case "call":
		fn := n.ChildByFieldName("function").Content(src)
		switch {
		case fn == "pytest.skip" || fn == "pytest.xfail" || fn == "self.skipTest":
			t.Skips++
		case strings.HasPrefix(fn, "self.assert") || fn == "pytest.raises" || fn == "pytest.fail":
			t.Asserts++
		}
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		pyCount(t, n.NamedChild(i), src)
	}
}

// ---- TypeScript / JavaScript (jest, vitest, mocha) ----

var (
	jsTestCalls = map[string]bool{"it": true, "test": true, "describe": true}
	jsSkipCalls = map[string]bool{"xit": true, "xtest": true, "xdescribe": true}
	jsOnlyCalls = map[string]bool{"fit": true, "fdescribe": true}
)

func jsTests(f *testFile, root *sitter.Node, src []byte) {
	var visit func(n *sitter.Node, cur *testFunc, prefix string)
	visit = func(n *sitter.Node, cur *testFunc, prefix string) {
		if n.Type() == "call_expression" {
			fn := n.ChildByFieldName("function")
			name, member := jsCallee(fn, src)
			switch {
			case name == "expect" && member == "":
				if cur != nil {
					cur.Asserts++
				}
			case jsTestCalls[name] || jsSkipCalls[name] || jsOnlyCalls[name]:
				if member == "only" || jsOnlyCalls[name] {
					f.Only++
				}
				skipped := member == "skip" || member == "todo" || member == "failing" || jsSkipCalls[name]
				if skipped {
					f.Skips++
				}
				title := jsTitle(n, src)
				full := strings.TrimSpace(prefix + " " + title)
				if name == "describe" || name == "xdescribe" || name == "fdescribe" {
					for i := 0; i < int(n.NamedChildCount()); i++ {
						visit(n.NamedChild(i), cur, full)
					}
					return
				}
				t := &testFunc{Name: full, Body: normalize(n.Content(src))}
				if skipped {
					t.Skips++
				}
				f.add(t)
				for i := 0; i < int(n.NamedChildCount()); i++ {
					visit(n.NamedChild(i), t, full)
				}
				return
			}
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			visit(n.NamedChild(i), cur, prefix)
		}
	}
	visit(root, nil, "")
}

// jsCallee splits it, it.skip, test.only.each … into the base name and the
// first member.
func jsCallee(fn *sitter.Node, src []byte) (name, member string) {
	if fn == nil {
		return "", ""
	}
	switch fn.Type() {
	case "identifier":
		return fn.Content(src), ""
	case "member_expression":
		obj := fn.ChildByFieldName("object")
		prop := fn.ChildByFieldName("property").Content(src)
		if obj.Type() == "identifier" {
			return obj.Content(src), prop
		}
		n, m := jsCallee(obj, src)
		return n, cmpOr(m, prop)
	case "call_expression": // test.each(table)("…")
		return jsCallee(fn.ChildByFieldName("function"), src)
	}
	return "", ""
}

func jsTitle(call *sitter.Node, src []byte) string {
	args := call.ChildByFieldName("arguments")
	if args == nil || args.NamedChildCount() == 0 {
		return ""
	}
	a := args.NamedChild(0)
	return strings.Trim(a.Content(src), "'\"`")
}

// ---- the comparison ----

// compareTests lists the tamper findings between a test file at the base
// and in the candidate.
func compareTests(p string, base, cand *testFile) []Finding {
	var out []Finding
	for _, name := range base.Order {
		b := base.Tests[name]
		c, ok := cand.Tests[name]
		if !ok {
			kind, ev := "test_deleted", "absent"
			for _, cn := range cand.Order {
				if _, old := base.Tests[cn]; !old && cand.Tests[cn].Body == b.Body {
					kind, ev = "test_renamed", "renamed to "+cn
				}
			}
			out = append(out, Finding{Kind: kind, Path: p, Test: name, Base: fmt.Sprintf("%d assertions", b.Asserts), Candidate: ev})
			continue
		}
		if c.Asserts < b.Asserts {
			out = append(out, Finding{Kind: "fewer_assertions", Path: p, Test: name, Base: helperEvidence(b), Candidate: helperEvidence(c)})
		}
		if c.Skips > b.Skips {
			out = append(out, Finding{Kind: "skip_added", Path: p, Test: name,
				Base: fmt.Sprintf("%d skips", b.Skips), Candidate: fmt.Sprintf("%d skips", c.Skips)})
		}
	}
	// An assertion that can never run is a tamper in a new test as in an
	// old one: a test added with its checks under `if false` passes the
	// regression check (it fails to build at the base) and every run.
	for _, name := range cand.Order {
		c := cand.Tests[name]
		dead := 0
		if b, ok := base.Tests[name]; ok {
			dead = b.Dead
		}
		if c.Dead > dead {
			out = append(out, Finding{Kind: "unreachable_assertions", Path: p, Test: name,
				Base: fmt.Sprintf("%d unreachable assertions", dead), Candidate: fmt.Sprintf("%d unreachable assertions (under a constant condition or after the test ends)", c.Dead)})
		}
	}
	for _, c := range cand.Constraints {
		if !slices.Contains(base.Constraints, c) {
			out = append(out, Finding{Kind: "build_constraint_added", Path: p, Base: strings.Join(base.Constraints, "; "), Candidate: c})
		}
	}
	if cand.Only > base.Only {
		out = append(out, Finding{Kind: "only_added", Path: p, Base: fmt.Sprintf("%d .only", base.Only), Candidate: fmt.Sprintf("%d .only", cand.Only)})
	}
	if cand.Skips > base.Skips {
		out = append(out, Finding{Kind: "skip_added", Path: p, Base: fmt.Sprintf("%d skip markers", base.Skips), Candidate: fmt.Sprintf("%d skip markers", cand.Skips)})
	}
	return append(out, compareGoHarness(p, base, cand)...)
}

// tamper compares every changed test file at the base with the candidate
// workspace — a Go test file with its package's other test files, whose
// helpers count in its tests' assertions, and whose unchanged tests lose
// assertions when a helper they reach does —, flags deleted test files,
// edited CI configuration, harness edits (harness.go) and edits of the
// tests a criterion names, and drops what the contract's allow names.
func (g *gate) tamper(ctx context.Context, ws *sandbox.Workspace) []Finding {
	out := []Finding{}
	var dirs []string
	changed := map[string]bool{}
	for _, ch := range g.changed {
		changed[ch.Path] = true
		if strings.HasSuffix(ch.Path, "_test.go") && !strings.Contains("/"+ch.Path, "/testdata/") && !slices.Contains(dirs, path.Dir(ch.Path)) {
			dirs = append(dirs, path.Dir(ch.Path))
		}
	}
	slices.Sort(dirs)
	basePkgs, candPkgs := g.goPackages(ctx, ws, dirs)
	for _, ch := range g.changed {
		if ci := matchAny(ciGlobs, ch.Path); ci != "" {
			out = append(out, Finding{Kind: "ci_config_edited", Path: ch.Path, Candidate: ch.Status + " (" + ci + ")"})
		}
		if !isTestFile(ch.Path) || strings.Contains("/"+ch.Path, "/testdata/") {
			continue
		}
		if ch.Status == "D" {
			out = append(out, Finding{Kind: "test_file_deleted", Path: ch.Path, Base: "present", Candidate: "deleted"})
			continue
		}
		baseSrc, ok := showBase(ctx, g.opts.Repo, g.base, ch.Path)
		if !ok || ch.Status == "A" {
			baseSrc = nil // a new file: compared with an empty one
		}
		candSrc, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(ch.Path)))
		if err != nil {
			out = append(out, Finding{Kind: "test_file_unreadable", Path: ch.Path, Candidate: err.Error()})
			continue
		}
		b, ok1 := analyzeTest(ch.Path, baseSrc)
		c, ok2 := analyzeTest(ch.Path, candSrc)
		if d := path.Dir(ch.Path); strings.HasSuffix(ch.Path, "_test.go") {
			// counted with the package's helpers
			if pb := basePkgs[d][ch.Path]; pb != nil && baseSrc != nil {
				b = pb
			}
			if pc := candPkgs[d][ch.Path]; pc != nil {
				c = pc
			}
		}
		if ok1 && ok2 {
			fs := compareTests(ch.Path, b, c)
			if baseSrc == nil { // a new file: only what no new test may have
				fs = slices.DeleteFunc(fs, func(f Finding) bool { return f.Kind != "unreachable_assertions" && !harnessKinds[f.Kind] })
			} else {
				fs = append(fs, specifiedChanged(g.contract, ch.Path, b, c)...)
			}
			out = append(out, fs...)
		}
	}
	// the package's unchanged test files: a changed helper is all that can
	// change their tests
	for _, d := range dirs {
		for _, p := range slices.Sorted(maps.Keys(candPkgs[d])) {
			b, ok := basePkgs[d][p]
			if changed[p] || !ok {
				continue
			}
			for _, f := range compareTests(p, b, candPkgs[d][p]) {
				if f.Kind == "fewer_assertions" {
					out = append(out, f)
				}
			}
		}
	}
	out = append(out, g.harnessFindings(ctx, ws)...)
	return slices.DeleteFunc(out, func(f Finding) bool { return allowed(g.contract, f) })
}
