package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/providers"
	"github.com/cairn-dev/cairn/agent/loop"
	"github.com/cairn-dev/cairn/agent/obs"
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// agentCmd is `cairn agent`: runs of the coding agent and what they left.
func agentCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "agent",
		Short: "the coding agent: a closed loop from a task contract to a verified change (run, resume, status, log, show, apply, list, approve, deny, draft)",
	}
	c.AddCommand(agentDraftCmd(g), agentRunCmd(g), agentResumeCmd(g), agentStatusCmd(g), agentLogCmd(g), agentShowCmd(g),
		agentListCmd(g), agentApplyCmd(g), agentAnswerCmd(g, true), agentAnswerCmd(g, false))
	return group(c)
}

// agentFlags are the flags of the commands that drive a run.
type agentFlags struct {
	model, prices, otel, otelEndpoint string
	noVerify, unattended              bool
	maxTokens                         int64
	reruns                            int
	user                              userPolicyFlags
}

func (f *agentFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.model, "model", os.Getenv("CAIRN_MODEL"), "the model, anthropic:NAME or openai:NAME (base URL and key from ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY or OPENAI_BASE_URL/OPENAI_API_KEY)")
	fs.StringVar(&f.prices, "prices", os.Getenv("CAIRN_PRICES"), "a price table (YAML or JSON: model → input/output/cache prices per million tokens) over the built-in one")
	fs.StringVar(&f.otel, "otel", os.Getenv("CAIRN_OTEL"), "OpenTelemetry exporter: off (default), stdout or otlp")
	fs.StringVar(&f.otelEndpoint, "otel-endpoint", os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "the OTLP/HTTP endpoint for --otel otlp")
	fs.BoolVar(&f.noVerify, "no-verify", false, "end a finished run unverified instead of running the verification gate")
	fs.BoolVar(&f.unattended, "unattended", false, "deny what the policy would ask a person about, instead of pausing for cairn agent approve|deny")
	fs.Int64Var(&f.maxTokens, "max-tokens", 0, "output tokens per model call (default 4096)")
	fs.IntVar(&f.reruns, "reruns", 0, "the gate's reruns of a failing test (default 2; negative: none)")
	f.user.register(c)
}

// options builds the loop's options from flags and the environment.
func (f *agentFlags) options(ctx context.Context, g *globals, repo string) (loop.Options, func(), error) {
	var o loop.Options
	if f.model == "" {
		return o, nil, usageError("--model is required (anthropic:NAME or openai:NAME, or set CAIRN_MODEL)")
	}
	retries := &loop.RetryLog{}
	lo := llm.Options{Prices: llm.DefaultPrices(), OnRetry: retries.Hook}
	lo = providers.FromEnv(f.model, os.Getenv, lo)
	if f.prices != "" {
		data, err := os.ReadFile(f.prices)
		if err != nil {
			return o, nil, usageError("--prices: %v", err)
		}
		p, err := llm.ParsePrices(data)
		if err != nil {
			return o, nil, usageError("--prices %s: %v", f.prices, err)
		}
		for k, v := range p {
			lo.Prices[k] = v
		}
	}
	prov, err := providers.Open(f.model, lo)
	if err != nil {
		return o, nil, usageError("--model: %v", err)
	}
	user, err := f.user.user()
	if err != nil {
		return o, nil, err
	}
	pol, err := policy.Layered(repo, user)
	if err != nil {
		return o, nil, &exitError{code: 1, err: err}
	}
	goroot, modcache, err := sandbox.GoToolchain(ctx)
	if err != nil {
		return o, nil, &exitError{code: 1, err: fmt.Errorf("the agent's sandbox needs the go toolchain: %w", err)}
	}
	ex, err := pol.Select(ctx, sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	if err != nil {
		return o, nil, &exitError{code: 1, err: err}
	}
	printIsolation(g.stderr, evidence.IsolationOf(ex, pol))
	tracer, shutdown, err := obs.Setup(ctx, obs.Options{Exporter: f.otel, Endpoint: f.otelEndpoint, Writer: g.stderr, ServiceVersion: version})
	if err != nil {
		return o, nil, usageError("--otel: %v", err)
	}
	o = loop.Options{
		Repo: repo, Provider: prov, Prices: lo.Prices, ModelSpec: f.model, Policy: pol, Executor: ex,
		NoGate: f.noVerify, Unattended: f.unattended, Tracer: tracer, MaxTokens: f.maxTokens,
		Reruns: f.reruns, CairnVersion: version, Retries: retries,
	}
	if !g.quiet && !g.json && term.IsTerminal(int(os.Stderr.Fd())) {
		o.Progress = progressLine(g.stderr)
	}
	return o, func() { shutdown(context.WithoutCancel(ctx)) }, nil
}

// progressLine shows a run's progress on one terminal line.
func progressLine(w io.Writer) func(loop.Progress) {
	return func(p loop.Progress) {
		fmt.Fprintf(w, "\r\x1b[2Kcairn agent %s  step %d  tokens %d in / %d out  $%.4f  %s", p.RunID, p.Step, p.InputTokens, p.OutputTokens, p.CostUSD, p.Action)
		switch p.Action {
		case loop.StatusVerified, loop.StatusUnverified, loop.StatusFailed, loop.StatusEscalated, loop.StatusAborted, loop.StatusNeedsClarification:
			fmt.Fprintln(w)
		}
	}
}

func agentDraftCmd(g *globals) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "draft GOAL",
		Short: "draft a task contract for a goal (criteria from impact: the tests that reach the code the goal names) for you to edit",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, _, err := g.draft(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if out == "" {
				_, err = g.stdout.Write(data)
				return err
			}
			if err := writeFileAtomic(out, data); err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(g.stderr, "cairn: wrote %s; edit it, then: cairn agent run --task %s --model …\n", out, out)
			return nil
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "", "write the contract to this file (default: standard output)")
	return c
}

func (g *globals) draft(ctx context.Context, goal string) ([]byte, *task.Contract, error) {
	if strings.TrimSpace(goal) == "" {
		return nil, nil, usageError("empty goal: say what the change should achieve")
	}
	snap, done, err := g.snapshot(ctx, goal)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	data, c, err := loop.Draft(ctx, snap, goal)
	if err != nil {
		return nil, nil, &exitError{code: 1, err: err}
	}
	return data, c, nil
}

func agentRunCmd(g *globals) *cobra.Command {
	var f agentFlags
	var taskFile string
	var yes bool
	c := &cobra.Command{
		Use:   "run (--task FILE | GOAL)",
		Short: "run the agent on a task contract (or a goal: a contract is drafted, shown, and run after confirmation or --yes)",
		Long: `run drives a closed loop in a sandbox worktree of the contract's base: the
model proposes tool calls (engine questions, reads, edits, tests), a policy
decides each outside the model, task state and every event are kept under
.cairn/runs/RUN, and "done" is what the verification gate says. The user's
worktree is not touched (cairn agent apply RUN brings the change over).
--json prints run_id, status (verified, unverified, failed, escalated,
aborted, needs_clarification), the event log's and the evidence's paths.
Exit 0 when verified (or unverified with --no-verify), 1 otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if taskFile == "" && len(args) == 0 {
				return usageError("give --task FILE or a GOAL")
			}
			if taskFile != "" && len(args) == 1 {
				return usageError("give --task FILE or a GOAL, not both")
			}
			repo, err := g.repoRoot()
			if err != nil {
				return usageError("--repo: %v", err)
			}
			var contract *task.Contract
			if taskFile != "" {
				if contract, err = task.ParseFile(taskFile); err != nil {
					return &exitError{code: 2, err: fmt.Errorf("task contract %s: %w", taskFile, err)}
				}
			} else {
				data, c, err := g.draft(ctx, args[0])
				if err != nil {
					return err
				}
				if !yes {
					fmt.Fprintf(g.stderr, "%s\n", data)
					if !confirm(g.stderr, "Run this contract?") {
						return &exitError{code: 1, err: errors.New("not confirmed: nothing ran (save it with cairn agent draft -o FILE, edit it, and run --task FILE; or pass --yes)")}
					}
				}
				contract = c
			}
			o, done, err := f.options(ctx, g, repo)
			if err != nil {
				return err
			}
			defer done()
			o.Contract = contract
			out, err := loop.Run(ctx, o)
			if err != nil {
				return runError(err)
			}
			return g.printOutcome(out)
		},
	}
	f.register(c)
	c.Flags().StringVar(&taskFile, "task", "", "the task contract (YAML or JSON)")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "run a drafted contract without asking")
	return c
}

func confirm(w io.Writer, q string) bool {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return false
	}
	fmt.Fprintf(w, "%s [y/N] ", q)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

func agentResumeCmd(g *globals) *cobra.Command {
	var f agentFlags
	c := &cobra.Command{
		Use:   "resume RUN",
		Short: "continue a run from its last checkpoint in the same worktree (after kill -9, a crash or a pause)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			dir, v, err := g.findRun(args[0])
			if err != nil {
				return err
			}
			f.model = cmp.Or(f.model, v.Meta.Model)
			o, done, err := f.options(ctx, g, v.Meta.Repo)
			if err != nil {
				return err
			}
			defer done()
			out, err := loop.Resume(ctx, dir, o)
			if err != nil {
				return runError(err)
			}
			return g.printOutcome(out)
		},
	}
	f.register(c)
	return c
}

// runError maps a run that could not start or go on to its exit code: 2
// for what the caller's flags fix (a cost ceiling without a price), else 1.
func runError(err error) error {
	var up *loop.UnpricedError
	if errors.As(err, &up) {
		return &exitError{code: 2, err: err}
	}
	return &exitError{code: 1, err: err}
}

func (g *globals) printOutcome(out *loop.Outcome) error {
	if g.json {
		if err := writeJSONLine(g.stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(g.stdout, "run %s: %s", out.RunID, out.Status)
		if out.Reason != "" {
			fmt.Fprintf(g.stdout, " — %s", out.Reason)
		}
		fmt.Fprintf(g.stdout, "\n%d steps, %d input / %d output tokens, $%.4f\n", out.Steps, out.Usage.InputTokens, out.Usage.OutputTokens, out.Usage.CostUSD)
		for _, q := range out.Questions {
			fmt.Fprintf(g.stdout, "question (%s): %s\n", q.Field, q.Text)
		}
		for _, t := range out.Tests {
			fmt.Fprintf(g.stdout, "tests %s: %d passed, %d failed, %d skipped\n", t.Selector, t.Passed, t.Failed, t.Skipped)
		}
		fmt.Fprintf(g.stdout, "events: %s\n", out.EventLog)
		if out.Evidence != "" {
			fmt.Fprintf(g.stdout, "evidence: %s\n", out.Evidence)
		}
	}
	switch out.Status {
	case loop.StatusVerified, loop.StatusUnverified:
		return nil
	}
	return &exitError{code: 1, err: fmt.Errorf("run %s ended %s", out.RunID, out.Status)}
}

// findRun resolves a run id (or a unique prefix, or a run directory).
func (g *globals) findRun(id string) (string, *state.View, error) {
	if id == "" || strings.ContainsAny(id, "\x00") {
		return "", nil, usageError("a run id")
	}
	var dir string
	if st, err := os.Stat(id); err == nil && st.IsDir() && strings.ContainsRune(id, os.PathSeparator) {
		dir = id
	} else {
		repo, err := g.repoRoot()
		if err != nil {
			return "", nil, usageError("--repo: %v", err)
		}
		root := filepath.Join(repo, ".cairn", "runs")
		if strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
			return "", nil, usageError("run id %q", id)
		}
		ents, err := os.ReadDir(root)
		if err != nil {
			return "", nil, &exitError{code: 3, err: fmt.Errorf("no runs in %s", root)}
		}
		var hits []string
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), id) {
				hits = append(hits, e.Name())
			}
		}
		switch len(hits) {
		case 0:
			return "", nil, &exitError{code: 3, err: fmt.Errorf("no run %s in %s", id, root)}
		case 1:
			dir = filepath.Join(root, hits[0])
		default:
			return "", nil, usageError("run id %q is ambiguous: %s", id, strings.Join(hits, ", "))
		}
	}
	v, err := state.Read(dir)
	if err != nil {
		return "", nil, &exitError{code: 1, err: err}
	}
	return dir, v, nil
}

func agentStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status RUN",
		Short: "a run's status, step, usage and pending permission requests",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, v, err := g.findRun(args[0])
			if err != nil {
				return err
			}
			pending, err := state.Pending(dir)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			st := v.Checkpoint
			if st == nil {
				st = &state.TaskState{Status: loop.StatusRunning}
			}
			view := map[string]any{
				"run_id": v.Meta.RunID, "status": st.Status, "reason": st.EndReason, "step": st.Step, "usage": st.Usage,
				"model": v.Meta.Model, "base": v.Meta.Base, "contract_hash": v.Meta.ContractHash, "pending_requests": pending,
				"event_log": filepath.Join(dir, state.EventsFile), "events": len(v.Events), "files_modified": st.FilesModified,
			}
			if g.json {
				return writeJSONLine(g.stdout, view)
			}
			fmt.Fprintf(g.stdout, "run %s: %s (step %d)", v.Meta.RunID, st.Status, st.Step)
			if st.EndReason != "" {
				fmt.Fprintf(g.stdout, " — %s", st.EndReason)
			}
			fmt.Fprintf(g.stdout, "\nmodel %s  base %s  contract %s\n", v.Meta.Model, short(v.Meta.Base), v.Meta.ContractHash)
			fmt.Fprintf(g.stdout, "%d model calls, %d tool calls, %d input / %d output tokens, $%.4f\n", st.Usage.ModelCalls, st.Usage.ToolCalls, st.Usage.InputTokens, st.Usage.OutputTokens, st.Usage.CostUSD)
			if len(st.FilesModified) > 0 {
				fmt.Fprintf(g.stdout, "modified: %s\n", strings.Join(st.FilesModified, ", "))
			}
			for _, p := range pending {
				fmt.Fprintf(g.stdout, "waiting: request %s (%s): cairn agent approve|deny %s %s\n", p.ID, p.Tool, v.Meta.RunID, p.ID)
			}
			return nil
		},
	}
}

func agentLogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "log RUN",
		Short: "a run's event log (--json: the JSON lines as written)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, v, err := g.findRun(args[0])
			if err != nil {
				return err
			}
			for _, ev := range v.Events {
				if g.json {
					if err := writeJSONLine(g.stdout, ev); err != nil {
						return err
					}
					continue
				}
				data := string(ev.Data)
				if len(data) > 160 {
					data = data[:160] + "…"
				}
				fmt.Fprintf(g.stdout, "%5d %s step %-3d %-20s %s\n", ev.Seq, ev.Time.Format(time.TimeOnly), ev.Step, ev.Kind, data)
			}
			return nil
		},
	}
}

func agentShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show RUN",
		Short: "a run's task state: brief, plan, notes, files, tests, root cause and summary",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, v, err := g.findRun(args[0])
			if err != nil {
				return err
			}
			if g.json {
				return writeJSONLine(g.stdout, map[string]any{"meta": v.Meta, "state": v.Checkpoint, "dir": dir})
			}
			if v.Checkpoint == nil {
				fmt.Fprintf(g.stdout, "run %s has no checkpoint yet\n", v.Meta.RunID)
				return nil
			}
			st := v.Checkpoint
			fmt.Fprintf(g.stdout, "run %s: %s\nobjective: %s\n", v.Meta.RunID, st.Status, st.Objective)
			if st.RootCause != "" {
				fmt.Fprintf(g.stdout, "root cause: %s\n", st.RootCause)
			}
			if st.Summary != "" {
				fmt.Fprintf(g.stdout, "summary: %s\n", st.Summary)
			}
			for _, n := range st.Facts {
				fmt.Fprintf(g.stdout, "fact (step %d): %s\n", n.Step, n.Text)
			}
			for _, n := range st.Hypotheses {
				fmt.Fprintf(g.stdout, "hypothesis (step %d): %s\n", n.Step, n.Text)
			}
			for _, n := range st.Decisions {
				fmt.Fprintf(g.stdout, "decision (step %d): %s\n", n.Step, n.Text)
			}
			for _, p := range st.Plan {
				mark := " "
				if p.Done {
					mark = "x"
				}
				fmt.Fprintf(g.stdout, "plan [%s] %s\n", mark, p.Text)
			}
			if len(st.FilesModified) > 0 {
				fmt.Fprintf(g.stdout, "modified: %s\n", strings.Join(st.FilesModified, ", "))
			}
			for _, t := range st.Tests {
				fmt.Fprintf(g.stdout, "tests (step %d) %s: %d passed, %d failed\n", t.Step, t.Selector, t.Passed, t.Failed)
			}
			return nil
		},
	}
}

func agentListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "the runs of this repository, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := g.repoRoot()
			if err != nil {
				return usageError("--repo: %v", err)
			}
			runs, err := state.List(filepath.Join(repo, ".cairn", "runs"))
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if g.json {
				if runs == nil {
					runs = []state.Summary{}
				}
				return writeJSONLine(g.stdout, runs)
			}
			for _, r := range runs {
				b, err := json.Marshal(r)
				if err != nil {
					return fmt.Errorf("agent runs: %w", err)
				}
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					return fmt.Errorf("agent runs: %w", err)
				}
				fmt.Fprintf(g.stdout, "%v  %-20v %v\n", m["id"], m["status"], m["objective"])
			}
			return nil
		},
	}
}

func agentApplyCmd(g *globals) *cobra.Command {
	var o loop.ApplyOptions
	c := &cobra.Command{
		Use:   "apply RUN [--branch NAME]",
		Short: "apply the patch the gate verified (its sha256 checked against the evidence) to your worktree; refused when a file it touches changed since the base, or when the run's workspace no longer holds that patch; --branch commits it on a new local branch instead (cairn never pushes)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _, err := g.findRun(args[0])
			if err != nil {
				return err
			}
			res, err := loop.Apply(cmd.Context(), dir, o)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if g.json {
				return writeJSONLine(g.stdout, res)
			}
			if res.Branch != "" {
				fmt.Fprintf(g.stdout, "committed %d files on branch %s (%s); your worktree is unchanged\n", len(res.Files), res.Branch, short(res.Commit))
			} else {
				fmt.Fprintf(g.stdout, "applied %d files to your worktree (patch sha256 %s): %s\n", len(res.Files), short(res.PatchSHA256), strings.Join(res.Files, ", "))
			}
			return nil
		},
	}
	c.Flags().StringVar(&o.Branch, "branch", "", "commit the change on this new local branch (from the run's base) instead of changing the worktree")
	c.Flags().BoolVar(&o.Force, "force", false, "apply a run the gate did not verify: the patch it recorded when it ended (evidence/change.patch), under the same checks")
	return c
}

func agentAnswerCmd(g *globals, approve bool) *cobra.Command {
	verb, done, short := "deny", "denied", "deny a paused run's permission request"
	if approve {
		verb, done, short = "approve", "approved", "approve a paused run's permission request (the grant is what the request names, never more)"
	}
	var note string
	c := &cobra.Command{
		Use:   verb + " RUN REQUEST",
		Short: short,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, _, err := g.findRun(args[0])
			if err != nil {
				return err
			}
			who := cmp.Or(os.Getenv("USER"), "cli")
			if err := state.Decide(dir, args[1], state.Answer{Approve: approve, By: who, Note: note, Time: time.Now().UTC()}); err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(g.stdout, "%s request %s of run %s\n", done, args[1], filepath.Base(dir))
			return nil
		},
	}
	c.Flags().StringVar(&note, "note", "", "a note for the model (why)")
	return c
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cairn-draft-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
