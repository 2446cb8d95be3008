package verify

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// namesTests reports whether a selector names the tests it runs — a Go
// -run pattern, a pytest node id (file::test), a jest/vitest -t pattern —
// rather than selecting everything in some packages or files. The tests
// such a selector names are the criterion's specification: each must run
// and pass on the change, and a failure at the base excuses none of them.
func namesTests(selector string) bool {
	for _, f := range strings.Fields(selector) {
		switch {
		case f == "-run" || f == "--run" || strings.HasPrefix(f, "-run=") || strings.HasPrefix(f, "--run="):
			return true
		case f == "-t" || strings.HasPrefix(f, "-t="):
			return true
		case strings.Contains(f, "::"):
			return true
		}
	}
	return false
}

// checkListed checks a Go run's results against the tests the package's
// test files declare. go test -json reads the test binary's framing lines
// (marked with ^V) from its standard output, so test code that prints
// them can make up tests and their outcomes; the declared tests are read
// from the source (tamper.go's analysis), which no test code runs to
// produce — stronger than asking the test binary (go test -list), which a
// changed TestMain could answer too. A result whose top-level name no
// test file of its package declares is a forged_result finding and fails.
func (g *gate) checkListed(ws *sandbox.Workspace, r Runner, cmd sandbox.Command, run *Run) {
	if _, ok := r.(goRunner); !ok || run == nil {
		return
	}
	modDir := cmd.Dir
	if modDir == "" {
		modDir = "."
	}
	modPath := goModulePath(filepath.Join(ws.Dir, filepath.FromSlash(modDir)))
	if modPath == "" {
		return
	}
	declared := map[string]map[string]bool{} // package dir → top-level test names
	unlisted := map[string]bool{}
	for i := range run.Tests {
		t := &run.Tests[i]
		rel, ok := strings.CutPrefix(t.Package, modPath)
		if !ok || rel != "" && !strings.HasPrefix(rel, "/") {
			continue // a package of another module: not ours to read
		}
		dir := path.Clean(path.Join(modDir, strings.TrimPrefix(rel, "/")))
		names := declared[dir]
		if names == nil && !unlisted[dir] {
			var err error
			if names, err = declaredTests(ws, dir); err != nil {
				unlisted[dir] = true
				run.Unlisted = append(run.Unlisted, fmt.Sprintf("the tests of %s cannot be listed to check its results against: %v", dir, err))
				continue
			}
			declared[dir] = names
		}
		if unlisted[dir] {
			continue
		}
		top, _, _ := strings.Cut(t.Name, "/")
		if names[top] {
			continue
		}
		f := Finding{Kind: "forged_result", Path: dir, Test: t.Name,
			Candidate: "the test output reports " + t.Name + " " + string(t.Outcome) + ", and no test file of " + dir + " declares " + top}
		if !slices.Contains(g.forged, f) {
			g.forged = append(g.forged, f)
		}
		t.Outcome, t.Output = OutcomeFail, "forged: no test of this name is declared in "+dir+"'s test files; a result printed by test code"
	}
}

// declaredTests are the top-level test functions (Test, Fuzz, Example,
// Benchmark, by go test's naming rule) of a package directory's _test.go
// files, read with go/parser; an error means they could not all be read,
// and the package's results cannot be checked.
func declaredTests(ws *sandbox.Workspace, dir string) (map[string]bool, error) {
	out := map[string]bool{}
	entries, err := os.ReadDir(filepath.Join(ws.Dir, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(ws.Dir, filepath.FromSlash(dir), e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && IsGoTest(path.Join(dir, e.Name()), fd.Name.Name) {
				out[fd.Name.Name] = true
			}
		}
	}
	return out, nil
}
