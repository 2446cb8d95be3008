package verify

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/agent/sandbox"
)

// changedTests are the Go tests the diff adds or changes, by directory:
// a test whose name is new, or whose body differs from the base's.
func (g *gate) changedTests(ctx context.Context, ws *sandbox.Workspace) (byDir map[string][]string, other []string) {
	byDir = map[string][]string{}
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
		base := &testFile{Tests: map[string]*testFunc{}}
		if b, ok := showBase(ctx, g.opts.Repo, g.base, ch.Path); ok {
			base, _ = analyzeTest(ch.Path, b)
		}
		for _, name := range cand.Order {
			// a suite's methods run as subtests under a name go test's
			// -run cannot be told from here (grpc-go's Test/Foo)
			if !IsGoTest(ch.Path, name) || cand.Tests[name].Method {
				continue
			}
			if b, ok := base.Tests[name]; !ok || b.Body != cand.Tests[name].Body {
				d := path.Dir(ch.Path)
				byDir[d] = append(byDir[d], name)
			}
		}
	}
	return byDir, other
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
	byDir, other := g.changedTests(ctx, cand)
	if len(byDir) == 0 {
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
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	failedAtBase := 0
	for _, d := range dirs {
		names := byDir[d]
		slices.Sort(names)
		sel := "./" + d + " -run ^(" + strings.Join(names, "|") + ")$"
		if d == "." {
			sel = "./ -run ^(" + strings.Join(names, "|") + ")$"
		}
		r := goRunner{}
		// At the base: each must fail; a package that does not build
		// with the fix left out fails too (the test needs the fix).
		cmd, err := r.Plan(baseWS, sel, nil)
		if err != nil {
			c.Status, c.Reason = Blocked, err.Error()
			return
		}
		var scratch Check
		run, reason := g.testRun(ctx, &scratch, baseWS, r, cmd)
		buildFailed := run != nil && len(run.BuildFailed) > 0
		if reason != "" && !buildFailed {
			c.Status, c.Reason = Blocked, "at the base: "+reason
			c.Evidence = scratch.Evidence
			return
		}
		for _, n := range names {
			o := OutcomeNotRun
			if buildFailed {
				o = OutcomeFail
			} else if t := findTest(run.Tests, n); t != nil {
				o = t.Outcome
			}
			if o == OutcomeFail {
				failedAtBase++
			}
			out := "base with the diff's test files only"
			if buildFailed {
				out += ": the package does not build"
			}
			c.BaseTests = append(c.BaseTests, TestResult{Package: d, Name: n, Outcome: o, Output: out})
		}
		// On the change: each must pass.
		cmd, err = r.Plan(cand, sel, nil)
		if err != nil {
			c.Status, c.Reason = Blocked, err.Error()
			return
		}
		run, reason = g.testRun(ctx, c, cand, r, cmd)
		if reason != "" {
			c.Status, c.Reason = Blocked, "on the change: "+reason
			return
		}
		for _, n := range names {
			t := findTest(run.Tests, n)
			if t == nil {
				t = &TestResult{Package: d, Name: n, Outcome: OutcomeNotRun}
			}
			c.Tests = append(c.Tests, *t)
		}
	}
	var notPassing []string
	for _, t := range c.Tests {
		if t.Outcome != OutcomePass {
			notPassing = append(notPassing, t.Name+" "+string(t.Outcome))
		}
	}
	switch {
	case len(notPassing) > 0:
		c.Status, c.Reason = Fail, "added or changed tests do not pass on the change: "+strings.Join(notPassing, ", ")
	case failedAtBase == 0:
		c.Status, c.Reason = Fail, "no added or changed test fails at the base: none shows the bug the change fixes"
	default:
		c.Status, c.Reason = Pass, fmt.Sprintf("%d of %d added or changed tests fail at the base and all pass on the change", failedAtBase, len(c.Tests))
	}
}

func findTest(ts []TestResult, name string) *TestResult {
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i]
		}
	}
	return nil
}
