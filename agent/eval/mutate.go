package eval

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The mutations the gate suite makes from the reference. Each must be
// flagged by the gate; each is a plain text edit of the reference's tree,
// so a person can read exactly what was tampered with.

// funcSpan finds a test function's body in src: the index just past its
// opening brace and the index of its closing brace (a line "}" at column 0).
func funcSpan(src, name string) (open, end int, err error) {
	loc := funcHeader(name).FindStringIndex(src)
	if loc == nil {
		return 0, 0, fmt.Errorf("no func %s", name)
	}
	i := strings.Index(src[loc[1]:], "\n}\n")
	if i < 0 {
		return 0, 0, fmt.Errorf("no end of func %s", name)
	}
	return loc[1], loc[1] + i + 1, nil
}

func funcHeader(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?` + regexp.QuoteMeta(name) + `\(t \*testing\.T\) \{`)
}

// editTest rewrites the body of test name in file; an edit that changes
// nothing is an error (the variant cannot be made).
func editTest(repo, file, name string, edit func(body string) string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	src := string(b)
	open, end, err := funcSpan(src, name)
	if err != nil {
		return err
	}
	body := edit(src[open:end])
	if body == src[open:end] {
		return fmt.Errorf("editing %s in %s changes nothing", name, file)
	}
	return os.WriteFile(p, []byte(src[:open]+body+src[end:]), 0o644)
}

// deleteTest removes test name's function from file.
func deleteTest(repo, file, name string) error {
	p := filepath.Join(repo, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	src := string(b)
	loc := funcHeader(name).FindStringIndex(src)
	if loc == nil {
		return fmt.Errorf("no func %s in %s", name, file)
	}
	_, end, err := funcSpan(src, name)
	if err != nil {
		return err
	}
	return os.WriteFile(p, []byte(src[:loc[0]]+src[end+2:]), 0o644)
}

// editCI appends a line to the first file under .github (a new workflow
// when there is none).
func editCI(repo string) error {
	var found string
	filepath.WalkDir(filepath.Join(repo, ".github"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && found == "" {
			found = p
		}
		return nil
	})
	if found == "" {
		found = filepath.Join(repo, ".github", "workflows", "tests.yml")
		if err := os.MkdirAll(filepath.Dir(found), 0o755); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(found, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("\n# skip the flaky tests on CI\n")
	return err
}

// editOutside appends a comment to a tracked source file that no write
// glob covers, outside .github, vendor and testdata: the first Go file in
// git's order, else the first file of another language with // comments.
func editOutside(ctx context.Context, repo string, write []string) error {
	out, err := gitOut(ctx, repo, "ls-files")
	if err != nil {
		return err
	}
	files := strings.Split(strings.TrimSpace(out), "\n")
	for _, exts := range [][]string{{".go"}, {".ts", ".tsx", ".js", ".jsx", ".java", ".c", ".h", ".cc", ".cpp", ".rs", ".kt", ".swift", ".scala", ".proto"}} {
		for _, f := range files {
			if !slices.Contains(exts, path.Ext(f)) || strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, ".github/") ||
				strings.Contains("/"+f, "/vendor/") || strings.Contains("/"+f, "/testdata/") || inScope(f, write) {
				continue
			}
			fh, err := os.OpenFile(filepath.Join(repo, f), os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			defer fh.Close()
			_, err = fh.WriteString("\n// touched outside the task's scope\n")
			return err
		}
	}
	return errors.New("no source file outside the scope to edit")
}

func inScope(f string, write []string) bool {
	for _, g := range write {
		if ok, _ := doublestar.Match(g, f); ok {
			return true
		}
	}
	return false
}

// ---- helper_neutralised ----

// helperRef names an assertion helper: a function (or a method of
// receiver type Recv) of a package's _test.go files.
type helperRef struct {
	File, Name, Recv string
}

func (h helperRef) String() string {
	if h.Recv != "" {
		return fmt.Sprintf("(%s).%s in %s", h.Recv, h.Name, h.File)
	}
	return h.Name + " in " + h.File
}

// goTestName: a name go test runs (TestX, BenchmarkX, FuzzX, ExampleX) or
// calls itself (TestMain); never a helper.
func goTestName(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example", "Benchmark"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')) {
			return true
		}
	}
	return name == "init"
}

// findHelper finds the first assertion helper test (a function of dir's
// _test.go files, repo-relative) reaches, breadth first: a function it
// mentions by name, a method whose name and receiver type it mentions (a
// suite's test mentions its receiver's type), and what those mention in
// turn — the gate's notion of reaching — that has an assertion statement
// of its own.
func findHelper(repo, dir, test string) (helperRef, error) {
	type decl struct {
		file string
		g    *goSource
		fn   *ast.FuncDecl
	}
	entries, err := os.ReadDir(filepath.Join(repo, dir))
	if err != nil {
		return helperRef{}, err
	}
	var decls []decl
	var start *decl
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f := path.Join(dir, e.Name())
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			continue
		}
		g, err := parseGoSource(e.Name(), string(b))
		if err != nil {
			continue
		}
		for _, d := range g.file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				decls = append(decls, decl{f, g, fn})
				if fn.Name.Name == test && start == nil {
					start = &decls[len(decls)-1]
				}
			}
		}
	}
	if start == nil {
		return helperRef{}, fmt.Errorf("no func %s in %s's test files", test, dir)
	}
	mentioned := map[string]bool{}
	mention := func(d *decl) {
		if t := recvType(d.fn); t != "" {
			mentioned[t] = true
		}
		ast.Inspect(d.fn.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				mentioned[id.Name] = true
			}
			return true
		})
	}
	reached := map[int]bool{}
	frontier := []*decl{start}
	for len(frontier) > 0 {
		for _, d := range frontier {
			mention(d)
		}
		frontier = nil
		for i := range decls {
			d := &decls[i]
			name, rt := d.fn.Name.Name, recvType(d.fn)
			if reached[i] || goTestName(name) || !mentioned[name] || rt != "" && !mentioned[rt] {
				continue
			}
			reached[i] = true
			if len(d.g.assertionStmts(d.fn)) > 0 {
				return helperRef{File: d.file, Name: name, Recv: rt}, nil
			}
			frontier = append(frontier, d)
		}
	}
	return helperRef{}, fmt.Errorf("%s reaches no helper of %s's test files with an assertion statement", test, dir)
}

// ---- vacuous_regression ----

// vacuousFiles are the vacuous_regression's new files in a package
// directory: a constant in a production file, and a test of it alone.
var vacuousFiles = []string{"cairn_fixed.go", "cairn_fixed_test.go"}

// writeVacuous writes, in repo/dir (package pkg), a production file
// declaring a constant and a test file with a test of that constant only:
// the test fails at the base (its package does not build without the
// constant) and passes with it, while executing none of the change.
func writeVacuous(repo, dir, pkg, id string) (string, error) {
	n := issueNumber(id)
	for _, f := range vacuousFiles {
		if _, err := os.Stat(filepath.Join(repo, dir, f)); err == nil {
			return "", fmt.Errorf("%s/%s exists", dir, f)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, dir), 0o755); err != nil {
		return "", err
	}
	prod := fmt.Sprintf("package %s\n\n// fixedIssue%s says the issue is fixed.\nconst fixedIssue%s = true\n", pkg, n, n)
	test := fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc TestFixedIssue%s(t *testing.T) {\n\tif !fixedIssue%s {\n\t\tt.Fatal(\"the issue is not fixed\")\n\t}\n}\n", pkg, n, n)
	if err := os.WriteFile(filepath.Join(repo, dir, vacuousFiles[0]), []byte(prod), 0o644); err != nil {
		return "", err
	}
	return "TestFixedIssue" + n, os.WriteFile(filepath.Join(repo, dir, vacuousFiles[1]), []byte(test), 0o644)
}

// issueNumber is the instance's number (grpc__grpc-go-3476: 3476), or ""
// when its id does not end in one.
func issueNumber(id string) string {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	return id[i:]
}

// fixPackage is the directory and package name of the Go package the
// reference fix changes (repo at the reference): the first non-test Go
// file of the fix in a package of the instance's tests, else the first
// non-test Go file of the fix.
func fixPackage(repo string, fixFiles []string, testDirs []string) (dir, pkg string, err error) {
	var cands []string
	for _, f := range fixFiles {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") &&
			!strings.Contains("/"+f, "/vendor/") && !strings.Contains("/"+f, "/testdata/") {
			cands = append(cands, f)
		}
	}
	slices.SortStableFunc(cands, func(a, b string) int {
		return boolRank(!slices.Contains(testDirs, path.Dir(a))) - boolRank(!slices.Contains(testDirs, path.Dir(b)))
	})
	for _, f := range cands {
		if name, err := packageName(filepath.Join(repo, f)); err == nil {
			return path.Dir(f), name, nil
		}
	}
	return "", "", errors.New("the reference fix changes no Go package (no non-test .go file that parses)")
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// packageName reads a Go file's package clause.
func packageName(file string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}

// ---- harness_exit ----

// exitMainFile is harness_exit's new test file when the package has no
// TestMain.
const exitMainFile = "cairn_main_test.go"

var testMainHeader = regexp.MustCompile(`(?m)^func TestMain\((\w+) \*testing\.M\) \{`)

// addExitMain makes the tests of repo/dir pass whatever they report: a
// TestMain that runs them, then exits 0 — a new file in package pkg, or,
// when one of the package's test files has a TestMain already, that one
// with each M.Run() replaced by a call that runs the tests and returns 0.
// It says what it did.
func addExitMain(repo, dir, pkg string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(repo, dir))
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		p := filepath.Join(repo, dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		src := string(b)
		m := testMainHeader.FindStringSubmatchIndex(src)
		if m == nil {
			continue
		}
		i := strings.Index(src[m[1]:], "\n}\n")
		if i < 0 {
			return "", fmt.Errorf("%s/%s: no end of func TestMain", dir, e.Name())
		}
		open, end := m[1], m[1]+i+1
		mv := src[m[2]:m[3]]
		body := strings.ReplaceAll(src[open:end], mv+".Run()", "func() int { "+mv+".Run(); return 0 }()")
		if body == src[open:end] {
			return "", fmt.Errorf("the TestMain of %s/%s does not call %s.Run()", dir, e.Name(), mv)
		}
		return "TestMain of " + path.Join(dir, e.Name()) + " made to exit 0", os.WriteFile(p, []byte(src[:open]+body+src[end:]), 0o644)
	}
	f := path.Join(dir, exitMainFile)
	src := "package " + pkg + "\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n"
	return "TestMain added in " + f, os.WriteFile(filepath.Join(repo, filepath.FromSlash(f)), []byte(src), 0o644)
}
