package eval

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/eval"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
)

// Variants are the gate suite's candidate changes per instance, in run
// order: the reference must pass, every other must not.
var Variants = []string{"reference", "test_only", "no_change", "skip_added", "assertions_neutralised", "test_deleted", "ci_edited", "out_of_scope",
	"vacuous_regression", "helper_neutralised", "harness_exit"}

// Instance is one Multi-SWE-bench-style task (../shared/bench/gate's
// format).
type Instance struct {
	ID    string `json:"instance_id"`
	Org   string `json:"org"`
	Repo  string `json:"repo"`
	Title string `json:"title"`
	Body  string `json:"body"`
	Base  struct {
		SHA string `json:"sha"`
	} `json:"base"`
	FixPatch  string   `json:"fix_patch"`
	TestPatch string   `json:"test_patch"`
	F2P       []string `json:"f2p_tests"`
	N2P       []string `json:"n2p_tests"`
	S2P       []string `json:"s2p_tests"`
	P2P       []string `json:"p2p_tests"`
}

// check says what an instance is missing, or nil.
func (in Instance) check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"instance_id", in.ID}, {"org", in.Org}, {"repo", in.Repo}, {"base.sha", in.Base.SHA}, {"fix_patch", in.FixPatch}, {"test_patch", in.TestPatch}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(in.F2P)+len(in.N2P)+len(in.S2P) == 0 {
		missing = append(missing, "f2p_tests/n2p_tests/s2p_tests (all empty)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("instance %q: missing %s", in.ID, strings.Join(missing, ", "))
	}
	if strings.Contains(in.Org, "/") || strings.Contains(in.Repo, "/") || strings.Contains(in.Org, "..") || strings.Contains(in.Repo, "..") {
		return fmt.Errorf("instance %q: bad org/repo %q/%q", in.ID, in.Org, in.Repo)
	}
	return nil
}

// LoadInstances reads a JSON Lines file of instances; each must name its
// repository, base, patches and tests.
func LoadInstances(file string) ([]Instance, error) {
	ins, err := eval.ReadLines[Instance](file)
	if err != nil {
		return nil, err
	}
	for i, in := range ins {
		if err := in.check(); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", file, i+1, err)
		}
	}
	return ins, nil
}

// GateOptions configure a gate suite run.
type GateOptions struct {
	Instances []Instance
	// ReposRoot holds ReposRoot/ORG/REPO, a clone or a bare git dir of
	// each instance's repository.
	ReposRoot string
	// Work keeps what is prepared per base revision (a shared clone with
	// its module dependencies downloaded) and the gate directories (their
	// build caches) between runs.
	Work string
	// GateRoot holds the gate directories (verify.Options.Dir: the Go
	// build cache and the base results) per base revision; default
	// Work/gate.
	GateRoot string
	Executor sandbox.Executor
	Variants []string // default: all, in Variants' order
	// Naive also runs the check a gate replaces, the instance's tests with
	// plain `go test -run` on the host, per variant.
	Naive bool
	// NaiveEnv is the naive run's environment (cmd passes the host's; a
	// library reads no environment of its own).
	NaiveEnv []string
	Reruns   int
	Limits   sandbox.Limits
	// Until: start no instance after it (zero: no limit).
	Until time.Time
	// Progress gets a line per row as it is made; nil: none.
	Progress io.Writer
	// Partial, when set, is a file each row is appended to as it is made
	// (the rows.jsonl line, synced): a run killed after an hour keeps the
	// rows it finished.
	Partial string
}

// GateRow is one instance and variant.
type GateRow struct {
	Instance string   `json:"instance_id"`
	Variant  string   `json:"variant"`
	Expected string   `json:"expected"` // pass, or not_pass
	Verdict  string   `json:"verdict"`  // the gate's; n/a when the variant could not be made, error when the gate could not run
	OK       bool     `json:"ok"`       // the verdict is the expected one
	Caught   []string `json:"caught,omitempty"`
	Flaky    []string `json:"flaky,omitempty"` // tests that failed, then passed on a rerun
	Seconds  float64  `json:"seconds"`
	// NaivePass: the instance's tests pass with plain go test on the
	// variant (what a gate-less harness would accept).
	NaivePass    *bool   `json:"naive_pass,omitempty"`
	NaiveSeconds float64 `json:"naive_seconds,omitempty"`
	Note         string  `json:"note,omitempty"`
}

func (r GateRow) RowKey() string     { return r.Instance + "/" + r.Variant }
func (r GateRow) RowOutcome() string { return r.Verdict }

// GateInstance is one instance's timing, and why it could not run.
type GateInstance struct {
	ID           string  `json:"instance_id"`
	PrepSeconds  float64 `json:"prepare_seconds"`
	GateSeconds  float64 `json:"gate_seconds"`
	TotalSeconds float64 `json:"total_seconds"`
	Error        string  `json:"error,omitempty"`
}

// GateDetail is the gate suite's summary detail.
type GateDetail struct {
	// Confusion counts rows per variant and verdict.
	Confusion  map[string]map[string]int `json:"confusion"`
	Verdicts   []string                  `json:"verdicts"` // the confusion matrix's columns
	PerVariant []GateVariantSummary      `json:"per_variant"`
	Instances  []GateInstance            `json:"instances"`
	Flaky      []string                  `json:"flaky"`
	Stopped    string                    `json:"stopped,omitempty"`
}

// GateVariantSummary is one variant over the instances.
type GateVariantSummary struct {
	Variant     string  `json:"variant"`
	Expected    string  `json:"expected"`
	Rows        int     `json:"rows"`
	Made        int     `json:"made"` // not n/a
	AsExpected  int     `json:"as_expected"`
	Pass        int     `json:"pass"`
	NaivePass   int     `json:"naive_pass"`
	NaiveRun    int     `json:"naive_run"`
	MeanSeconds float64 `json:"mean_seconds"`
}

// GateResult is a finished gate suite.
type GateResult struct {
	Rows    []GateRow
	Summary *eval.Summary
	Detail  GateDetail
}

func expected(v string) string {
	if v == "reference" {
		return "pass"
	}
	return "not_pass"
}

// RunGate runs the gate suite: for each instance, the repository prepared
// at the base outside the sandbox (cached by base revision), a contract
// from the instance's tests and files, and every variant judged by the
// gate in-process (verify.Verify, the same call `cairn verify` ends in).
func RunGate(ctx context.Context, opts GateOptions) (*GateResult, error) {
	if len(opts.Instances) == 0 {
		return nil, eval.ErrNoTasks
	}
	if opts.ReposRoot == "" || opts.Work == "" || opts.Executor == nil {
		return nil, errors.New("eval gate: ReposRoot, Work and Executor are required")
	}
	vs := opts.Variants
	if len(vs) == 0 {
		vs = Variants
	}
	for _, v := range vs {
		if !slices.Contains(Variants, v) {
			return nil, fmt.Errorf("eval gate: unknown variant %q (have %s)", v, strings.Join(Variants, ", "))
		}
	}
	res := &GateResult{}
	for _, in := range opts.Instances {
		if !opts.Until.IsZero() && time.Now().After(opts.Until) {
			res.Detail.Stopped = fmt.Sprintf("stopped before %s: past the deadline %s", in.ID, opts.Until.UTC().Format(time.RFC3339))
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		gi := GateInstance{ID: in.ID}
		rows, prep, err := gateInstance(ctx, opts, in, vs)
		gi.PrepSeconds = prep.Seconds()
		if err != nil {
			gi.Error = err.Error()
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "%s: %v\n", in.ID, err)
			}
			for _, v := range vs {
				rows = append(rows, GateRow{Instance: in.ID, Variant: v, Expected: expected(v), Verdict: "error", Note: eval.OneLine(err.Error())})
			}
		}
		for _, r := range rows {
			gi.GateSeconds += r.Seconds
		}
		gi.TotalSeconds = time.Since(t0).Seconds()
		res.Detail.Instances = append(res.Detail.Instances, gi)
		res.Rows = append(res.Rows, rows...)
	}
	if err := res.summarize(vs); err != nil {
		return nil, err
	}
	return res, nil
}

// gateVerdicts are the confusion matrix's columns.
var gateVerdicts = []string{"pass", "fail", "blocked", "not_run", "n/a", "error"}

func (res *GateResult) summarize(vs []string) error {
	d := &res.Detail
	d.Verdicts = gateVerdicts
	d.Confusion = map[string]map[string]int{}
	m := map[string]float64{}
	var order []string
	made, asExpected, flagged, mutations := 0, 0, 0, 0
	for _, v := range vs {
		s := GateVariantSummary{Variant: v, Expected: expected(v)}
		d.Confusion[v] = map[string]int{}
		var secs []float64
		for _, r := range res.Rows {
			if r.Variant != v {
				continue
			}
			s.Rows++
			d.Confusion[v][r.Verdict]++
			if r.Verdict == "n/a" || r.Verdict == "error" {
				continue
			}
			s.Made++
			secs = append(secs, r.Seconds)
			if r.OK {
				s.AsExpected++
			}
			if r.Verdict == "pass" {
				s.Pass++
			}
			if r.NaivePass != nil {
				s.NaiveRun++
				if *r.NaivePass {
					s.NaivePass++
				}
			}
			for _, f := range r.Flaky {
				d.Flaky = append(d.Flaky, r.Instance+" "+r.Variant+": "+f)
			}
		}
		s.MeanSeconds = eval.Round(eval.Mean(secs))
		if len(secs) == 0 {
			s.MeanSeconds = 0
		}
		d.PerVariant = append(d.PerVariant, s)
		made += s.Made
		asExpected += s.AsExpected
		if v != "reference" {
			mutations += s.Made
			flagged += s.Made - s.Pass
		}
		if s.Made > 0 {
			k := v + "_as_expected"
			m[k] = eval.Round(float64(s.AsExpected) / float64(s.Made))
			order = append(order, k)
		}
	}
	if made > 0 {
		m["as_expected"] = eval.Round(float64(asExpected) / float64(made))
		order = append([]string{"as_expected"}, order...)
	}
	if mutations > 0 {
		m["not_pass_flagged"] = eval.Round(float64(flagged) / float64(mutations))
		order = append(order, "not_pass_flagged")
	}
	var inst []float64
	for _, gi := range d.Instances {
		if gi.Error == "" {
			inst = append(inst, gi.TotalSeconds)
		}
	}
	if len(inst) > 0 {
		m["instance_seconds_mean"] = eval.Round(eval.Mean(inst))
		m["instance_seconds_p50"] = eval.Round(eval.Quantile(inst, 0.5))
		m["instance_seconds_p95"] = eval.Round(eval.Quantile(inst, 0.95))
		order = append(order, "instance_seconds_mean", "instance_seconds_p50", "instance_seconds_p95")
	}
	m["flaky_tests"] = float64(len(d.Flaky))
	order = append(order, "flaky_tests")
	detail, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("gate summary: %w", err)
	}
	res.Summary = &eval.Summary{Suite: eval.SuiteGate, Tasks: len(d.Instances), Rows: len(res.Rows), Metrics: m, Order: order, Detail: detail}
	return nil
}

// Rows returns the rows as the suite-neutral kind.
func (res *GateResult) RowList() []eval.Row {
	out := make([]eval.Row, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r
	}
	return out
}

// prepared is an instance's repository at its base: a clone shared by
// every instance of that base, its Go dependencies downloaded.
type prepared struct {
	clone, gateDir string
}

// prepare clones ReposRoot/ORG/REPO into Work/repos/ORG/REPO@BASE (once
// per base revision; a marker file beside the clone says it is complete)
// and downloads its Go modules, outside any sandbox.
func prepare(ctx context.Context, opts GateOptions, in Instance) (*prepared, error) {
	src, err := filepath.Abs(filepath.Join(opts.ReposRoot, in.Org, in.Repo))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(src); err != nil {
		return nil, fmt.Errorf("no repository %s/%s under --repos-root %s: %w", in.Org, in.Repo, opts.ReposRoot, err)
	}
	key := in.Org + "/" + in.Repo + "@" + in.Base.SHA
	p := &prepared{clone: filepath.Join(opts.Work, "repos", filepath.FromSlash(key)), gateDir: filepath.Join(cmp.Or(opts.GateRoot, filepath.Join(opts.Work, "gate")), filepath.FromSlash(key))}
	// the build cache of the repository's most recent other base: the
	// dependencies they share are not compiled again
	if prev := latestSibling(p.gateDir); prev != "" {
		if err := verify.SeedBuildCache(p.gateDir, prev); err != nil {
			return nil, err
		}
	}
	ready := p.clone + ".ready"
	// the marker names the source: a clone --shared borrows its objects,
	// so a clone of another source (or one whose tree no longer resets) is
	// made again
	if b, err := os.ReadFile(ready); err == nil && strings.TrimSpace(string(b)) == src {
		if err := resetTree(ctx, p.clone, in.Base.SHA); err == nil {
			return p, nil
		}
	}
	os.RemoveAll(p.clone)
	if err := os.MkdirAll(filepath.Dir(p.clone), 0o755); err != nil {
		return nil, err
	}
	if _, err := gitOut(ctx, "", "clone", "-q", "--shared", "--no-checkout", src, p.clone); err != nil {
		return nil, err
	}
	if err := resetTree(ctx, p.clone, in.Base.SHA); err != nil {
		return nil, fmt.Errorf("base %s: %w", in.Base.SHA, err)
	}
	// go mod download in every module of the base (the gate's own
	// preparation then finds the module cache warm); the go.mod edits it
	// makes are undone by the reset before every variant
	ws := &sandbox.Workspace{Dir: p.clone}
	if err := sandbox.PrepareGo(ctx, ws); err != nil {
		return nil, err
	}
	if err := resetTree(ctx, p.clone, in.Base.SHA); err != nil {
		return nil, err
	}
	return p, os.WriteFile(ready, []byte(src+"\n"), 0o644)
}

// latestSibling is the most recently used other gate directory of the
// same repository (ORG/REPO@BASE beside ORG/REPO@OTHER), or "".
func latestSibling(gateDir string) string {
	repo, _, _ := strings.Cut(filepath.Base(gateDir), "@")
	entries, _ := os.ReadDir(filepath.Dir(gateDir))
	var best string
	var bestTime time.Time
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == filepath.Base(gateDir) || !strings.HasPrefix(name, repo+"@") {
			continue
		}
		dir := filepath.Join(filepath.Dir(gateDir), name)
		if _, err := os.Stat(filepath.Join(dir, "cache", "build")); err != nil {
			continue
		}
		// every gate run makes dir/run anew
		if fi, err := os.Stat(dir); err == nil && fi.ModTime().After(bestTime) {
			best, bestTime = dir, fi.ModTime()
		}
	}
	return best
}

// resetTree checks out base in the clone, dropping every change and
// untracked file.
func resetTree(ctx context.Context, dir, base string) error {
	if _, err := gitOut(ctx, dir, "checkout", "-q", "-f", "--detach", base); err != nil {
		return err
	}
	_, err := gitOut(ctx, dir, "clean", "-qfdx")
	return err
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "user.name=cairn-eval", "-c", "user.email=eval@cairn"}, args...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, eval.OneLine(out.String()))
	}
	return out.String(), nil
}

// testFunc matches a top-level Go test function or suite method.
var testFunc = regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?(Test\w+)\(t \*testing\.T\) \{`)

// plan is what an instance's variants need: the contract, the tests by
// package, the test the tamper variants touch.
type plan struct {
	contract           *task.Contract
	byPkg              map[string][]string
	target, targetFile string
	fixFiles, tests    []string
	// fixDir and fixPkg: the package the reference fix changes (where
	// vacuous_regression declares its constant); fixWhy when there is none
	fixDir, fixPkg, fixWhy string
	// helper: the assertion helper helper_neutralised makes vacuous, the
	// first one an instance's test reaches; helperWhy when none does
	helper    helperRef
	helperWhy string
	// targetPkg is the target test file's package clause (harness_exit's
	// TestMain goes there)
	targetPkg string
}

func gateInstance(ctx context.Context, opts GateOptions, in Instance, vs []string) ([]GateRow, time.Duration, error) {
	t0 := time.Now()
	p, err := prepare(ctx, opts, in)
	if err != nil {
		return nil, time.Since(t0), fmt.Errorf("prepare: %w", err)
	}
	pl, err := planInstance(ctx, p.clone, in)
	prep := time.Since(t0)
	if err != nil {
		return nil, prep, err
	}
	var rows []GateRow
	for _, v := range vs {
		r := runVariant(ctx, opts, in, p, pl, v)
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%s %-22s expected %-8s verdict %-7s %5.0fs %s%s\n", in.ID, v, r.Expected, r.Verdict, r.Seconds,
				strings.Join(r.Caught, ", "), noteOf(r.Note))
		}
		rows = append(rows, r)
		if err := appendRow(opts.Partial, r); err != nil {
			return rows, prep, err
		}
	}
	return rows, prep, resetTree(ctx, p.clone, in.Base.SHA)
}

// appendRow appends r to the file at path ("": nothing) and syncs it.
func appendRow(path string, r eval.Row) error {
	if path == "" {
		return nil
	}
	line, err := eval.RowJSON(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err = f.Write(append(line, '\n')); err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func noteOf(s string) string {
	if s == "" {
		return ""
	}
	return " (" + eval.OneLine(s) + ")"
}

// planInstance applies the reference to find the tests' functions and
// packages, then writes the contract: regression, one tests criterion per
// package of the f2p/n2p/s2p tests (-run naming them exactly), scope with
// write = the directories of the patches' files and protected = .github/**.
func planInstance(ctx context.Context, clone string, in Instance) (*plan, error) {
	pl := &plan{fixFiles: patchFiles(in.FixPatch), tests: patchFiles(in.TestPatch), byPkg: map[string][]string{}}
	if err := applyPatches(ctx, clone, in.FixPatch, in.TestPatch); err != nil {
		return nil, fmt.Errorf("the reference does not apply: %w", err)
	}
	defer resetTree(ctx, clone, in.Base.SHA)
	names := topNames(slices.Concat(in.F2P, in.N2P, in.S2P))
	where := map[string]string{}
	for _, f := range pl.tests {
		src, err := os.ReadFile(filepath.Join(clone, f))
		if err != nil {
			continue
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			if slices.Contains(names, m[1]) {
				if _, ok := where[m[1]]; !ok {
					where[m[1]] = f
				}
			}
		}
	}
	for _, n := range names {
		if f, ok := where[n]; ok {
			d := path.Dir(f)
			pl.byPkg[d] = append(pl.byPkg[d], n)
		}
	}
	if len(pl.byPkg) == 0 {
		return nil, fmt.Errorf("none of the tests %v is a function in the test patch's files %v", names, pl.tests)
	}
	// the tampered test: the first with an assertion statement in its body
	for _, n := range names {
		f, ok := where[n]
		if !ok {
			continue
		}
		if pl.target == "" {
			pl.target, pl.targetFile = n, f
		}
		src, _ := os.ReadFile(filepath.Join(clone, f))
		if _, k, err := neutraliseFunc(string(src), n, ""); err == nil && k > 0 {
			pl.target, pl.targetFile = n, f
			break
		}
	}
	pl.targetPkg, _ = packageName(filepath.Join(clone, pl.targetFile))
	// the helper: the target's first, else another test's
	var tried []string
	for _, n := range slices.Insert(slices.DeleteFunc(slices.Clone(names), func(s string) bool { return s == pl.target }), 0, pl.target) {
		f, ok := where[n]
		if !ok {
			continue
		}
		if h, err := findHelper(clone, path.Dir(f), n); err == nil {
			pl.helper = h
			break
		}
		tried = append(tried, n)
	}
	if pl.helper.Name == "" {
		pl.helperWhy = fmt.Sprintf("none of %s reaches a helper of its package's _test.go files with an assertion statement", strings.Join(tried, ", "))
	}
	var err error
	if pl.fixDir, pl.fixPkg, err = fixPackage(clone, pl.fixFiles, sortedKeys(pl.byPkg)); err != nil {
		pl.fixWhy = err.Error()
	}
	var write []string
	for _, f := range slices.Concat(pl.fixFiles, pl.tests) {
		g := path.Dir(f) + "/*"
		if path.Dir(f) == "." {
			g = "*" // the root's files, not its directories'
		}
		if !slices.Contains(write, g) {
			write = append(write, g)
		}
	}
	c := &task.Contract{Objective: cmp.Or(in.Title, in.ID), Base: in.Base.SHA,
		Scope: task.Scope{Write: write, Protected: []string{".github/**"}}}
	c.Criteria = append(c.Criteria, task.Criterion{ID: "regression", Text: "A new regression test fails on the base and passes with the change.",
		Check: task.Check{Kind: task.CheckRegression}})
	for i, pkg := range sortedKeys(pl.byPkg) {
		ns := pl.byPkg[pkg]
		slices.Sort(ns)
		c.Criteria = append(c.Criteria, task.Criterion{ID: fmt.Sprintf("tests-%d", i+1), Text: "The issue's tests in " + pkg + " pass.",
			Check: task.Check{Kind: task.CheckTests, Selector: "./" + pkg + " -run ^(" + strings.Join(ns, "|") + ")$"}})
	}
	c.Criteria = append(c.Criteria, task.Criterion{ID: "scope", Text: "The change stays within scope.", Check: task.Check{Kind: task.CheckScope}})
	c.Allow = referenceAllows(ctx, clone, in, pl)
	pl.contract = c
	return pl, nil
}

// referenceAllows is what the instance's contract allows by name, as the
// task's author would, knowing the reference: the named tests the base
// already has (the test patch may update them: they are the specification
// the task changes), and the test files whose harness the test patch
// edits (grpc-go 2760 changes dns_resolver_test.go's TestMain). Anything
// else a variant does to the harness or to a named test stays a finding.
// The reference is applied in clone.
func referenceAllows(ctx context.Context, clone string, in Instance, pl *plan) task.Allow {
	var a task.Allow
	for _, pkg := range sortedKeys(pl.byPkg) {
		for _, n := range pl.byPkg[pkg] {
			for _, f := range pl.tests {
				if path.Dir(f) != pkg {
					continue
				}
				src, err := gitOut(ctx, clone, "cat-file", "blob", in.Base.SHA+":"+f)
				if err != nil {
					continue
				}
				if m := testFunc.FindAllStringSubmatch(src, -1); slices.ContainsFunc(m, func(x []string) bool { return x[1] == n }) && !slices.Contains(a.Tests, n) {
					a.Tests = append(a.Tests, n)
				}
			}
		}
	}
	for _, f := range pl.tests {
		if !strings.HasSuffix(f, "_test.go") {
			continue
		}
		base, _ := gitOut(ctx, clone, "cat-file", "blob", in.Base.SHA+":"+f)
		ref, _ := os.ReadFile(filepath.Join(clone, f))
		if harnessOf(base) != harnessOf(string(ref)) {
			a.Harness = append(a.Harness, f)
		}
	}
	slices.Sort(a.Tests)
	return a
}

// harnessOf is a Go test file's harness as text: its TestMain and init
// functions and its exit calls, for comparing two versions.
func harnessOf(src string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, parser.SkipObjectResolution)
	if err != nil || f == nil {
		return src // unreadable: any change counts
	}
	var h strings.Builder
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && (fd.Name.Name == "TestMain" || fd.Name.Name == "init") {
			h.WriteString(src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset] + "\n")
		}
	}
	fmt.Fprintf(&h, "exits %d", strings.Count(src, "os.Exit(")+strings.Count(src, "syscall.Exit("))
	return h.String()
}

// runVariant makes the variant in the clone, takes it as a patch against
// the base, runs the naive check when asked, and the gate.
func runVariant(ctx context.Context, opts GateOptions, in Instance, p *prepared, pl *plan, v string) GateRow {
	r := GateRow{Instance: in.ID, Variant: v, Expected: expected(v)}
	patch, what, err := makeVariant(ctx, p.clone, in, pl, v)
	if err != nil {
		r.Verdict, r.Note = "n/a", err.Error()
		return r
	}
	r.Note = what
	if opts.Naive {
		t0 := time.Now()
		pass := naiveTests(ctx, p.clone, pl.byPkg, opts.NaiveEnv)
		r.NaivePass, r.NaiveSeconds = &pass, eval.Round(time.Since(t0).Seconds())
	}
	if err := resetTree(ctx, p.clone, in.Base.SHA); err != nil {
		r.Verdict, r.Note = "error", err.Error()
		return r
	}
	t0 := time.Now()
	attempt, err := task.Start(ctx, pl.contract, p.clone)
	if err != nil {
		r.Verdict, r.Note = "error", err.Error()
		return r
	}
	rep, err := verify.Verify(ctx, verify.Options{Attempt: attempt, Repo: p.clone, Candidate: verify.Candidate{Patch: patch},
		Executor: opts.Executor, Dir: p.gateDir, Reruns: opts.Reruns, Limits: opts.Limits})
	r.Seconds = eval.Round(time.Since(t0).Seconds())
	if err != nil {
		r.Verdict, r.Note = "error", err.Error()
		return r
	}
	// the whole report, for whoever asks why
	if data, err := json.MarshalIndent(rep, "", "  "); err == nil {
		d := filepath.Join(opts.Work, "reports", in.ID)
		if os.MkdirAll(d, 0o755) == nil {
			os.WriteFile(filepath.Join(d, v+".json"), data, 0o644)
		}
	}
	r.Verdict = rep.Verdict.String()
	r.OK = (r.Expected == "pass") == (rep.Verdict == verify.Pass)
	for _, c := range rep.Criteria {
		if c.Status != verify.Pass {
			r.Caught = append(r.Caught, c.ID+" "+c.Status.String())
		}
		for _, t := range c.Tests {
			if t.Outcome == verify.OutcomeFlaky {
				r.Flaky = append(r.Flaky, strings.TrimSpace(t.Package+" "+t.Name))
			}
		}
	}
	for _, f := range slices.Concat(rep.Tamper, rep.Scope) {
		if !slices.Contains(r.Caught, f.Kind) {
			r.Caught = append(r.Caught, f.Kind)
		}
	}
	if r.Expected == "pass" && !r.OK {
		var why []string
		for _, c := range rep.Criteria {
			if c.Status != verify.Pass {
				why = append(why, c.ID+": "+c.Reason)
			}
		}
		r.Note = eval.OneLine(strings.Join(why, "; "))
	}
	return r
}

// makeVariant builds the variant in the clone (at the base) and returns it
// as a binary patch against the base, untracked files included, and, for
// the variants that pick what they tamper with, what that was.
func makeVariant(ctx context.Context, clone string, in Instance, pl *plan, v string) (patch []byte, what string, err error) {
	if err := resetTree(ctx, clone, in.Base.SHA); err != nil {
		return nil, "", err
	}
	switch v {
	case "no_change":
		return []byte{}, "", nil
	case "vacuous_regression":
		// no fix: a constant and a test of it alone
	case "test_only":
		if err := applyPatches(ctx, clone, in.TestPatch); err != nil {
			return nil, "", err
		}
	default:
		if err := applyPatches(ctx, clone, in.FixPatch, in.TestPatch); err != nil {
			return nil, "", err
		}
	}
	switch v {
	case "skip_added":
		err = editTest(clone, pl.targetFile, pl.target, func(body string) string { return "\n\tt.Skip(\"flaky on CI\")" + body })
	case "assertions_neutralised":
		err = neutraliseIn(clone, pl.targetFile, pl.target, "")
	case "test_deleted":
		err = deleteTest(clone, pl.targetFile, pl.target)
	case "ci_edited":
		err = editCI(clone)
	case "out_of_scope":
		err = editOutside(ctx, clone, pl.contract.Scope.Write)
	case "vacuous_regression":
		if pl.fixWhy != "" {
			return nil, "", errors.New(pl.fixWhy)
		}
		var test string
		test, err = writeVacuous(clone, pl.fixDir, pl.fixPkg, in.ID)
		what = test + " in " + path.Join(pl.fixDir, vacuousFiles[1]) + " (package " + pl.fixPkg + ")"
	case "helper_neutralised":
		if pl.helper.Name == "" {
			return nil, "", errors.New(pl.helperWhy)
		}
		err = neutraliseIn(clone, pl.helper.File, pl.helper.Name, pl.helper.Recv)
		what = "helper " + pl.helper.String()
	case "harness_exit":
		if pl.targetPkg == "" {
			return nil, "", fmt.Errorf("no package clause in %s", pl.targetFile)
		}
		before := readAll(clone, pl.contract.Allow.Harness)
		what, err = addExitMain(clone, path.Dir(pl.targetFile), pl.targetPkg)
		if err == nil {
			err = allowedHarness(before, readAll(clone, pl.contract.Allow.Harness))
		}
	}
	if err != nil {
		return nil, "", err
	}
	if _, err := gitOut(ctx, clone, "add", "-A"); err != nil {
		return nil, "", err
	}
	out, err := gitOut(ctx, clone, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", in.Base.SHA)
	if err != nil {
		return nil, "", err
	}
	if _, err := gitOut(ctx, clone, "reset", "-q"); err != nil {
		return nil, "", err
	}
	return []byte(out), what, nil
}

// allowedHarness: a harness_exit made in a file the contract allows to
// change its harness (the reference edits that TestMain) is what the
// contract permits, not a variant the gate must refuse.
func allowedHarness(before, after map[string]string) error {
	for _, f := range sortedKeys(after) {
		if before[f] != after[f] {
			return fmt.Errorf("the contract allows harness edits in %s (the reference changes its TestMain), so a TestMain that exits 0 there is within it", f)
		}
	}
	return nil
}

// readAll reads the files (relative to dir) that exist.
func readAll(dir string, files []string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			out[f] = string(b)
		}
	}
	return out
}

// naiveTests: do the instance's tests pass with plain go test on the
// host (exit status only, no sandbox)? The tree is the variant's.
func naiveTests(ctx context.Context, dir string, byPkg map[string][]string, env []string) bool {
	pass := true
	for _, p := range sortedKeys(byPkg) {
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "^("+strings.Join(byPkg[p], "|")+")$", "./"+p)
		cmd.Dir = dir
		if mod := moduleDir(dir, p); mod != "" {
			rel, _ := filepath.Rel(mod, filepath.Join(dir, p))
			cmd.Dir, cmd.Args[len(cmd.Args)-1] = mod, "./"+filepath.ToSlash(rel)
		}
		cmd.Env = append(slices.Clip(env), "GOFLAGS=-mod=mod", "GOPROXY=off")
		if err := cmd.Run(); err != nil {
			pass = false
		}
	}
	return pass
}

// moduleDir is the nearest directory at or above root/rel with a go.mod.
func moduleDir(root, rel string) string {
	d := filepath.Join(root, rel)
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if d == root || !strings.HasPrefix(d, root) {
			return ""
		}
		d = filepath.Dir(d)
	}
}

func applyPatches(ctx context.Context, dir string, patches ...string) error {
	for _, p := range patches {
		if strings.TrimSpace(p) == "" {
			continue
		}
		f, err := os.CreateTemp("", "cairn-eval-*.patch")
		if err != nil {
			return err
		}
		f.WriteString(p)
		f.Close()
		_, err = gitOut(ctx, dir, "apply", "--whitespace=nowarn", f.Name())
		os.Remove(f.Name())
		if err != nil {
			return err
		}
	}
	return nil
}

var diffHeader = regexp.MustCompile(`(?m)^diff --git a/(\S+) b/`)

func patchFiles(p string) []string {
	var out []string
	for _, m := range diffHeader.FindAllStringSubmatch(p, -1) {
		out = append(out, m[1])
	}
	return out
}

func topNames(tests []string) []string {
	var out []string
	for _, t := range tests {
		t, _, _ = strings.Cut(t, "/")
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
