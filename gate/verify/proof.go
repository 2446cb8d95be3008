package verify

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// Proof is what one regression test shows: how it failed at the base (with
// only the diff's test files applied), how it ran on the change, and, when
// the failure at the base alone does not tie it to the change, which of the
// change's statements it executed there.
type Proof struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	// BaseOutcome and BaseFailure: fail with "assertion" (a t.Error/Fatal,
	// an error the test reports), "panic", "timeout" or "build" (the
	// package does not build without the change), or pass / not_run.
	BaseOutcome Outcome `json:"base_outcome"`
	BaseFailure string  `json:"base_failure,omitempty"`
	// BaseMessage is the test's failure output at the base, or the build
	// error (bounded).
	BaseMessage   string  `json:"base_message,omitempty"`
	ChangeOutcome Outcome `json:"change_outcome"`
	// Coverage of the change's executable statements by this test alone,
	// on the change (go test -coverpkg): the statements of changed lines,
	// those it executed, and those of them in functions the base has too.
	Coverage *ProofCoverage `json:"coverage,omitempty"`
	// Counts: the test proves the change (it fails at the base for the
	// behaviour and passes on the change); Reason says why not, or how.
	Counts bool   `json:"counts"`
	Reason string `json:"reason"`
}

// ProofCoverage is a regression test's coverage of the change's lines.
type ProofCoverage struct {
	Statements int      `json:"changed_statements"`           // executable statements on lines the change adds or edits
	Executed   int      `json:"executed"`                     // of them, executed by the test
	InExisting int      `json:"executed_in_existing"`         // of those, in functions that exist at the base
	Functions  []string `json:"executed_functions,omitempty"` // the changed functions it executed
}

// changedLines are the new-side line numbers a patch adds, per path.
func changedLines(patch []byte) map[string][]int {
	out := map[string][]int{}
	for _, fp := range splitPatch(patch) {
		var lines []int
		n := 0
		in := false
		sc := bufio.NewScanner(bytes.NewReader(fp.text))
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "@@ "):
				// @@ -a,b +c,d @@
				in = false
				f := strings.Fields(l)
				if len(f) >= 3 && strings.HasPrefix(f[2], "+") {
					s, _, _ := strings.Cut(f[2][1:], ",")
					if v, err := strconv.Atoi(s); err == nil {
						n, in = v, true
					}
				}
			case !in:
			case strings.HasPrefix(l, "+"):
				lines = append(lines, n)
				n++
			case strings.HasPrefix(l, "-"), strings.HasPrefix(l, `\`):
			default:
				n++
			}
		}
		if len(lines) > 0 {
			out[fp.path] = lines
		}
	}
	return out
}

// funcSpan is a function declaration's lines and its name (Recv.Name for a
// method).
type funcSpan struct {
	name       string
	start, end int
}

// goFuncs are the function declarations of a Go source.
func goFuncs(src []byte) ([]funcSpan, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if f == nil {
		return nil, false
	}
	var out []funcSpan
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			t := fd.Recv.List[0].Type
			for {
				switch x := t.(type) {
				case *ast.StarExpr:
					t = x.X
					continue
				case *ast.IndexExpr:
					t = x.X
					continue
				case *ast.IndexListExpr:
					t = x.X
					continue
				}
				break
			}
			if id, ok := t.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		out = append(out, funcSpan{name, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line})
	}
	return out, err == nil
}

// goModulePath is the module path of the go.mod in dir.
func goModulePath(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// coverBlock is one block of a coverage profile.
type coverBlock struct {
	file                 string // the profile's name: import path + "/" + file
	startLine, endLine   int
	statements, executed int
}

// parseCoverProfile reads a go test -coverprofile file (any mode).
func parseCoverProfile(b []byte) ([]coverBlock, error) {
	var out []coverBlock
	lines := strings.Split(string(b), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "mode: ") {
		return nil, fmt.Errorf("not a coverage profile")
	}
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		// file.go:1.2,3.4 stmts count
		colon := strings.LastIndex(l, ":")
		f := strings.Fields(l[colon+1:])
		if colon < 0 || len(f) != 3 {
			return nil, fmt.Errorf("coverage profile line %q", l)
		}
		start, end, _ := strings.Cut(f[0], ",")
		sl, _, _ := strings.Cut(start, ".")
		el, _, _ := strings.Cut(end, ".")
		a, e1 := strconv.Atoi(sl)
		z, e2 := strconv.Atoi(el)
		st, e3 := strconv.Atoi(f[1])
		cnt, e4 := strconv.Atoi(f[2])
		if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
			return nil, fmt.Errorf("coverage profile line %q", l)
		}
		out = append(out, coverBlock{file: l[:colon], startLine: a, endLine: z, statements: st, executed: cnt})
	}
	return out, nil
}

// changeCode is the change's executable Go code in one module: the
// changed non-test files with their changed lines, function spans and the
// functions the base has.
type changeCode struct {
	modDir  string // slash path of the module, relative to the root
	modPath string
	files   map[string]*changedFile // by import path + "/" + name, as profiles name them
	pkgs    []string                // import paths, for -coverpkg
}

type changedFile struct {
	rel      string
	lines    []int
	funcs    []funcSpan
	existing map[string]bool // function names the base's file declares
}

// changeCodeIn collects the change's non-test Go files in the module at
// modDir (a slash path relative to the workspace root).
func (g *gate) changeCodeIn(ctx context.Context, ws *sandbox.Workspace, modDir string) *changeCode {
	cc := &changeCode{modDir: modDir, modPath: goModulePath(filepath.Join(ws.Dir, filepath.FromSlash(modDir))), files: map[string]*changedFile{}}
	if cc.modPath == "" {
		return cc
	}
	added := changedLines(g.patch)
	for _, ch := range g.changed {
		p := ch.Path
		if ch.Status == "D" || !strings.HasSuffix(p, ".go") || isTestFile(p) || len(added[p]) == 0 {
			continue
		}
		rel := p
		if modDir != "." {
			var ok bool
			if rel, ok = strings.CutPrefix(p, modDir+"/"); !ok {
				continue
			}
		}
		if ownModule(ws.Dir, modDir, path.Dir(p)) != modDir {
			continue // a nested module's file
		}
		src, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		funcs, _ := goFuncs(src)
		existing := map[string]bool{}
		if b, ok := showBase(ctx, g.opts.Repo, g.base, p); ok {
			bf, _ := goFuncs(b)
			for _, f := range bf {
				existing[f.name] = true
			}
		}
		imp := cc.modPath
		if d := path.Dir(rel); d != "." {
			imp += "/" + d
		}
		cc.files[imp+"/"+path.Base(rel)] = &changedFile{rel: p, lines: added[p], funcs: funcs, existing: existing}
		if !slices.Contains(cc.pkgs, imp) {
			cc.pkgs = append(cc.pkgs, imp)
		}
	}
	slices.Sort(cc.pkgs)
	return cc
}

// ownModule is the module directory (slash, relative) a directory belongs
// to: the nearest go.mod at or above it, never above the root.
func ownModule(root, modDir, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d), "go.mod")); err == nil {
			return d
		}
		if d == "." || d == "/" || d == "" {
			return "."
		}
	}
}

// measure reads a profile against the change's code: a block counts
// when it holds a line the change adds or edits.
func (cc *changeCode) measure(blocks []coverBlock) *ProofCoverage {
	type agg struct {
		b     coverBlock
		count int
	}
	byKey := map[string]*agg{}
	var keys []string
	for _, b := range blocks {
		key := fmt.Sprintf("%s:%d-%d", b.file, b.startLine, b.endLine)
		if a := byKey[key]; a != nil {
			a.count += b.executed // a block listed once per test binary
			continue
		}
		byKey[key] = &agg{b, b.executed}
		keys = append(keys, key)
	}
	cov := &ProofCoverage{}
	for _, k := range keys {
		a := byKey[k]
		f := cc.files[a.b.file]
		if f == nil || a.b.statements == 0 || !slices.ContainsFunc(f.lines, func(l int) bool { return l >= a.b.startLine && l <= a.b.endLine }) {
			continue
		}
		cov.Statements += a.b.statements
		if a.count > 0 {
			cov.Executed += a.b.statements
			cc.countExisting(f, a.b, cov)
		}
	}
	slices.Sort(cov.Functions)
	cov.Functions = slices.Compact(cov.Functions)
	return cov
}

func (cc *changeCode) countExisting(f *changedFile, b coverBlock, cov *ProofCoverage) {
	for _, fn := range f.funcs {
		if b.startLine >= fn.start && b.endLine <= fn.end {
			cov.Functions = append(cov.Functions, f.rel+":"+fn.name)
			if f.existing[fn.name] {
				cov.InExisting += b.statements
			}
			return
		}
	}
}

// testCoverage runs one test on the change with coverage of the change's
// packages and measures it. An error means coverage could not be
// collected (the proof is then blocked, never assumed).
func (g *gate) testCoverage(ctx context.Context, c *Check, ws *sandbox.Workspace, cc *changeCode, grp testGroup, name string) (*ProofCoverage, error) {
	one := groupOf(grp, name)
	r := goRunner{}
	cmd, err := r.Plan(ws, one.selector(), nil)
	if err != nil {
		return nil, err
	}
	if len(cc.pkgs) == 0 {
		return &ProofCoverage{}, nil
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	prof := ".cairn-cover-" + hex.EncodeToString(rnd[:]) + ".out"
	argv := slices.Clone(cmd.Argv)
	for i, a := range argv {
		if a == "-count=1" {
			argv = slices.Insert(argv, i+1, "-covermode=count", "-coverpkg="+strings.Join(cc.pkgs, ","), "-coverprofile="+prof)
			break
		}
	}
	cmd.Argv = argv
	var scratch Check
	run, reason := g.testRun(ctx, &scratch, ws, r, cmd)
	if reason != "" {
		return nil, fmt.Errorf("the coverage run %v: %s", argv, reason)
	}
	if t := findTest(run.Tests, name); t == nil || t.Outcome != OutcomePass {
		return nil, fmt.Errorf("%s did not pass in the coverage run %v", name, argv)
	}
	file := filepath.Join(ws.Dir, filepath.FromSlash(cmd.Dir), prof)
	b, err := os.ReadFile(file)
	os.Remove(file)
	if err != nil {
		return nil, fmt.Errorf("the coverage run %v wrote no profile: %w", argv, err)
	}
	blocks, err := parseCoverProfile(b)
	if err != nil {
		return nil, fmt.Errorf("the coverage run's profile: %w", err)
	}
	return cc.measure(blocks), nil
}

// groupOf is the group that runs just one of grp's tests.
func groupOf(grp testGroup, name string) testGroup {
	parent, sub, isSub := strings.Cut(name, "/")
	if !isSub {
		return testGroup{Dir: grp.Dir, Names: []string{name}, Run: "^(" + name + ")$"}
	}
	return testGroup{Dir: grp.Dir, Names: []string{name}, Run: "^(" + parent + ")$/^(" + sub + "|Test" + sub + ")$"}
}

// baseFailure classifies a base result: how the test failed there.
func baseFailure(t TestResult, buildFailed bool) string {
	switch {
	case buildFailed:
		return "build"
	case t.Outcome != OutcomeFail:
		return ""
	case strings.Contains(t.Output, "panic: test timed out"):
		return "timeout"
	case strings.Contains(t.Output, "panic:") || strings.Contains(t.Output, "[cairn: the test binary exited"):
		return "panic"
	}
	return "assertion"
}

// goFrame is a goroutine trace's function line: pkg.(*T).M( or pkg.F(.
var goFrame = regexp.MustCompile(`^(?:[\w./-]+\.)?(?:\(\*?(\w+)\)\.)?(\w+)\(`)

// panicsIn names the function the change edits that a failure's
// goroutine trace passes through ("" if none): a panic at the base inside
// the code the change fixes ties the failure to the change even when the
// test, run again on the change, does not reach that code (a race: grpc-go
// 2371 panics in ClientConn.handleServiceConfig one run in four, and the
// fix's check runs only when the race is lost).
func (cc *changeCode) panicsIn(message string) string {
	lines := strings.Split(message, "\n")
	for i := 0; i+1 < len(lines); i++ {
		m := goFrame.FindStringSubmatch(strings.TrimSpace(lines[i]))
		loc := strings.TrimSpace(lines[i+1])
		if m == nil || !strings.HasPrefix(lines[i+1], "\t") {
			continue
		}
		file, _, _ := strings.Cut(loc, ":")
		name := m[2]
		if m[1] != "" {
			name = m[1] + "." + m[2]
		}
		for _, f := range cc.files {
			if !strings.HasSuffix(file, "/"+f.rel) && file != f.rel {
				continue
			}
			for _, fn := range f.funcs {
				if fn.name == name && slices.ContainsFunc(f.lines, func(l int) bool { return l >= fn.start && l <= fn.end }) {
					return f.rel + ":" + name
				}
			}
		}
	}
	return ""
}

// tCall is a call that hands the test's T to a function: a helper that may
// assert (testutil.Equal(t, …), check(t, …)).
var tCall = regexp.MustCompile(`([\w.]+)\((?:t|s\.T\(\))[,)]`)

// asserts says whether a test of the candidate asserts anything: an
// assertion in its body or in a helper of the package's test files it
// reaches (tamper.go's count), or a call that hands its T to a function
// the test files do not declare (another package's helper, which may
// assert). found is false when the test is not in the package's files.
func (g *gate) asserts(ctx context.Context, ws *sandbox.Workspace, dir, name string) (asserting, found bool) {
	_, cand := g.goPackages(ctx, ws, []string{dir})
	top, sub, isSub := strings.Cut(name, "/")
	for _, f := range cand[dir] {
		t := f.Tests[top]
		if isSub {
			if t = f.Tests[sub]; t == nil {
				t = f.Tests["Test"+sub]
			}
		}
		if t == nil {
			continue
		}
		if t.Asserts > 0 {
			return true, true
		}
		declared := map[string]bool{}
		for _, ff := range cand[dir] {
			for k := range ff.Helpers {
				declared[k] = true
				if _, m, ok := strings.Cut(k, "."); ok {
					declared[m] = true
				}
			}
		}
		for _, m := range tCall.FindAllStringSubmatch(t.Body, -1) {
			callee := m[1]
			last := callee[strings.LastIndex(callee, ".")+1:]
			if strings.HasPrefix(callee, "t.") || declared[last] {
				continue // the T's own method, or a helper of the test files (counted)
			}
			return true, true // another package's helper may assert
		}
		return false, true
	}
	return false, false
}

// editsBaseCode reports whether a patch removes or rewrites a line of Go
// code the base has (not a blank line or a comment) outside the tests: a
// change that only adds declarations changes nothing the base runs.
func editsBaseCode(patch []byte) bool {
	for _, fp := range splitPatch(patch) {
		if !strings.HasSuffix(fp.path, ".go") || isTestFile(fp.path) {
			continue
		}
		for _, l := range strings.Split(string(fp.text), "\n") {
			if !strings.HasPrefix(l, "-") || strings.HasPrefix(l, "---") {
				continue
			}
			if t := strings.TrimSpace(l[1:]); t != "" && !strings.HasPrefix(t, "//") {
				return true
			}
		}
	}
	return false
}
