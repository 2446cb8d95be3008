package eval

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/gate/verify"
)

// Go assertions as the mutations find them, by go/ast: the statements a
// neutralised test or helper has wrapped in `if false { … }`. What counts
// as an assertion is what the gate counts (gate/verify's tamper checks):
// an Error*/Fatal*/Fail* method of anything that is not an imported
// package (t.Errorf, s.T().Fatal, h.t.Fail), any call of the assert or
// require package (testify, gotest.tools), a method of s.Require() or
// s.Assert(), of a variable bound to assert.New/require.New, a testify
// suite's own assertion methods on its receiver (s.Equal), and gomega's
// matcher calls (Expect(x).To(…), g.Expect(x).NotTo(…), Ω(x).Should(…),
// Eventually(f).WithTimeout(d).Should(…)). Only whole statements are
// wrapped — an assertion used as a value (if !assert.NoError(…)) is left
// alone, as are the cmp.Diff and reflect.DeepEqual conditions that guard a
// t.Errorf (the t.Errorf is wrapped).

var (
	tAssertMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}
	gomegaMatchers = map[string]bool{"To": true, "ToNot": true, "NotTo": true, "Should": true, "ShouldNot": true}
	gomegaActuals  = map[string]bool{"Expect": true, "Ω": true, "Eventually": true, "Consistently": true,
		"ExpectWithOffset": true, "ΩWithOffset": true, "EventuallyWithOffset": true, "ConsistentlyWithOffset": true}
)

// goSource is a parsed Go file.
type goSource struct {
	src   string
	fset  *token.FileSet
	file  *ast.File
	pkgs  map[string]bool // the names its imports bind
	suite bool            // it imports testify's suite
	// asserters are the variables bound to assert.New or require.New
	asserters map[string]bool
}

func parseGoSource(name, src string) (*goSource, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := &goSource{src: src, fset: fset, file: f, pkgs: map[string]bool{}, asserters: map[string]bool{}}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if p == "github.com/stretchr/testify/suite" {
			g.suite = true
		}
		if im.Name != nil {
			if im.Name.Name != "_" && im.Name.Name != "." {
				g.pkgs[im.Name.Name] = true
			}
			continue
		}
		g.pkgs[importName(p)] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, r := range as.Rhs {
			if c, ok := r.(*ast.CallExpr); ok {
				if op, field := selector(c.Fun); (op == "assert" || op == "require") && field == "New" {
					if id, ok := as.Lhs[i].(*ast.Ident); ok {
						g.asserters[id.Name] = true
					}
				}
			}
		}
		return true
	})
	return g, nil
}

// importName is the name an import path binds without an alias, as the
// gate guesses it: example.com/x/v2 is x, gopkg.in/yaml.v3 is yaml.
func importName(p string) string {
	elems := strings.Split(p, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	return strings.ReplaceAll(last, "-", "_")
}

// selector is a call's operand text and field: ("t", "Errorf") for
// t.Errorf, ("s.Require()", "Equal") for s.Require().Equal; "" when fn is
// not a selector.
func selector(fn ast.Expr) (op, field string) {
	sel, ok := fn.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	return exprText(sel.X), sel.Sel.Name
}

// exprText renders the operands the matcher reads: identifiers, selectors
// and calls without arguments (s.T(), s.Require()); "" for anything else.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x := exprText(e.X); x != "" {
			return x + "." + e.Sel.Name
		}
	case *ast.CallExpr:
		if x := exprText(e.Fun); x != "" && len(e.Args) == 0 {
			return x + "()"
		}
	case *ast.ParenExpr:
		return exprText(e.X)
	}
	return ""
}

// isAssertion: is call an assertion, in a function whose receiver is
// named recv ("" for a function)?
func (g *goSource) isAssertion(call *ast.CallExpr, recv string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	field := sel.Sel.Name
	if gomegaMatchers[field] && gomegaChain(sel.X) {
		return true
	}
	op := exprText(sel.X)
	if op == "" {
		return false
	}
	return op == "assert" || op == "require" ||
		tAssertMethods[field] && !g.pkgs[op] ||
		strings.HasSuffix(op, ".Require()") || strings.HasSuffix(op, ".Assert()") || g.asserters[op] ||
		g.suite && recv != "" && op == recv && verify.IsTestifyAssertion(field)
}

// gomegaChain: does the chain x start with Expect/Ω/Eventually/Consistently
// (bare, dot-imported, or through a package or a Gomega: g.Expect)?
func gomegaChain(x ast.Expr) bool {
	for {
		switch e := x.(type) {
		case *ast.CallExpr:
			switch fn := e.Fun.(type) {
			case *ast.Ident:
				return gomegaActuals[fn.Name]
			case *ast.SelectorExpr:
				if _, ok := fn.X.(*ast.Ident); ok && gomegaActuals[fn.Sel.Name] {
					return true
				}
				x = fn.X // Eventually(f).WithTimeout(d).Should(…)
			default:
				return false
			}
		case *ast.ParenExpr:
			x = e.X
		default:
			return false
		}
	}
}

// span is a byte range [start, end) of a source.
type span struct{ start, end int }

// assertionStmts are the outermost assertion statements in fn's body (a
// call inside another's arguments is wrapped with it).
func (g *goSource) assertionStmts(fn *ast.FuncDecl) []span {
	if fn.Body == nil {
		return nil
	}
	recv := ""
	if fn.Recv != nil && len(fn.Recv.List) == 1 && len(fn.Recv.List[0].Names) == 1 {
		recv = fn.Recv.List[0].Names[0].Name
	}
	var out []span
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		st, ok := n.(*ast.ExprStmt)
		if !ok {
			return true
		}
		if c, ok := st.X.(*ast.CallExpr); ok && g.isAssertion(c, recv) {
			out = append(out, span{g.fset.Position(st.Pos()).Offset, g.fset.Position(st.End()).Offset})
			return false
		}
		return true
	})
	return out
}

// rawLits are the spans of the raw string literals in fn (their lines are
// not reindented).
func (g *goSource) rawLits(n ast.Node) []span {
	var out []span
	ast.Inspect(n, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING && strings.HasPrefix(b.Value, "`") {
			out = append(out, span{g.fset.Position(b.Pos()).Offset, g.fset.Position(b.End()).Offset})
		}
		return true
	})
	return out
}

// wrapFalse puts each statement span of src in `if false { … }`: on lines
// of its own, the statement indented one more tab (but not the inside of
// a raw string), when it starts its line; inline otherwise.
func wrapFalse(src string, stmts, raw []span) string {
	for i := len(stmts) - 1; i >= 0; i-- {
		s := stmts[i]
		ls := strings.LastIndexByte(src[:s.start], '\n') + 1
		indent := src[ls:s.start]
		var b strings.Builder
		if strings.TrimLeft(indent, " \t") != "" {
			b.WriteString("if false { " + src[s.start:s.end] + " }")
		} else {
			b.WriteString("if false {\n" + indent + "\t")
			for o := s.start; o < s.end; o++ {
				b.WriteByte(src[o])
				if src[o] == '\n' && !slices.ContainsFunc(raw, func(r span) bool { return o > r.start && o < r.end }) && o+1 < s.end && src[o+1] != '\n' {
					b.WriteByte('\t')
				}
			}
			b.WriteString("\n" + indent + "}")
		}
		src = src[:s.start] + b.String() + src[s.end:]
	}
	return src
}

// findFunc is the declaration of function name in g, or of method name
// of receiver type recv ("" matches any receiver, and functions).
func (g *goSource) findFunc(name, recv string) *ast.FuncDecl {
	for _, d := range g.file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name && (recv == "" || recvType(fn) == recv) {
			return fn
		}
	}
	return nil
}

// recvType is a method's receiver type name (T for t *T, T[K]), "" for a
// function.
func recvType(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	for {
		switch e := t.(type) {
		case *ast.StarExpr:
			t = e.X
		case *ast.IndexExpr:
			t = e.X
		case *ast.IndexListExpr:
			t = e.X
		case *ast.ParenExpr:
			t = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// neutraliseFunc wraps each assertion statement of function name (a
// method of receiver type recv when recv is set) in src in if false {};
// n is how many it wrapped.
func neutraliseFunc(src, name, recv string) (out string, n int, err error) {
	g, err := parseGoSource("x.go", src)
	if err != nil {
		return src, 0, err
	}
	fn := g.findFunc(name, recv)
	if fn == nil {
		return src, 0, fmt.Errorf("no func %s", name)
	}
	stmts := g.assertionStmts(fn)
	return wrapFalse(src, stmts, g.rawLits(fn)), len(stmts), nil
}

// neutraliseIn rewrites file (relative to repo) with function name's
// assertions neutralised; none is an error (the variant cannot be made).
func neutraliseIn(repo, file, name, recv string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	out, n, err := neutraliseFunc(string(b), name, recv)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if n == 0 {
		return fmt.Errorf("%s in %s has no assertion statement to neutralise (t.Error*/Fatal*/Fail*, testify, gomega)", name, file)
	}
	return os.WriteFile(p, []byte(out), 0o644)
}

// neutralise wraps the assertion statements of every function of a Go
// source in if false {} (src unchanged when it does not parse).
func neutralise(src string) string {
	g, err := parseGoSource("x.go", src)
	if err != nil {
		return src
	}
	var stmts, raw []span
	for _, d := range g.file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			stmts = append(stmts, g.assertionStmts(fn)...)
			raw = append(raw, g.rawLits(fn)...)
		}
	}
	return wrapFalse(src, stmts, raw)
}
