package verify

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// Runner turns a test selector into a command and its output into
// per-test results: go test -json, pytest (--junitxml), jest and vitest
// (their JSON reports).
type Runner interface {
	Name() string
	// Plan is the command for a selector in a workspace; with only set,
	// the command runs just those tests (a rerun, a regression check).
	Plan(ws *sandbox.Workspace, selector string, only []TestID) (sandbox.Command, error)
	// Parse reads a command's result (and any report file the command
	// wrote in the workspace). Build failures are Run.BuildFailed, not
	// errors; an error means the output is not the runner's.
	Parse(ws *sandbox.Workspace, res *sandbox.Result) (*Run, error)
}

// TestID names a test: its package (import path for Go) and name.
type TestID struct{ Package, Name string }

// Run is what a runner read from one command.
type Run struct {
	Tests       []TestResult
	BuildFailed []string // packages that did not build
	// BuildOutput is what the build printed for those packages (bounded).
	BuildOutput string
	// Unlisted says why some results could not be checked against the
	// tests the package declares (listed.go): the run is blocked.
	Unlisted []string
	Expected []string // names the selector asked for by name
}

// preparer is a Runner that installs what its command needs in a fresh
// workspace, outside the sandbox, before its first Plan there (jest and
// vitest: the package's node_modules). cache is the gate's Dir/cache.
type preparer interface {
	Prepare(ctx context.Context, ws *sandbox.Workspace, cache string) error
}

// runnerFor picks the runner a selector is written for: pytest's node ids
// and .py paths, jest's or vitest's JS/TS files and -t (which of the two
// the package decides: nodeRunnerFor), Go's package patterns otherwise.
func runnerFor(ws *sandbox.Workspace, selector string) (Runner, error) {
	f := strings.Fields(selector)
	if len(f) == 0 {
		return nil, errors.New("empty test selector")
	}
	first := f[0]
	switch {
	case strings.Contains(first, "::") || strings.HasSuffix(first, ".py"):
		return pytestRunner{}, nil
	case isNodeSelector(selector):
		return nodeRunnerFor(ws.Dir, selector)
	}
	return goRunner{}, nil
}

// goRunner runs go test -json.
//
// The selector is package patterns and an optional -run REGEX (as
// "-run R" or "-run=R"); any other flag is refused. Patterns are relative
// to the repository root; the command runs in the nearest directory above
// the first pattern that has a go.mod, with the patterns made relative to
// it (a repository whose module lives in server/ takes "./server/...").
type goRunner struct{}

func (goRunner) Name() string { return "go" }

func (goRunner) Plan(ws *sandbox.Workspace, selector string, only []TestID) (sandbox.Command, error) {
	var pats []string
	var run string
	f := strings.Fields(selector)
	for i := 0; i < len(f); i++ {
		switch a := f[i]; {
		case a == "-run" || a == "--run":
			if i+1 == len(f) {
				return sandbox.Command{}, errors.New("-run needs a regular expression")
			}
			run = f[i+1]
			i++
		case strings.HasPrefix(a, "-run=") || strings.HasPrefix(a, "--run="):
			run = a[strings.Index(a, "=")+1:]
		case strings.HasPrefix(a, "-"):
			return sandbox.Command{}, fmt.Errorf("go test selector: flag %q is not allowed (only -run)", a)
		default:
			pats = append(pats, a)
		}
	}
	if len(pats) == 0 {
		pats = []string{"./..."}
	}
	if run != "" {
		if _, err := regexp.Compile(run); err != nil {
			return sandbox.Command{}, fmt.Errorf("go test selector: -run %q: %v", run, err)
		}
	}
	mod, rel, err := moduleOf(ws.Dir, pats)
	if err != nil {
		return sandbox.Command{}, err
	}
	argv := []string{"go", "test", "-json", "-count=1"}
	if len(only) > 0 {
		names, pkgs := []string{}, []string{}
		for _, t := range only {
			top, _, _ := strings.Cut(t.Name, "/")
			names = append(names, regexp.QuoteMeta(top))
			pkgs = append(pkgs, t.Package)
		}
		slices.Sort(names)
		slices.Sort(pkgs)
		argv = append(argv, "-run", "^("+strings.Join(slices.Compact(names), "|")+")$")
		argv = append(argv, slices.Compact(pkgs)...)
	} else {
		if run != "" {
			argv = append(argv, "-run", run)
		}
		argv = append(argv, rel...)
	}
	return sandbox.Command{Argv: argv, Dir: mod}, nil
}

// moduleOf finds the module directory of the patterns (the nearest
// go.mod at or above the first relative one) and rewrites the relative
// patterns against it; import paths stay as they are.
func moduleOf(root string, pats []string) (mod string, rel []string, err error) {
	split := func(p string) (dir string, recursive, isRel bool) {
		if p != "." && p != "./..." && !strings.HasPrefix(p, "./") {
			return "", false, false
		}
		recursive = strings.HasSuffix(p, "/...")
		return path.Clean(strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")), recursive, true
	}
	for _, p := range pats {
		if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
			return "", nil, fmt.Errorf("go test selector: %q leaves the repository", p)
		}
	}
	mod = ""
	for _, p := range pats {
		d, _, ok := split(p)
		if !ok {
			continue
		}
		if strings.HasPrefix(d, "..") {
			return "", nil, fmt.Errorf("go test selector: %q leaves the repository", p)
		}
		for m := d; ; m = path.Dir(m) {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m), "go.mod")); err == nil {
				mod = m
				break
			}
			if m == "." {
				return "", nil, fmt.Errorf("go test selector %q: no go.mod at or above %s", p, d)
			}
		}
		break
	}
	if mod == "" {
		mod = "."
	}
	for _, p := range pats {
		d, recursive, ok := split(p)
		if !ok {
			rel = append(rel, p)
			continue
		}
		var r string
		switch {
		case d == mod:
			r = "."
		case mod == ".":
			r = "./" + d
		case strings.HasPrefix(d, mod+"/"):
			r = "./" + strings.TrimPrefix(d, mod+"/")
		default:
			return "", nil, fmt.Errorf("go test selector: %q is not in the module at %s", p, mod)
		}
		if recursive {
			r = strings.TrimSuffix(r, "/.") + "/..."
			if r == "./..." || r == "/..." {
				r = "./..."
			}
		}
		rel = append(rel, r)
	}
	return mod, rel, nil
}

// goEvent is one line of go test -json (test2json's TestEvent, and the
// build events of Go 1.24+).
type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

func (goRunner) Parse(_ *sandbox.Workspace, res *sandbox.Result) (*Run, error) {
	run := &Run{}
	type state struct {
		r       TestResult
		started bool // a "run" event
		ended   bool
		runs    int
		output  strings.Builder
	}
	tests := map[TestID]*state{}
	var order []TestID
	pkgOut := map[string]*strings.Builder{}
	failed := map[string]bool{}
	pkgFailed := map[string]bool{} // the package's own "fail" event
	events := 0
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e goEvent
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		events++
		if e.Test == "" {
			pkg := cmpOr(e.Package, e.ImportPath)
			if pkgOut[pkg] == nil {
				pkgOut[pkg] = &strings.Builder{}
			}
			switch e.Action {
			case "output", "build-output":
				if pkgOut[pkg].Len() < 8<<10 {
					pkgOut[pkg].WriteString(e.Output)
				}
			case "build-fail":
				failed[pkg] = true
			case "fail":
				pkgFailed[pkg] = true
				if e.FailedBuild != "" {
					failed[e.FailedBuild] = true
					failed[pkg] = true
				}
			}
			continue
		}
		id := TestID{e.Package, e.Test}
		st := tests[id]
		if st == nil {
			st = &state{r: TestResult{Package: e.Package, Name: e.Test, Outcome: OutcomeNotRun}}
			tests[id] = st
			order = append(order, id)
		}
		switch e.Action {
		case "run":
			// -count=N runs a test N times: each run must end
			st.started, st.ended = true, false
			st.runs++
		case "pass", "fail", "skip":
			st.ended = true
			if st.r.Outcome != OutcomeFail { // a failure in any repetition stands
				st.r.Outcome = Outcome(e.Action)
			}
			st.r.Elapsed += e.Elapsed
		case "output":
			if st.output.Len() < 4<<10 {
				st.output.WriteString(e.Output)
			}
		}
	}
	// A package that failed with no test of its own ending is a build or
	// setup failure ("[build failed]", "[setup failed]") whatever Go version
	// printed it.
	for pkg, b := range pkgOut {
		s := b.String()
		if strings.Contains(s, "[build failed]") || strings.Contains(s, "[setup failed]") {
			failed[pkg] = true
		}
	}
	for pkg := range failed {
		// "m/p [m/p.test]" is the test variant of m/p.
		if pkg, _, _ = strings.Cut(pkg, " ["); pkg != "" {
			run.BuildFailed = append(run.BuildFailed, pkg)
		}
	}
	slices.Sort(run.BuildFailed)
	run.BuildFailed = slices.Compact(run.BuildFailed)
	var bo strings.Builder
	for _, pkg := range slices.Sorted(maps.Keys(failed)) {
		if b := pkgOut[pkg]; b != nil {
			bo.WriteString(b.String())
		}
	}
	run.BuildOutput = excerpt(bo.String(), 2<<10)
	if events == 0 && res.ExitCode != 0 {
		// go test printed no events: the go command itself failed (a
		// bad pattern, no module) before any package ran.
		run.BuildFailed = append(run.BuildFailed, "(go test)")
	}
	for _, id := range order {
		st := tests[id]
		if st.started && !st.ended && pkgFailed[id.Package] && !failed[id.Package] {
			// the test binary exited while this test ran (os.Exit,
			// log.Fatal, a crash, the -timeout panic): the test failed;
			// the tests after it never ran
			st.r.Outcome = OutcomeFail
			st.output.WriteString("\n[cairn: the test binary exited while this test ran]\n")
		}
		if st.r.Outcome != OutcomePass {
			st.r.Output = excerpt(st.output.String(), 2<<10)
		}
		if st.runs > 1 {
			st.r.Runs = st.runs
		}
		run.Tests = append(run.Tests, st.r)
	}
	return run, nil
}

// namedTests are the names a -run regular expression selects exactly:
// "^TestA$", "^(TestA|TestB)$", "TestA|TestB" written as plain names.
func namedTests(selector string) []string {
	f := strings.Fields(selector)
	var re string
	for i, a := range f {
		if (a == "-run" || a == "--run") && i+1 < len(f) {
			re = f[i+1]
		} else if v, ok := strings.CutPrefix(a, "-run="); ok {
			re = v
		}
	}
	if re == "" || strings.Contains(re, "/") {
		return nil
	}
	body := strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$")
	if !strings.HasPrefix(re, "^") || !strings.HasSuffix(re, "$") {
		return nil
	}
	body = strings.TrimSuffix(strings.TrimPrefix(body, "("), ")")
	var names []string
	for _, n := range strings.Split(body, "|") {
		if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(n) {
			return nil
		}
		names = append(names, n)
	}
	return names
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
