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

	"github.com/cairn-dev/cairn/engine/catalog"
)

// trimHelpers are the names of the catalogue's trimming helpers (and of
// the copies they replaced): defined in engine/catalog only. (Its paging
// helpers have names other code uses for other things: clients/hook's
// encodeCursor answers the Cursor editor.)
var trimHelpers = []string{"halve", "halveTo", "fit", "Fit", "fitJSON", "FitResult", "cutText", "noneEmpty"}

// oneDefinitionDirs are the surfaces over the catalogue.
var oneDefinitionDirs = []string{"serve", "agent", "clients", "cmd"}

// TestOneDefinitionPerTool fails when a catalogue tool's description (or a
// long prefix of one) is written as a string literal outside
// engine/catalog, or a function named like the catalogue's trimming and
// paging helpers is declared there: each tool is defined once, in the
// catalogue, and trimmed once.
func TestOneDefinitionPerTool(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	for _, dir := range oneDefinitionDirs {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, why := range duplicateDefinitions(fset, f, catalog.Descriptions()) {
				t.Errorf("%s", why)
			}
			return nil
		})
	}
	if n < 50 {
		t.Fatalf("only %d files read", n)
	}
}

// TestOneDefinitionRules: the check bites on a copied description, on a
// long prefix of one and on a trimming helper, and passes other code.
func TestOneDefinitionRules(t *testing.T) {
	desc := catalog.All()[0].Info().Description
	for _, c := range []struct {
		src string
		bad bool
	}{
		{`package p; var d = ` + strconv.Quote(desc), true},
		{`package p; var d = ` + strconv.Quote(desc[:70]+" and more words of another text"), true},
		{`package p; var d = ` + strconv.Quote(desc[:50]), true},
		{`package p; func halve(l *[]int) bool { return false }`, true},
		{`package p; func (s *S) fit(v any) {}`, true},
		{`package p; var d = "search"; func search() {}`, false},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(duplicateDefinitions(fset, f, catalog.Descriptions())) > 0; got != c.bad {
			t.Errorf("%.80s: duplicate %v, want %v", c.src, got, c.bad)
		}
	}
}

// duplicateDefinitions lists f's copies of a description and its
// declarations of trimming helpers.
func duplicateDefinitions(fset *token.FileSet, f *ast.File, descs []string) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if x.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(x.Value)
			if err != nil {
				return true
			}
			for _, d := range descs {
				if s == d || len(s) >= 40 && strings.HasPrefix(d, s) || len(d) >= 60 && strings.HasPrefix(s, d[:60]) {
					out = append(out, fset.Position(x.Pos()).String()+": a catalogue tool's description, defined again (use engine/catalog)")
					break
				}
			}
		case *ast.FuncDecl:
			for _, h := range trimHelpers {
				if x.Name.Name == h {
					out = append(out, fset.Position(x.Pos()).String()+": "+h+" is the catalogue's trimming (use engine/catalog)")
				}
			}
		}
		return true
	})
	return out
}
