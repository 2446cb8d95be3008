package verify

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// CacheVersion is the format of the base results cached under Dir/cache.
//
//	1  one JSON baseRun per base commit, runner and selector
const CacheVersion = 1

// DefaultReruns is how often a failing test is rerun before it counts as
// failing.
const DefaultReruns = 2

// DefaultBaseRepeats is how often the regression check repeats tests that
// passed at the base once (an intermittent bug, see regressionCheck).
const DefaultBaseRepeats = 10

// Options configure one gate run.
type Options struct {
	Attempt   *task.Attempt // the contract and its resolved base
	Repo      string        // the repository the base is a commit of
	Candidate Candidate
	Executor  sandbox.Executor
	// Dir is the gate's directory: Dir/run holds the workspaces and is
	// removed at the start of every run (so a run killed with SIGKILL
	// leaves nothing the next one trips over); Dir/cache keeps the base
	// results and the Go build cache between runs.
	Dir    string
	Reruns int // reruns of a failing test; 0: DefaultReruns, negative: none
	// BaseRepeats: when no added or changed test fails at the base once,
	// the regression check runs them this many times there (and as many on
	// the change); 0: DefaultBaseRepeats, 1 or negative: once only.
	BaseRepeats int
	Limits      sandbox.Limits // per command; zero fields take the executor's
	// Impact selects the tests that reach a change; nil leaves the
	// impact_tests criterion blocked with the reason.
	Impact ImpactSelector
}

// ImpactSelector is the engine's impact analysis as the gate needs it:
// the test selectors (runner syntax) whose tests reach the changed paths
// of the workspace at dir.
type ImpactSelector interface {
	ImpactTests(ctx context.Context, dir string, changed []string) ([]string, error)
}

type gate struct {
	opts     Options
	contract *task.Contract
	base     string
	patch    []byte
	changed  []sandbox.Change
	runDir   string
	cacheDir string
	n        int
	// findings: the tamper and scope checks found something, so the
	// verdict fails whatever the criteria say (the regression check's
	// repetitions at the base are skipped: they could not change it).
	findings int
	// forged are test results no test file declares (listed.go), found by
	// any run; they join the tamper findings.
	forged []Finding
}

// Verify runs the gate: every criterion of the attempt's contract as an
// executed check in a fresh sandbox workspace on the candidate, the scope
// and tamper checks, and the verdict. An error means the gate itself could
// not run (bad options, a broken environment); a candidate that cannot be
// judged is a report whose verdict is blocked.
func Verify(ctx context.Context, opts Options) (*Report, error) {
	start := time.Now()
	if opts.Attempt == nil || opts.Executor == nil || opts.Repo == "" || opts.Dir == "" {
		return nil, errors.New("verify: Attempt, Executor, Repo and Dir are required")
	}
	if err := opts.Attempt.Check(); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if opts.Reruns == 0 {
		opts.Reruns = DefaultReruns
	}
	if opts.BaseRepeats == 0 {
		opts.BaseRepeats = DefaultBaseRepeats
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	g := &gate{opts: opts, contract: opts.Attempt.Contract(), base: opts.Attempt.Commit(),
		runDir: filepath.Join(dir, "run"), cacheDir: filepath.Join(dir, "cache")}
	// One gate at a time per directory: each starts by wiping dir/run, which
	// would pull the workspaces from under another gate running there. The
	// lock is flock(2)ed, so a gate killed with SIGKILL releases it.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	lock := flock.New(filepath.Join(dir, "LOCK"))
	if ok, err := lock.TryLockContext(ctx, 200*time.Millisecond); err != nil || !ok {
		return nil, fmt.Errorf("verify: wait for another gate using %s: %w", dir, cmp.Or(err, ctx.Err()))
	}
	defer lock.Unlock()
	if err := g.clean(ctx); err != nil {
		return nil, err
	}
	defer g.clean(context.WithoutCancel(ctx))
	r := &Report{ContractHash: opts.Attempt.Hash(), Base: g.base, Backend: opts.Executor.Backend(), Tamper: []Finding{}, Scope: []Finding{}}
	defer func() { r.Duration = time.Since(start) }()

	blockAll := func(reason string) (*Report, error) {
		for _, cr := range g.contract.Criteria {
			r.Criteria = append(r.Criteria, Check{ID: cr.ID, Text: cr.Text, Kind: cr.Check.Kind.String(), Status: Blocked, Reason: reason})
		}
		r.verdict()
		if r.Verdict == Pass || len(r.Criteria) == 0 {
			r.Verdict = Blocked
		}
		r.Reason = reason
		return r, nil
	}
	g.patch, err = opts.Candidate.patch(ctx, opts.Repo, g.base)
	if err != nil {
		return blockAll(err.Error())
	}
	ws, err := g.workspace(ctx, "candidate", g.patch)
	if err != nil {
		return blockAll(err.Error())
	}
	if g.changed, err = ws.Changed(ctx); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	g.changed = patchChanges(g.changed, g.patch)
	r.Changed = g.changed
	r.Scope = scopeFindings(g.contract.Scope, g.changed)
	r.Tamper = g.tamper(ctx, ws)
	g.findings = len(r.Tamper) + len(r.Scope)
	for _, cr := range g.contract.Criteria {
		c := Check{ID: cr.ID, Text: cr.Text, Kind: cr.Check.Kind.String(), ExitCode: -1}
		t0 := time.Now()
		switch cr.Check.Kind {
		case task.CheckTests:
			g.testsCheck(ctx, &c, cr.Check.Selector)
		case task.CheckCommand:
			g.commandCheck(ctx, &c, cr.Check.Argv)
		case task.CheckRegression:
			g.regressionCheck(ctx, &c)
		case task.CheckImpactTests:
			g.impactCheck(ctx, &c)
		case task.CheckScope:
			c.Status = Pass
			if len(r.Scope) > 0 {
				c.Status, c.Reason = Fail, fmt.Sprintf("%d changed paths outside the scope", len(r.Scope))
			}
		default:
			c.Status, c.Reason = Blocked, "unknown check kind"
		}
		if ctx.Err() != nil && c.Status == Pass {
			c.Status, c.Reason = Blocked, "canceled"
		}
		c.Duration = time.Since(t0)
		r.Criteria = append(r.Criteria, c)
	}
	r.Tamper = append(r.Tamper, g.forged...)
	g.forged = nil
	r.verdict()
	return r, nil
}

// clean removes the run directory and the worktree registrations it held.
func (g *gate) clean(ctx context.Context) error {
	if err := os.RemoveAll(g.runDir); err != nil {
		return fmt.Errorf("verify: clean %s: %w", g.runDir, err)
	}
	if _, err := gitRun(ctx, g.opts.Repo, nil, "worktree", "prune"); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// workspace is a fresh workspace at the base with patch applied, its Go
// dependencies fetched before (outside the sandbox, from the base's
// go.mod files) and the gate's build cache as its per-run cache.
func (g *gate) workspace(ctx context.Context, name string, patch []byte) (*sandbox.Workspace, error) {
	return g.workspaceOwned(ctx, name, patch, g.opts.Executor.Owner())
}

// workspaceOwned is workspace with the files handed to owner (nil: left
// to the harness, for a workspace only the harness reads).
func (g *gate) workspaceOwned(ctx context.Context, name string, patch []byte, owner *sandbox.Owner) (*sandbox.Workspace, error) {
	g.n++
	runDir := filepath.Join(g.runDir, fmt.Sprintf("%02d-%s", g.n, safeName(name)))
	ws, err := sandbox.Create(ctx, g.opts.Repo, g.base, runDir, owner)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	build := filepath.Join(g.cacheDir, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		return nil, err
	}
	if owner != nil {
		if err := os.Chown(build, owner.UID, owner.GID); err != nil {
			return nil, err
		}
	}
	if err := os.Symlink(build, filepath.Join(runDir, "cache")); err != nil {
		return nil, err
	}
	if err := sandbox.PrepareGo(ctx, ws); err != nil {
		return nil, err
	}
	if err := applyPatch(ctx, ws, patch, owner); err != nil {
		return nil, err
	}
	return ws, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// exec runs one command and fills the check's command fields; reason is
// non-empty when the command could not give an answer (blocked).
func (g *gate) exec(ctx context.Context, c *Check, ws *sandbox.Workspace, cmd sandbox.Command) (res *sandbox.Result, reason string) {
	cmd.Limit = g.opts.Limits
	c.Argv, c.Dir = cmd.Argv, cmd.Dir
	res, err := g.opts.Executor.Run(ctx, ws, cmd)
	if err != nil {
		return nil, err.Error()
	}
	c.ExitCode, c.Backend = res.ExitCode, res.Backend
	c.Evidence = excerpt(string(res.Stderr), 2<<10)
	out := string(res.Stdout) + string(res.Stderr)
	switch {
	case res.TimedOut:
		return res, "killed at the wall limit"
	case res.Canceled:
		return res, "canceled"
	case res.ExitCode == 127 || res.ExitCode == 126:
		return res, fmt.Sprintf("%s could not be run (exit %d: not found or not executable)", cmd.Argv[0], res.ExitCode)
	case strings.Contains(out, "panic: test timed out after"):
		return res, "go test killed a hung test at its -timeout"
	}
	return res, ""
}

func (g *gate) commandCheck(ctx context.Context, c *Check, argv []string) {
	ws, err := g.workspace(ctx, c.ID, g.patch)
	if err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	res, reason := g.exec(ctx, c, ws, sandbox.Command{Argv: argv})
	if res != nil {
		c.Evidence = excerpt(string(res.Stdout)+string(res.Stderr), 4<<10)
	}
	switch {
	case reason != "":
		c.Status, c.Reason = Blocked, reason
	case res.ExitCode == 0:
		c.Status = Pass
	default:
		c.Status, c.Reason = Fail, fmt.Sprintf("exit code %d", res.ExitCode)
	}
}

// testRun runs a test command and parses it; reason is non-empty when it
// gave no answer (blocked), a build failure included.
func (g *gate) testRun(ctx context.Context, c *Check, ws *sandbox.Workspace, r Runner, cmd sandbox.Command) (*Run, string) {
	res, reason := g.exec(ctx, c, ws, cmd)
	if res == nil {
		return nil, reason
	}
	run, err := r.Parse(ws, res)
	if err != nil {
		return nil, fmt.Sprintf("%s output: %v", r.Name(), err)
	}
	g.checkListed(ws, r, cmd, run)
	if reason != "" {
		return run, reason
	}
	if len(run.BuildFailed) > 0 {
		c.Evidence = excerpt(string(res.Stdout)+string(res.Stderr), 4<<10)
		return run, fmt.Sprintf("build failed: %s", strings.Join(run.BuildFailed, ", "))
	}
	if len(run.Unlisted) > 0 {
		return run, strings.Join(run.Unlisted, "; ")
	}
	return run, ""
}

func (g *gate) testsCheck(ctx context.Context, c *Check, selector string) {
	ws, err := g.workspace(ctx, c.ID, g.patch)
	if err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	r, err := runnerFor(ws, selector)
	if err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	if err := g.prepare(ctx, r, ws); err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	cmd, err := r.Plan(ws, selector, nil)
	if err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	run, reason := g.testRun(ctx, c, ws, r, cmd)
	if run != nil {
		c.Tests = run.Tests
	}
	if reason != "" {
		c.Status, c.Reason = Blocked, reason
		return
	}
	argv, dir, exit := c.Argv, c.Dir, c.ExitCode
	g.rerun(ctx, c, ws, r, selector)
	if !namesTests(selector) {
		// a selector that names tests is the specification: a failure at
		// the base excuses nothing it names
		g.preExisting(ctx, c, r, selector)
	}
	c.Argv, c.Dir, c.ExitCode = argv, dir, exit
	c.Tests = withNamed(c.Tests, append(namedTests(selector), run.Expected...))
	c.Status, c.Reason = judgeTests(c.Tests)
}

// prepare installs what the runner needs in a fresh workspace (see
// preparer).
func (g *gate) prepare(ctx context.Context, r Runner, ws *sandbox.Workspace) error {
	if p, ok := r.(preparer); ok {
		if err := p.Prepare(ctx, ws, g.cacheDir); err != nil {
			return fmt.Errorf("verify: %s: %w", r.Name(), err)
		}
	}
	return nil
}

// withNamed adds a not_run result for every test the selector names that
// has no result.
func withNamed(tests []TestResult, names []string) []TestResult {
	for _, n := range names {
		if !slices.ContainsFunc(tests, func(t TestResult) bool { return t.Name == n }) {
			tests = append(tests, TestResult{Name: n, Outcome: OutcomeNotRun, Output: "selected by name and never ran"})
		}
	}
	return tests
}

// judgeTests is a tests criterion's status from its tests' outcomes.
func judgeTests(tests []TestResult) (Status, string) {
	count := map[Outcome][]string{}
	for _, t := range tests {
		count[t.Outcome] = append(count[t.Outcome], t.Name)
	}
	switch {
	case len(count[OutcomeFail]) > 0:
		return Fail, fmt.Sprintf("failing: %s", strings.Join(count[OutcomeFail], ", "))
	case len(count[OutcomeFlaky]) > 0:
		return Fail, fmt.Sprintf("flaky (failed, then passed on a rerun; never a pass): %s", strings.Join(count[OutcomeFlaky], ", "))
	case len(count[OutcomeNotRun]) > 0:
		return NotRun, fmt.Sprintf("never ran: %s", strings.Join(count[OutcomeNotRun], ", "))
	case len(count[OutcomePass]) == 0 && len(count[OutcomePreExisting]) == 0:
		return NotRun, fmt.Sprintf("no test ran (%d skipped)", len(count[OutcomeSkip]))
	}
	var notes []string
	if n := count[OutcomePreExisting]; len(n) > 0 {
		notes = append(notes, fmt.Sprintf("excused %d failing at the base too (pre-existing): %s", len(n), strings.Join(n, ", ")))
	}
	if n := count[OutcomeSkip]; len(n) > 0 {
		notes = append(notes, "skipped (not counted as passing): "+strings.Join(n, ", "))
	}
	return Pass, strings.Join(notes, "; ")
}

// rerun reruns the failing tests up to Reruns times; one that passes is
// flaky.
func (g *gate) rerun(ctx context.Context, c *Check, ws *sandbox.Workspace, r Runner, selector string) {
	for i := 1; i <= g.opts.Reruns; i++ {
		var failing []TestID
		for _, t := range c.Tests {
			if t.Outcome == OutcomeFail {
				failing = append(failing, TestID{t.Package, t.Name})
			}
		}
		if len(failing) == 0 {
			return
		}
		cmd, err := r.Plan(ws, selector, failing)
		if err != nil {
			return
		}
		var scratch Check
		run, reason := g.testRun(ctx, &scratch, ws, r, cmd)
		if reason != "" || run == nil {
			return
		}
		for j, t := range c.Tests {
			if t.Outcome != OutcomeFail {
				continue
			}
			for _, rt := range run.Tests {
				if rt.Package == t.Package && rt.Name == t.Name && rt.Outcome == OutcomePass {
					c.Tests[j].Outcome, c.Tests[j].Reruns = OutcomeFlaky, i
				}
			}
		}
	}
}

// baseRun is one selector's results at the base, cached by base commit.
type baseRun struct {
	Version int          `json:"version"`
	Base    string       `json:"base"`
	Tests   []TestResult `json:"tests"`
	Blocked string       `json:"blocked,omitempty"`
}

// preExisting marks the tests still failing that fail at the base too.
func (g *gate) preExisting(ctx context.Context, c *Check, r Runner, selector string) {
	if !slices.ContainsFunc(c.Tests, func(t TestResult) bool { return t.Outcome == OutcomeFail }) {
		return
	}
	b := g.baseResults(ctx, r, selector)
	for j, t := range c.Tests {
		if t.Outcome != OutcomeFail {
			continue
		}
		for _, bt := range b.Tests {
			if bt.Package == t.Package && bt.Name == t.Name && bt.Outcome == OutcomeFail {
				c.Tests[j].Outcome = OutcomePreExisting
			}
		}
	}
}

func (g *gate) baseResults(ctx context.Context, r Runner, selector string) *baseRun {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s\x00%s\x00%s", CacheVersion, g.base, r.Name(), selector)))
	file := filepath.Join(g.cacheDir, "base", hex.EncodeToString(sum[:12])+".json")
	var b baseRun
	if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &b) == nil && b.Version == CacheVersion && b.Base == g.base {
		return &b
	}
	b = baseRun{Version: CacheVersion, Base: g.base}
	ws, err := g.workspace(ctx, "base", nil)
	if err == nil {
		err = g.prepare(ctx, r, ws)
	}
	if err != nil {
		b.Blocked = err.Error()
		return &b
	}
	cmd, err := r.Plan(ws, selector, nil)
	if err != nil {
		b.Blocked = err.Error()
		return &b
	}
	var scratch Check
	run, reason := g.testRun(ctx, &scratch, ws, r, cmd)
	if run != nil {
		b.Tests = run.Tests
	}
	b.Blocked = reason
	if ctx.Err() == nil && reason == "" {
		if data, err := json.Marshal(&b); err == nil && os.MkdirAll(filepath.Dir(file), 0o755) == nil {
			tmp := file + ".tmp"
			if os.WriteFile(tmp, data, 0o644) == nil {
				os.Rename(tmp, file)
			}
		}
	}
	return &b
}

func (g *gate) impactCheck(ctx context.Context, c *Check) {
	if g.opts.Impact == nil {
		c.Status, c.Reason = Blocked, "impact analysis is not available to the gate (no engine impact selector wired: Options.Impact)"
		return
	}
	// The engine indexes this workspace as the harness; the tests it
	// selects run in fresh ones.
	ws, err := g.workspaceOwned(ctx, c.ID+"-index", g.patch, nil)
	if err != nil {
		c.Status, c.Reason = Blocked, err.Error()
		return
	}
	var paths []string
	for _, ch := range g.changed {
		paths = append(paths, ch.Path)
	}
	sels, err := g.opts.Impact.ImpactTests(ctx, ws.Dir, paths)
	if err != nil {
		c.Status, c.Reason = Blocked, fmt.Sprintf("impact: %v", err)
		return
	}
	if len(sels) == 0 {
		c.Status, c.Reason = NotRun, "impact selected no tests for the diff"
		return
	}
	var all []TestResult
	for _, sel := range sels {
		sub := Check{ID: c.ID}
		g.testsCheck(ctx, &sub, sel)
		all = append(all, sub.Tests...)
		c.Argv, c.Dir, c.ExitCode, c.Backend = sub.Argv, sub.Dir, sub.ExitCode, sub.Backend
		if sub.Status == Blocked {
			c.Tests, c.Status, c.Reason = all, Blocked, sel+": "+sub.Reason
			return
		}
	}
	c.Tests = all
	c.Status, c.Reason = judgeTests(all)
	c.Reason = strings.TrimSuffix(fmt.Sprintf("selected %v; %s", sels, c.Reason), "; ")
}

// isTestFile reports whether a path is test code or test data.
func isTestFile(p string) bool {
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py"):
		return true
	case jsTestFile.MatchString(base) || strings.Contains("/"+p, "/__tests__/"):
		return true
	case strings.Contains("/"+p, "/testdata/"):
		return true
	}
	return false
}

// patchChanges drops the go.mod and go.sum changes the patch does not
// name. The harness's own preparation edits those — go mod download with
// -mod=mod rewrites an old go.mod for today's toolchain (grpc-go-2996's
// base) — and that is not the candidate's change: judged as one, it failed
// the scope of a change that touched nothing. Every other path stays,
// whatever the patch's headers say (a name git quotes must not slip out of
// the scope check).
func patchChanges(changed []sandbox.Change, patch []byte) []sandbox.Change {
	in := map[string]bool{}
	for _, fp := range splitPatch(patch) {
		in[fp.path] = true
	}
	out := []sandbox.Change{}
	for _, c := range changed {
		if b := path.Base(c.Path); (b == "go.mod" || b == "go.sum") && !in[c.Path] {
			continue
		}
		out = append(out, c)
	}
	return out
}
