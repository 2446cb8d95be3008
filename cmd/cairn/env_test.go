package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine"
)

// envReaders may read the environment outside package main: test helpers.
var envReaders = map[string]bool{
	"graph/postgres/pgtest/pgtest.go": true, // CAIRN_TEST_PG: a test helper
	// the harness's own children (git, go mod download) run with its
	// environment less secret-looking names; Options.PassEnv names host
	// variables a sandboxed command may see (secret-looking ones refused)
	"gate/sandbox/exec.go":  true,
	"gate/sandbox/bwrap.go": true,
}

// TestLibrariesReadNoEnvironment: only main packages (cmd, bench) read the
// environment; libraries get Options.
func TestLibrariesReadNoEnvironment(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		r, _ := filepath.Rel(root, p)
		r = filepath.ToSlash(r)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv" || sel.Sel.Name == "Environ") {
				if envReaders[r] {
					seen[r] = true
				} else {
					t.Errorf("%s: os.%s in a library: take it as an Options field, filled by cmd", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range envReaders {
		if !seen[r] {
			t.Errorf("%s reads no environment any more: remove it from envReaders", r)
		}
	}
}

// TestEmbedderFromOptions: the http embedder is configured by the options
// cmd fills from CAIRN_EMBED_*, and the engine does not look at the
// variables itself.
func TestEmbedderFromOptions(t *testing.T) {
	t.Setenv("CAIRN_EMBED_URL", "http://127.0.0.1:9/v1")
	t.Setenv("CAIRN_EMBED_MODEL", "from-env")
	t.Setenv("CAIRN_EMBED_DIMENSIONS", "256")
	if _, err := engine.ChooseEmbedder(engine.Embedding{Name: "http"}); err == nil {
		t.Error("the engine configured the http embedder from the environment")
	}
	e, err := engine.ChooseEmbedder(embedding("http"))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Model(); got != "http:from-env:256" {
		t.Errorf("model %q, want http:from-env:256", got)
	}
	t.Setenv("CAIRN_SEARCH_SLOTS", "3")
	if n := searchSlots(); n != 3 {
		t.Errorf("searchSlots() = %d with CAIRN_SEARCH_SLOTS=3", n)
	}
	t.Setenv("CAIRN_SEARCH_SLOTS", "x")
	if n := searchSlots(); n != 0 {
		t.Errorf("searchSlots() = %d with CAIRN_SEARCH_SLOTS=x, want the default", n)
	}
}
