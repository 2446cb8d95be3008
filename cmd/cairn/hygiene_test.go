package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoDroppedMarshalError fails when non-test Go code in the module
// drops the error of encoding/json's Marshal or MarshalIndent (assigns it
// to _, or calls it as a statement). A value that can fail to encode
// returns its error; one whose type always encodes goes through
// internal/must.JSON, which panics naming the type. A dropped error reads
// as an empty encoding: a size check passes an answer it never measured.
func TestNoDroppedMarshalError(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || d.Name() == "vendor" || d.Name() == "node_modules" ||
			strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n++
		for _, why := range droppedMarshalErrors(fset, f) {
			t.Error(why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 200 {
		t.Fatalf("only %d files read", n)
	}
}

// TestDroppedMarshalErrorRules: the check bites on each way of dropping
// the error, under any import name, and passes code that keeps it.
func TestDroppedMarshalErrorRules(t *testing.T) {
	const head = "package p\nimport \"encoding/json\"\n"
	for _, c := range []struct {
		src  string
		bad  bool
		name string
	}{
		{head + `func f(v any) { b, _ := json.Marshal(v); _ = b }`, true, "short variable declaration"},
		{head + `func f(v any) (b []byte) { b, _ = json.MarshalIndent(v, "", " "); return }`, true, "assignment, MarshalIndent"},
		{head + `var b, _ = json.Marshal(1)`, true, "var declaration"},
		{head + `func f(v any) bool { if b, _ := json.Marshal(v); len(b) > 9 { return true }; return false }`, true, "if's init"},
		{head + `func f(v any) { json.Marshal(v) }`, true, "statement"},
		{head + `func f(v any) int { return len(func() []byte { b, _ := json.Marshal(v); return b }()) }`, true, "in a closure"},
		{"package p\nimport j \"encoding/json\"\nfunc f(v any) { b, _ := j.Marshal(v); _ = b }", true, "renamed import"},
		{head + `func f(v any) ([]byte, error) { b, err := json.Marshal(v); return b, err }`, false, "error kept"},
		{head + `func f(v any) error { _, err := json.Marshal(v); return err }`, false, "bytes dropped, error kept"},
		{head + `func f(s string) { var v any; _ = json.Unmarshal([]byte(s), &v) }`, false, "not Marshal"},
		{"package p\nfunc f(v any) { b, _ := json.Marshal(v); _ = b }", false, "json is not encoding/json"},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", c.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := droppedMarshalErrors(fset, f); len(got) > 0 != c.bad {
			t.Errorf("%s: findings %q, want some: %v", c.name, got, c.bad)
		}
	}
}

// droppedMarshalErrors lists where f drops the error of encoding/json's
// Marshal or MarshalIndent.
func droppedMarshalErrors(fset *token.FileSet, f *ast.File) []string {
	pkg := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "encoding/json" {
			pkg = "json"
			if im.Name != nil {
				pkg = im.Name.Name
			}
		}
	}
	if pkg == "" || pkg == "_" || pkg == "." {
		return nil
	}
	isMarshal := func(e ast.Expr) bool {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && x.Name == pkg && (sel.Sel.Name == "Marshal" || sel.Sel.Name == "MarshalIndent")
	}
	blank := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "_" }
	var out []string
	report := func(n ast.Node) {
		out = append(out, fset.Position(n.Pos()).String()+": the error of json.Marshal is dropped: return it, or use internal/must.JSON for a type that always encodes")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if len(x.Lhs) == 2 && len(x.Rhs) == 1 && isMarshal(x.Rhs[0]) && blank(x.Lhs[1]) {
				report(x)
			}
		case *ast.ValueSpec:
			if len(x.Names) == 2 && len(x.Values) == 1 && isMarshal(x.Values[0]) && x.Names[1].Name == "_" {
				report(x)
			}
		case *ast.ExprStmt:
			if isMarshal(x.X) {
				report(x)
			}
		}
		return true
	})
	return out
}
