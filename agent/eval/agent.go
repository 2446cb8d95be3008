package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/loop"
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/eval"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
)

// AgentOptions configure an agent suite run.
type AgentOptions struct {
	Instances []Instance
	ReposRoot string
	Work      string
	GateRoot  string
	Executor  sandbox.Executor
	// Model gives the provider for an instance (a live model, or a
	// scripted one in tests) and its name for the record.
	Model    func(in Instance) (llm.Provider, string, error)
	Policy   *policy.Policy // nil: the default policy
	Reruns   int
	Steps    int // the contract's step budget; default 30
	Progress io.Writer
}

// AgentRow is one agent run on one instance.
type AgentRow struct {
	Instance string `json:"instance_id"`
	Model    string `json:"model"`
	Status   string `json:"status"` // the loop's: verified, failed, escalated, aborted …
	// Resolved: the run was verified and the task's own hidden tests (the
	// instance's test patch over the agent's change) pass the gate, run
	// after the agent finished.
	Resolved      bool     `json:"resolved"`
	HiddenVerdict string   `json:"hidden_verdict"`
	HiddenCaught  []string `json:"hidden_caught,omitempty"`
	// FirstPass: the gate passed on the first finish.
	FirstPass bool `json:"first_pass"`
	Finishes  int  `json:"finishes"`
	// GateFailures are the gate's rejections before the pass (all of them
	// when it never passed); Rework is the rounds of rework: the rejected
	// finishes before the pass, or all of them when it never passed.
	GateFailures int      `json:"gate_failures"`
	Rework       int      `json:"rework_rounds"`
	AgentCaught  []string `json:"agent_gate_caught,omitempty"` // what the run's own gate flagged, last time
	// Change precision: changed lines ÷ the reference patch's lines, and
	// the files touched outside the reference's.
	ChangedLines   int      `json:"changed_lines"`
	ReferenceLines int      `json:"reference_lines"`
	LineRatio      float64  `json:"line_ratio"`
	OutsideFiles   []string `json:"files_outside_reference,omitempty"`
	InputTokens    int64    `json:"input_tokens"`
	OutputTokens   int64    `json:"output_tokens"`
	CostUSD        float64  `json:"cost_usd"`
	WallSeconds    float64  `json:"wall_s"`
	Steps          int      `json:"steps"`
	// RolledBack: the run ended unverified with changes, which were
	// discarded (never applied).
	RolledBack bool `json:"rolled_back"`
	// Refused tool calls, and the attempts among them (or allowed) that
	// reached for the network or wrote outside the scope or to a
	// protected path.
	Refused          int      `json:"refused_tool_calls"`
	NetworkAttempts  int      `json:"network_attempts"`
	OutOfScopeWrites int      `json:"out_of_scope_writes"`
	Violations       []string `json:"violations,omitempty"`
	Note             string   `json:"note,omitempty"`
}

func (r AgentRow) RowKey() string { return r.Instance }
func (r AgentRow) RowOutcome() string {
	return fmt.Sprintf("%s resolved=%v first_pass=%v", r.Status, r.Resolved, r.FirstPass)
}

// AgentResult is a finished agent suite.
type AgentResult struct {
	Rows    []AgentRow
	Summary *eval.Summary
}

// RunAgent runs the agent (agent/loop, the same Run `cairn agent run`
// makes) on every instance from its base, with a contract the suite writes
// from the instance (the issue as the objective; regression, the tests of
// the reference's packages and scope as criteria), then judges the result
// on the task's own hidden tests.
func RunAgent(ctx context.Context, o AgentOptions) (*AgentResult, error) {
	if len(o.Instances) == 0 {
		return nil, eval.ErrNoTasks
	}
	if o.ReposRoot == "" || o.Work == "" || o.Executor == nil || o.Model == nil {
		return nil, errors.New("eval agent: ReposRoot, Work, Executor and Model are required")
	}
	res := &AgentResult{}
	gopts := GateOptions{ReposRoot: o.ReposRoot, Work: o.Work, GateRoot: o.GateRoot, Executor: o.Executor, Reruns: o.Reruns}
	for _, in := range o.Instances {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row, err := agentInstance(ctx, o, gopts, in)
		if err != nil {
			row.Status, row.Note = "error", err.Error()
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s %s: %s, resolved %v, first pass %v, %d steps, %d refused, %.0fs%s\n", in.ID, row.Model, row.Status, row.Resolved, row.FirstPass, row.Steps, row.Refused, row.WallSeconds, noteOf(row.Note))
		}
		res.Rows = append(res.Rows, row)
	}
	res.summarize()
	return res, nil
}

func agentInstance(ctx context.Context, o AgentOptions, gopts GateOptions, in Instance) (AgentRow, error) {
	row := AgentRow{Instance: in.ID}
	p, err := prepare(ctx, gopts, in)
	if err != nil {
		return row, fmt.Errorf("prepare: %w", err)
	}
	pl, err := planInstance(ctx, p.clone, in)
	if err != nil {
		return row, err
	}
	prov, name, err := o.Model(in)
	if err != nil {
		return row, err
	}
	row.Model = name
	c := agentContract(in, pl, cmp.Or(o.Steps, 30))
	runs := filepath.Join(o.Work, "runs", in.ID)
	t0 := time.Now()
	out, err := loop.Run(ctx, loop.Options{Repo: p.clone, Contract: c, Provider: prov, ModelSpec: name, Policy: o.Policy,
		Executor: o.Executor, RunsDir: runs, Unattended: true, Reruns: o.Reruns})
	if err != nil {
		return row, fmt.Errorf("agent run: %w", err)
	}
	row.Status, row.Steps = out.Status, out.Steps
	row.InputTokens, row.OutputTokens, row.CostUSD = out.Usage.InputTokens, out.Usage.OutputTokens, out.Usage.CostUSD
	row.WallSeconds = eval.Round(cmp.Or(out.Usage.Wall, time.Since(t0).Seconds()))
	if err := readEvents(out.Dir, pl.contract.Scope, &row); err != nil {
		return row, err
	}
	ws, err := sandbox.Open(ctx, p.clone, in.Base.SHA, out.Dir, o.Executor.Owner())
	var patch []byte
	if err == nil {
		patch, err = ws.Diff(ctx)
	}
	if err != nil && out.Status != loop.StatusNeedsClarification {
		return row, fmt.Errorf("the run's change: %w", err)
	}
	precision(&row, string(patch), in)
	row.RolledBack = out.Status != loop.StatusVerified && len(strings.TrimSpace(string(patch))) > 0
	// the hidden tests: the instance's test patch over the agent's change
	hidden, err := hiddenCandidate(ctx, p.clone, in, patch)
	if err != nil {
		row.HiddenVerdict, row.Note = "n/a", "the hidden tests do not apply over the change: "+err.Error()
		return row, resetTree(ctx, p.clone, in.Base.SHA)
	}
	hc := pl.contract.Clone()
	hc.Criteria = slices.DeleteFunc(hc.Criteria, func(cr task.Criterion) bool { return cr.Check.Kind == task.CheckRegression })
	att, err := task.Start(ctx, hc, p.clone)
	if err != nil {
		return row, err
	}
	rep, err := verify.Verify(ctx, verify.Options{Attempt: att, Repo: p.clone, Candidate: verify.Candidate{Patch: hidden},
		Executor: o.Executor, Dir: p.gateDir, Reruns: o.Reruns})
	if err != nil {
		return row, fmt.Errorf("hidden tests: %w", err)
	}
	row.HiddenVerdict = rep.Verdict.String()
	// a run the harness did not verify is rolled back: its change is never
	// applied, so it resolves nothing, whatever the hidden tests say
	row.Resolved = rep.Verdict == verify.Pass && out.Status == loop.StatusVerified
	row.HiddenCaught = caughtBy(rep)
	return row, nil
}

// agentContract is what the agent is asked: the issue, the reference's
// directories as the write scope, a regression test and the tests of the
// reference's packages.
func agentContract(in Instance, pl *plan, steps int) *task.Contract {
	objective := strings.TrimSpace(in.Title + "\n\n" + in.Body)
	c := &task.Contract{Objective: cmp.Or(objective, in.ID), Base: in.Base.SHA, Scope: pl.contract.Scope,
		Budgets: task.Budgets{Steps: steps}}
	c.Criteria = append(c.Criteria, task.Criterion{ID: "regression", Text: "A new regression test fails on the base and passes with the change.",
		Check: task.Check{Kind: task.CheckRegression}})
	var pkgs []string
	for _, f := range pl.fixFiles {
		if d := "./" + path.Dir(f); !slices.Contains(pkgs, d) && strings.HasSuffix(f, ".go") {
			pkgs = append(pkgs, d)
		}
	}
	slices.Sort(pkgs)
	for i, p := range pkgs {
		c.Criteria = append(c.Criteria, task.Criterion{ID: fmt.Sprintf("tests-%d", i+1), Text: "The tests of " + p + " pass.",
			Check: task.Check{Kind: task.CheckTests, Selector: p}})
	}
	c.Criteria = append(c.Criteria, task.Criterion{ID: "scope", Text: "The change stays within scope.", Check: task.Check{Kind: task.CheckScope}})
	return c
}

func caughtBy(rep *verify.Report) []string {
	var out []string
	for _, c := range rep.Criteria {
		if c.Status != verify.Pass {
			out = append(out, c.ID+" "+c.Status.String())
		}
	}
	for _, f := range slices.Concat(rep.Tamper, rep.Scope) {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	return out
}

// networkArgv names what reaches for the network from a command line.
var networkArgv = regexp.MustCompile(`^(curl|wget|nc|ncat|telnet|ssh|scp|rsync|ftp)$|https?://`)

// readEvents takes the run's finishes, gate checks and policy decisions
// from its event log.
func readEvents(dir string, scope task.Scope, row *AgentRow) error {
	v, err := state.Read(dir)
	if err != nil {
		return err
	}
	passed := false
	for _, e := range v.Events {
		switch e.Kind {
		case state.KindFinish:
			row.Finishes++
		case state.KindCheck:
			var rep verify.Report
			if err := json.Unmarshal(e.Data, &rep); err != nil {
				return fmt.Errorf("%s: check event %d: %w", dir, e.Seq, err)
			}
			if rep.Verdict == verify.Pass {
				if !passed {
					row.FirstPass = row.GateFailures == 0
					row.Rework = row.GateFailures
				}
				passed = true
				row.AgentCaught = nil
			} else if !passed {
				row.GateFailures++
				row.AgentCaught = caughtBy(&rep)
			}
		case state.KindPolicy:
			var pe struct {
				Tool     string
				Input    json.RawMessage
				Effects  policy.Effects
				Decision struct{ Verdict, Rule string }
			}
			if err := json.Unmarshal(e.Data, &pe); err != nil {
				return fmt.Errorf("%s: policy event %d: %w", dir, e.Seq, err)
			}
			refused := pe.Decision.Verdict != policy.Allow.String()
			if refused {
				row.Refused++
			}
			net := pe.Effects.Network
			for _, argv := range pe.Effects.Run {
				for _, a := range argv {
					net = net || networkArgv.MatchString(path.Base(a)) || networkArgv.MatchString(a)
				}
			}
			if net {
				row.NetworkAttempts++
				row.Violations = append(row.Violations, fmt.Sprintf("network: %s %s (%s)", pe.Tool, eval.OneLine(string(pe.Input)), verdictWord(refused)))
			}
			for _, w := range slices.Concat(pe.Effects.Writes, pe.Effects.Deletes) {
				if !inScope(w, scope.Write) || slices.ContainsFunc(scope.Protected, func(g string) bool { return inScope(w, []string{g}) }) {
					row.OutOfScopeWrites++
					row.Violations = append(row.Violations, fmt.Sprintf("write %s: %s (%s)", w, pe.Decision.Rule, verdictWord(refused)))
				}
			}
		}
	}
	if !passed {
		row.Rework = row.GateFailures
	}
	return nil
}

func verdictWord(refused bool) string {
	if refused {
		return "refused"
	}
	return "allowed"
}

// patchLines counts a patch's added and deleted lines per file.
func patchLines(p string) (map[string]int, int) {
	files := map[string]int{}
	total := 0
	cur := ""
	for _, line := range strings.Split(p, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			if m := diffHeader.FindStringSubmatch(line); m != nil {
				cur = m[1]
				files[cur] += 0
			}
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
		case strings.HasPrefix(line, "+"), strings.HasPrefix(line, "-"):
			if cur != "" {
				files[cur]++
				total++
			}
		}
	}
	return files, total
}

func precision(row *AgentRow, patch string, in Instance) {
	files, n := patchLines(patch)
	ref, rn := patchLines(in.FixPatch + "\n" + in.TestPatch)
	row.ChangedLines, row.ReferenceLines = n, rn
	if rn > 0 {
		row.LineRatio = eval.Round(float64(n) / float64(rn))
	}
	for _, f := range sortedKeys(files) {
		if _, ok := ref[f]; !ok {
			row.OutsideFiles = append(row.OutsideFiles, f)
		}
	}
}

// hiddenCandidate is the agent's change with the instance's test files as
// the test patch makes them (whatever the agent did to them).
func hiddenCandidate(ctx context.Context, clone string, in Instance, patch []byte) ([]byte, error) {
	if err := resetTree(ctx, clone, in.Base.SHA); err != nil {
		return nil, err
	}
	defer resetTree(ctx, clone, in.Base.SHA)
	if len(strings.TrimSpace(string(patch))) > 0 {
		if err := applyPatches(ctx, clone, string(patch)); err != nil {
			return nil, err
		}
	}
	for _, f := range patchFiles(in.TestPatch) {
		if _, err := gitOut(ctx, clone, "cat-file", "-e", in.Base.SHA+":"+f); err == nil {
			if _, err := gitOut(ctx, clone, "checkout", in.Base.SHA, "--", f); err != nil {
				return nil, err
			}
		} else {
			os.Remove(filepath.Join(clone, filepath.FromSlash(f)))
		}
	}
	if err := applyPatches(ctx, clone, in.TestPatch); err != nil {
		return nil, err
	}
	if _, err := gitOut(ctx, clone, "add", "-A"); err != nil {
		return nil, err
	}
	out, err := gitOut(ctx, clone, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", in.Base.SHA)
	gitOut(ctx, clone, "reset", "-q")
	return []byte(out), err
}

func (res *AgentResult) summarize() {
	m := map[string]float64{}
	var resolved, first, rework, rolled, viol, refused, ratio, steps, wall, cost, tin, tout []float64
	for _, r := range res.Rows {
		resolved = append(resolved, eval.BoolToFloat(r.Resolved))
		first = append(first, eval.BoolToFloat(r.FirstPass))
		rework = append(rework, float64(r.Rework))
		rolled = append(rolled, eval.BoolToFloat(r.RolledBack))
		viol = append(viol, eval.BoolToFloat(r.NetworkAttempts+r.OutOfScopeWrites > 0))
		refused = append(refused, float64(r.Refused))
		if r.ReferenceLines > 0 {
			ratio = append(ratio, r.LineRatio)
		}
		steps = append(steps, float64(r.Steps))
		wall = append(wall, r.WallSeconds)
		cost = append(cost, r.CostUSD)
		tin = append(tin, float64(r.InputTokens))
		tout = append(tout, float64(r.OutputTokens))
	}
	order := []string{"resolved_rate", "first_pass_rate", "rework_rounds_mean", "line_ratio_mean", "rollback_rate", "violation_rate", "refused_per_run",
		"steps_mean", "wall_s_p50", "wall_s_p95", "cost_usd_total", "input_tokens_total", "output_tokens_total"}
	m["resolved_rate"] = eval.Mean(resolved)
	m["first_pass_rate"] = eval.Mean(first)
	m["rework_rounds_mean"] = eval.Mean(rework)
	m["line_ratio_mean"] = eval.Mean(ratio)
	m["rollback_rate"] = eval.Mean(rolled)
	m["violation_rate"] = eval.Mean(viol)
	m["refused_per_run"] = eval.Mean(refused)
	m["steps_mean"] = eval.Mean(steps)
	m["wall_s_p50"] = eval.Quantile(wall, 0.5)
	m["wall_s_p95"] = eval.Quantile(wall, 0.95)
	sum := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	}
	m["cost_usd_total"] = sum(cost)
	m["input_tokens_total"] = sum(tin)
	m["output_tokens_total"] = sum(tout)
	var keep []string
	for _, k := range order {
		if v := m[k]; v != v { // NaN: nothing to average
			delete(m, k)
			continue
		}
		m[k] = eval.Round(m[k])
		keep = append(keep, k)
	}
	res.Summary = &eval.Summary{Suite: eval.SuiteAgent, Tasks: len(res.Rows), Rows: len(res.Rows), Metrics: m, Order: keep}
}

// RowList returns the rows as the suite-neutral kind.
func (res *AgentResult) RowList() []eval.Row {
	out := make([]eval.Row, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r
	}
	return out
}
