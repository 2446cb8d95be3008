package verify

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// testGroup is one go test run of the regression check: a package and
// the tests the diff adds or changes there, as go test names them.
type testGroup struct {
	Dir   string   // the package's directory, slash-separated
	Names []string // "TestX", or "Parent/Sub" for a suite's method
	Run   string   // the -run expression that selects exactly those
}

// changedTests are the Go tests the diff adds or changes, by package: a
// test whose name is new, whose body differs from the base's, or that
// mentions a helper of the package's test files (function, method,
// package variable) that is new or changed, directly or through other
// helpers. A suite's method (`func (s) TestX`, run by a top-level test
// that mentions its receiver type, as grpc-go's grpctest does) is
// selected as Parent/X, the name such suites give it, or Parent/TestX.
func (g *gate) changedTests(ctx context.Context, ws *sandbox.Workspace) (groups []testGroup, other []string) {
	type pkgState struct {
		changed        map[string]bool // tests changed by body or name
		changedHelpers map[string]bool
	}
	pkgs := map[string]*pkgState{}
	for _, ch := range g.changed {
		if ch.Status == "D" || !isTestFile(ch.Path) || strings.Contains("/"+ch.Path, "/testdata/") {
			continue
		}
		if !strings.HasSuffix(ch.Path, "_test.go") {
			other = append(other, ch.Path)
			continue
		}
		src, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(ch.Path)))
		if err != nil {
			continue
		}
		cand, _ := analyzeTest(ch.Path, src)
		base := &testFile{Tests: map[string]*testFunc{}, Helpers: map[string]*goDecl{}}
		if b, ok := showBase(ctx, g.opts.Repo, g.base, ch.Path); ok {
			base, _ = analyzeTest(ch.Path, b)
		}
		d := path.Dir(ch.Path)
		ps := pkgs[d]
		if ps == nil {
			ps = &pkgState{changed: map[string]bool{}, changedHelpers: map[string]bool{}}
			pkgs[d] = ps
		}
		for _, name := range cand.Order {
			if b, ok := base.Tests[name]; !ok || b.Body != cand.Tests[name].Body {
				ps.changed[name] = true
			}
		}
		for name, h := range cand.Helpers {
			if b, ok := base.Helpers[name]; !ok || b.Body != h.Body {
				ps.changedHelpers[name] = true
			}
		}
	}
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		groups = append(groups, packageGroups(ws, d, pkgs[d].changed, pkgs[d].changedHelpers)...)
	}
	return groups, other
}

// packageGroups reads every _test.go file of the package in dir and turns
// its changed tests, and the tests that reach a changed helper, into go
// test runs: one for top-level tests, one per suite parent.
func packageGroups(ws *sandbox.Workspace, dir string, changed, changedHelpers map[string]bool) []testGroup {
	tests := map[string]*testFunc{}
	var order []string
	helpers := map[string]*goDecl{}
	entries, _ := os.ReadDir(filepath.Join(ws.Dir, filepath.FromSlash(dir)))
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(ws.Dir, filepath.FromSlash(dir), e.Name()))
		if err != nil {
			continue
		}
		f, ok := analyzeTest(e.Name(), src)
		if !ok {
			continue
		}
		for _, n := range f.Order {
			if _, dup := tests[n]; !dup {
				order = append(order, n)
			}
			tests[n] = f.Tests[n]
		}
		for n, h := range f.Helpers {
			helpers[n] = h
		}
	}
	// the helpers that are changed or reach a changed one
	reach := maps.Clone(changedHelpers)
	for grew := len(reach) > 0; grew; {
		grew = false
		for n, h := range helpers {
			if !reach[n] && reaches(h.Refs, reach, helpers) {
				reach[n], grew = true, true
			}
		}
	}
	var top []string
	suites := map[string][]string{} // receiver type → its changed methods
	for _, n := range order {
		t := tests[n]
		if !IsGoTest(path.Join(dir, "x_test.go"), n) {
			continue
		}
		if !changed[n] && !reaches(t.Refs, reach, helpers) {
			continue
		}
		if t.Method {
			if t.Recv != "" {
				suites[t.Recv] = append(suites[t.Recv], n)
			}
			continue
		}
		top = append(top, n)
	}
	var groups []testGroup
	if len(top) > 0 {
		slices.Sort(top)
		groups = append(groups, testGroup{Dir: dir, Names: top, Run: "^(" + strings.Join(top, "|") + ")$"})
	}
	recvs := slices.Sorted(maps.Keys(suites))
	for _, recv := range recvs {
		methods := suites[recv]
		slices.Sort(methods)
		// the top-level tests that run this receiver's methods
		var parents []string
		for _, n := range order {
			if t := tests[n]; !t.Method && IsGoTest(path.Join(dir, "x_test.go"), n) && slices.Contains(t.Refs, recv) {
				parents = append(parents, n)
			}
		}
		if len(parents) == 0 {
			continue // nothing here runs them
		}
		slices.Sort(parents)
		var subs, names []string
		for _, m := range methods {
			short := strings.TrimPrefix(m, "Test")
			subs = append(subs, short, m)
			for _, p := range parents {
				names = append(names, p+"/"+short)
			}
		}
		groups = append(groups, testGroup{Dir: dir, Names: names,
			Run: "^(" + strings.Join(parents, "|") + ")$/^(" + strings.Join(subs, "|") + ")$"})
	}
	return groups
}

// regressionCheck: a test the diff adds or changes fails at the base with
// only the diff's test files applied (or its package does not build
// there), and every such test passes on the change.
func (g *gate) regressionCheck(ctx context.Context, c *Check) {
	cand, err := g.workspace(ctx, c.ID, g.patch)
	if err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	groups, other := g.changedTests(ctx, cand)
	if len(groups) == 0 {
		if len(other) > 0 {
			c.Status, c.Reason = Blocked, fmt.Sprintf("the diff changes tests only in %v, and the regression check runs Go tests only so far", other)
			return
		}
		c.Status, c.Reason = Fail, "the diff adds or changes no test: nothing shows the change fixes anything"
		return
	}
	testsOnly := selectPatch(g.patch, isTestFile)
	baseWS, err := g.workspace(ctx, c.ID+"-base", testsOnly)
	if err != nil {
		c.Status, c.Reason = Blocked, "the diff's test files alone do not apply at the base: "+err.Error()
		return
	}
	// At the base: each must fail; a package that does not build with the
	// fix left out fails too (the test needs the fix).
	failedAtBase := 0
	r := goRunner{}
	for _, grp := range groups {
		run, reason, ok := g.regressionRun(ctx, c, baseWS, grp, 1)
		if !ok {
			c.Status, c.Reason = Blocked, "at the base: "+reason
			return
		}
		failedAtBase += g.baseOutcomes(c, grp, run, "base with the diff's test files only")
	}
	// None failed once: a race or timing bug fails only now and then at the
	// base (grpc-go 2371: one run in four). The tests run again, repeated,
	// and a failure in any repetition shows the bug; the same repetitions
	// must then pass on the change, every one.
	repeat := 1
	skipped := failedAtBase == 0 && g.opts.BaseRepeats > 1 && g.findings > 0
	if failedAtBase == 0 && g.opts.BaseRepeats > 1 && !skipped {
		repeat = g.opts.BaseRepeats
		c.BaseTests = nil
		for _, grp := range groups {
			run, reason, ok := g.regressionRun(ctx, c, baseWS, grp, repeat)
			if !ok {
				c.Status, c.Reason = Blocked, "at the base, repeated: "+reason
				return
			}
			failedAtBase += g.baseOutcomes(c, grp, run, fmt.Sprintf("base with the diff's test files only, run up to %d times (-count=%d -failfast)", repeat, repeat))
		}
		repeat = 1 // none fails at the base: the verdict is fail, the change runs once for the record
		if failedAtBase > 0 {
			repeat = changeRepeats(c.BaseTests, g.opts.BaseRepeats)
		}
	}
	// On the change: each must pass (every repetition).
	onChange := map[string]Outcome{} // by package directory and name
	for _, grp := range groups {
		cmd, err := r.Plan(cand, grp.selector(), nil)
		if err != nil {
			c.Status, c.Reason = Blocked, err.Error()
			return
		}
		run, reason := g.testRun(ctx, c, cand, r, repeated(cmd, repeat))
		if reason != "" {
			c.Status, c.Reason = Blocked, "on the change: "+reason
			return
		}
		for _, n := range grp.Names {
			t := findTest(run.Tests, n)
			if t == nil {
				t = &TestResult{Package: grp.Dir, Name: n, Outcome: OutcomeNotRun}
			}
			c.Tests = append(c.Tests, *t)
			onChange[grp.Dir+"\x00"+n] = t.Outcome
		}
	}
	var notPassing []string
	for _, t := range c.Tests {
		if t.Outcome != OutcomePass {
			notPassing = append(notPassing, t.Name+" "+string(t.Outcome))
		}
	}
	// Each test that failed at the base and passes on the change: does its
	// failure tie it to the change?
	counted, blocked := 0, ""
	if len(notPassing) == 0 && failedAtBase > 0 {
		counted, blocked = g.proofs(ctx, c, cand, groups, onChange)
	}
	switch {
	case len(notPassing) > 0:
		c.Status, c.Reason = Fail, "added or changed tests do not pass on the change: "+strings.Join(notPassing, ", ")
	case failedAtBase == 0:
		c.Status, c.Reason = Fail, "no added or changed test fails at the base: none shows the bug the change fixes"
		switch {
		case skipped:
			c.Reason += fmt.Sprintf(" (run once: the %d tamper and scope findings fail the verdict already, so the %d repetitions that could show an intermittent failure were skipped)", g.findings, g.opts.BaseRepeats)
		case g.opts.BaseRepeats > 1:
			c.Reason += fmt.Sprintf(" (not in %d repetitions either)", g.opts.BaseRepeats)
		}
	case counted == 0 && blocked != "":
		c.Status, c.Reason = Blocked, blocked
	case counted == 0:
		var why []string
		for _, p := range c.Proofs {
			if p.BaseOutcome == OutcomeFail {
				why = append(why, p.Test+": "+p.Reason)
			}
		}
		c.Status, c.Reason = Fail, fmt.Sprintf("%d added or changed tests fail at the base, but none proves the change: %s", failedAtBase, strings.Join(why, "; "))
	case repeat > 1:
		c.Status, c.Reason = Pass, fmt.Sprintf("%d of %d added or changed tests fail at the base only intermittently (passed once, then failed within %d repetitions) and all pass %d repetitions on the change; %d prove the change", failedAtBase, len(c.Tests), g.opts.BaseRepeats, repeat, counted)
	default:
		c.Status, c.Reason = Pass, fmt.Sprintf("%d of %d added or changed tests fail at the base and all pass on the change; %d prove the change", failedAtBase, len(c.Tests), counted)
	}
}

// proofs judges each regression test that failed at the base and passes
// on the change (Check.Proofs, one per test of the groups). A failure at
// the base ties a test to the change when it is behaviour — an
// assertion, a panic, a time-out — and the test executes some of the
// change's statements (when the change has any). A package that does not
// build at the base ties nothing by itself (the test may use only a
// constant or a helper the change adds, which nothing on the bug's path
// calls): such a test counts only when it executes changed statements,
// and says whether any are in functions the base has. Coverage that cannot be collected
// blocks the proof, never passes it.
func (g *gate) proofs(ctx context.Context, c *Check, cand *sandbox.Workspace, groups []testGroup, onChange map[string]Outcome) (counted int, blocked string) {
	codes := map[string]*changeCode{}
	// A change of tests alone runs the same code at the base and on the
	// change: a test that fails there and passes here does so by chance
	// (grpc-go 2371's race, test patch only: it panics at the base one run
	// in four).
	testsOnly := !slices.ContainsFunc(g.changed, func(ch sandbox.Change) bool { return !isTestFile(ch.Path) })
	editsBase := editsBaseCode(g.patch)
	for _, grp := range groups {
		mod, _, err := moduleOf(cand.Dir, []string{"./" + grp.Dir})
		if err != nil {
			return 0, err.Error()
		}
		cc := codes[mod]
		if cc == nil {
			cc = g.changeCodeIn(ctx, cand, mod)
			codes[mod] = cc
		}
		for _, n := range grp.Names {
			p := Proof{Package: grp.Dir, Test: n, BaseOutcome: OutcomeNotRun, ChangeOutcome: OutcomeNotRun}
			var base *TestResult
			for i := range c.BaseTests {
				if c.BaseTests[i].Package == grp.Dir && c.BaseTests[i].Name == n {
					base = &c.BaseTests[i]
				}
			}
			if base != nil {
				p.BaseOutcome, p.BaseMessage = base.Outcome, base.Output
				p.BaseFailure = baseFailure(*base, strings.Contains(base.Output, "does not build"))
			}
			if o, ok := onChange[grp.Dir+"\x00"+n]; ok {
				p.ChangeOutcome = o
			}
			switch {
			case p.BaseOutcome != OutcomeFail:
				p.Reason = "does not fail at the base"
			case p.ChangeOutcome != OutcomePass:
				p.Reason = "does not pass on the change"
			case testsOnly:
				p.Reason = "the change touches no file but tests: the base and the change run the same code, so failing there and passing here is chance (a flaky or environment-dependent test), not the change"
			case len(cc.files) == 0 && p.BaseFailure == "build":
				p.Reason = "fails at the base only because its package does not build without the change, and the change has no Go code in this module for it to execute"
			case len(cc.files) == 0:
				p.Counts, p.Reason = true, fmt.Sprintf("fails at the base (%s) and passes on the change; the change has no Go code in this module to execute", p.BaseFailure)
			default:
				cov, err := g.testCoverage(ctx, c, cand, cc, grp, n)
				if err != nil {
					p.Reason = "coverage could not be collected: " + err.Error()
					if blocked == "" {
						blocked = n + ": " + p.Reason
					}
					break
				}
				p.Coverage = cov
				p.Counts, p.Reason = judgeProof(p.BaseFailure, cov, editsBase)
				if p.Counts && p.BaseFailure == "build" {
					// it failed at the base only by not building: it must at
					// least check something on the change
					if asserting, found := g.asserts(ctx, cand, grp.Dir, n); found && !asserting {
						p.Counts, p.Reason = false, "fails at the base only because its package does not build without the change, and asserts nothing (no assertion in it or in the helpers it reaches, and it hands its T to no other helper): it only shows the change builds and runs"
					}
				}
				if fn := cc.panicsIn(p.BaseMessage); !p.Counts && p.BaseFailure != "build" && fn != "" {
					p.Counts, p.Reason = true, fmt.Sprintf("fails at the base (%s) inside %s, which the change edits, and passes on the change (run once with coverage it executed %d of the %d changed statements: the failing path is not taken every run)", p.BaseFailure, fn, cov.Executed, cov.Statements)
				}
			}
			if p.Counts {
				counted++
			}
			c.Proofs = append(c.Proofs, p)
		}
	}
	return counted, blocked
}

// judgeProof: does a test that failed at the base (how: failure) and
// executed cov of the change prove it?
func judgeProof(failure string, cov *ProofCoverage, editsBase bool) (bool, string) {
	executed := fmt.Sprintf("executes %d of the change's %d changed statements", cov.Executed, cov.Statements)
	switch {
	case failure == "build" && cov.InExisting > 0:
		return true, fmt.Sprintf("does not build at the base without the change, and on the change %s, %d of them in code the base has (%s)", executed, cov.InExisting, strings.Join(cov.Functions, ", "))
	case failure == "build" && cov.Executed > 0 && !editsBase:
		// only new code, and the change rewrites nothing the base has: a
		// helper nothing on the base's path calls, and its test
		return false, fmt.Sprintf("fails at the base only because its package does not build without the change, and %s, all of them in code the change adds (%s), while the change removes or rewrites no code the base has: a test of a new helper that nothing the base runs calls proves no fix", executed, strings.Join(cov.Functions, ", "))
	case failure == "build" && cov.Executed > 0:
		// A refactor's new API tested directly (grpc-go 3476: the test
		// calls the BuilderMap.Equal the fix adds, which nothing else calls
		// yet) cannot be told from a helper nothing on a bug's path calls:
		// it counts, and the proof says which it is.
		return true, fmt.Sprintf("does not build at the base without the change, and on the change %s, all of them in code the change adds (%s): it shows the new code works, not that code the base has was wrong", executed, strings.Join(cov.Functions, ", "))
	case failure == "build":
		return false, fmt.Sprintf("fails at the base only because its package does not build without the change, and %s: it proves nothing about the change's behaviour", executed)
	case cov.Statements == 0:
		return true, fmt.Sprintf("fails at the base (%s) and passes on the change; the change has no executable statement (constants, declarations)", failure)
	case cov.Executed == 0:
		return false, fmt.Sprintf("fails at the base (%s) but %s: its failure is not the change's doing", failure, executed)
	}
	return true, fmt.Sprintf("fails at the base (%s) and passes on the change, and %s (%s)", failure, executed, strings.Join(cov.Functions, ", "))
}

// reaches: code that mentions refs calls or reads a helper in reach. A
// function or variable is mentioned by its name; a method by its name
// together with its receiver type, mentioned directly or through the
// helpers it mentions (a constructor's result) — a changed
// delayListener.Dial reaches the test that builds a delayListener, not
// every test that calls grpc.Dial (grpc-go 2629: that selected all of
// test/'s end-to-end tests and ran past the wall limit).
func reaches(refs []string, reach map[string]bool, helpers map[string]*goDecl) bool {
	var mentionsType func(refs []string, typ string, seen map[string]bool) bool
	mentionsType = func(refs []string, typ string, seen map[string]bool) bool {
		for _, r := range refs {
			if r == typ {
				return true
			}
			if h := helpers[r]; h != nil && !seen[r] {
				seen[r] = true
				if mentionsType(h.Refs, typ, seen) {
					return true
				}
			}
		}
		return false
	}
	if slices.ContainsFunc(refs, func(r string) bool { return reach[r] }) {
		return true // a function or variable (a method's key is "Recv.Name")
	}
	for key := range reach {
		h := helpers[key]
		if h == nil || h.Recv == "" || !slices.Contains(refs, h.Name) {
			continue
		}
		if mentionsType(refs, h.Recv, map[string]bool{}) {
			return true
		}
	}
	return false
}

// changeRepeats is how often the change must pass the tests that failed
// at the base only on repetition: a test whose first failure came in run r
// fails there about once in r runs, and the change passes it M times in a
// row by chance with (1-1/r)^M — M is the least that makes that 5 % or
// less, at least repeats and at most 3×repeats (r = 3: 10; r = 10: 29).
// Of several such tests the one that failed soonest sets M.
func changeRepeats(base []TestResult, repeats int) int {
	m := 3 * repeats
	for _, t := range base {
		if t.Outcome != OutcomeFail {
			continue
		}
		r := max(t.Runs, 1)
		need := repeats
		if r > 1 {
			need = int(math.Ceil(math.Log(0.05) / math.Log(1-1/float64(r))))
		}
		m = min(m, max(need, repeats))
	}
	return m
}

// selector is the go test selector of the group.
func (grp testGroup) selector() string {
	if grp.Dir == "." {
		return "./ -run " + grp.Run
	}
	return "./" + grp.Dir + " -run " + grp.Run
}

// regressionRun runs the group's tests in ws, each count times; ok is
// false when the run could not be judged (a build failure is judged: the
// test needs the fix).
func (g *gate) regressionRun(ctx context.Context, c *Check, ws *sandbox.Workspace, grp testGroup, count int) (run *Run, reason string, ok bool) {
	r := goRunner{}
	cmd, err := r.Plan(ws, grp.selector(), nil)
	if err != nil {
		return nil, err.Error(), false
	}
	var scratch Check
	run, reason = g.testRun(ctx, &scratch, ws, r, repeated(cmd, count))
	if reason != "" && (run == nil || len(run.BuildFailed) == 0) {
		c.Evidence = scratch.Evidence
		return nil, reason, false
	}
	return run, "", true
}

// baseOutcomes records the group's outcomes at the base and counts the
// tests that fail there.
func (g *gate) baseOutcomes(c *Check, grp testGroup, run *Run, note string) (failed int) {
	buildFailed := len(run.BuildFailed) > 0
	for _, n := range grp.Names {
		o, runs := OutcomeNotRun, 0
		if buildFailed {
			o = OutcomeFail
		} else if t := findTest(run.Tests, n); t != nil {
			o, runs = t.Outcome, t.Runs
		}
		if o == OutcomeFail {
			failed++
		}
		out := note
		if buildFailed {
			out += ": the package does not build\n" + run.BuildOutput
		} else if o == OutcomeFail {
			if t := findTest(run.Tests, n); t != nil && t.Output != "" {
				out += ":\n" + t.Output
			}
		}
		c.BaseTests = append(c.BaseTests, TestResult{Package: grp.Dir, Name: n, Outcome: o, Runs: runs, Output: out})
	}
	return failed
}

// repeated is a go test command that runs each test count times and stops
// at the first failure (a failure in any repetition is the test's
// outcome, see goRunner.Parse).
func repeated(cmd sandbox.Command, count int) sandbox.Command {
	if count <= 1 {
		return cmd
	}
	argv := slices.Clone(cmd.Argv)
	for i, a := range argv {
		if a == "-count=1" {
			argv = slices.Insert(argv, i, "-failfast")
			argv[i+1] = fmt.Sprintf("-count=%d", count)
			break
		}
	}
	cmd.Argv = argv
	return cmd
}

func findTest(ts []TestResult, name string) *TestResult {
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i]
		}
	}
	return nil
}
