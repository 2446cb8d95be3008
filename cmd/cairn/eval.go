package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	agenteval "github.com/cairn-dev/cairn/agent/eval"
	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/providers"
	"github.com/cairn-dev/cairn/eval"
	"github.com/cairn-dev/cairn/gate/sandbox"
)

// evalFlags are what every eval suite takes.
type evalFlags struct {
	tasks, reposRoot, out, baseline string
	limit                           int
	only                            string
}

func (f *evalFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.tasks, "tasks", "", "the task file (JSON Lines)")
	fl.StringVar(&f.reposRoot, "repos-root", "", "the repositories the tasks name")
	fl.IntVar(&f.limit, "limit", 0, "at most this many tasks (0: all)")
	fl.StringVar(&f.only, "only", "", "comma-separated task ids (or their trailing numbers), in this order")
	fl.StringVar(&f.out, "out", "", "write DIR/rows.jsonl, DIR/summary.json, DIR/report.html and DIR/report.md")
	fl.StringVar(&f.baseline, "baseline", "", "compare with a previous --out DIR: metric deltas and the tasks that changed")
}

func (f *evalFlags) check() error {
	if f.tasks == "" {
		return usageError("--tasks FILE is required")
	}
	if f.reposRoot == "" {
		return usageError("--repos-root DIR is required")
	}
	if f.limit < 0 {
		return usageError("--limit: want a count, got %d", f.limit)
	}
	return nil
}

// selectIDs keeps the ids --only names, in its order, then --limit.
func selectIDs[T any](all []T, id func(T) string, only string, limit int) ([]T, error) {
	out := all
	if only != "" {
		by := map[string]T{}
		for _, t := range all {
			by[id(t)] = t
			if i := strings.LastIndexByte(id(t), '-'); i >= 0 {
				by[id(t)[i+1:]] = t
			}
		}
		out = nil
		for _, k := range strings.Split(only, ",") {
			t, ok := by[strings.TrimSpace(k)]
			if !ok {
				return nil, usageError("--only: no task %s", k)
			}
			out = append(out, t)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func evalCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "eval localize|context|gate|agent",
		Short: "evaluation suites: per-task rows and a summary over a task file, compared with a previous run",
	}
	c.AddCommand(evalGateCmd(g), evalLocCmd(g, eval.SuiteLocalize), evalLocCmd(g, eval.SuiteContext), evalAgentCmd(g))
	return c
}

// selfEngine is cairn itself as the suites' engine: the same commands the
// Python scorers run (cairn index, cairn search --json, cairn context
// --json), in this process.
type selfEngine struct{ g *globals }

func (e selfEngine) call(ctx context.Context, args ...string) (string, error) {
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		return out.String(), fmt.Errorf("cairn %s: exit %d: %s", args[0], code, strings.TrimSpace(errb.String()))
	}
	return out.String(), ctx.Err()
}

func (e selfEngine) Prep(ctx context.Context, c eval.Call) error {
	_, err := e.call(ctx, "index", "--repo", c.RepoDir, "--quiet")
	return err
}

func (e selfEngine) Ask(ctx context.Context, c eval.Call) (string, error) {
	if c.Budget > 0 {
		return e.call(ctx, "context", "--json", "--repo", c.RepoDir, "--query-file", c.QueryFile, "--budget", fmt.Sprint(c.Budget))
	}
	return e.call(ctx, "search", "--json", "--repo", c.RepoDir, "--query-file", c.QueryFile, "--limit", fmt.Sprint(c.TopK))
}

func evalLocCmd(g *globals, suite string) *cobra.Command {
	var f evalFlags
	var cmdTmpl, prepTmpl, budgets string
	var topk int
	var timeout time.Duration
	short := "issue localization: file Acc@k, Recall@k, MRR and function Acc@k of the engine's ranking (score.py's metrics)"
	if suite == eval.SuiteContext {
		short = "context recall at budget: fn_cov, fn_full, task_fn_cov, files_all and tokens of the engine's packs (score_context.py's metrics)"
	}
	c := &cobra.Command{
		Use:   suite + " --tasks FILE --repos-root TREES",
		Short: short,
		Long: short + `.
--tasks is a task file of ../shared/bench/localization (tasks_go.jsonl,
tasks_python.jsonl); --repos-root the TREES directory its prepare.sh writes
(TREES/OWNER/NAME@BASE_COMMIT). The engine is cairn itself (cairn index, then
cairn search --json or cairn context --json on each tree), or any command
given as --cmd (and --prep-cmd) with score.py's placeholders {repo_dir}
{query_file} {topk} {budget} {id} {repo} {commit}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			tasks, err := eval.LoadLocTasks(f.tasks)
			if err != nil {
				return usageError("--tasks: %v", err)
			}
			if tasks, err = selectIDs(tasks, func(t eval.LocTask) string { return t.ID }, f.only, f.limit); err != nil {
				return err
			}
			var engine eval.Engine = selfEngine{g}
			if cmdTmpl != "" {
				engine = eval.CommandEngine{Cmd: cmdTmpl, PrepCmd: prepTmpl, Timeout: timeout}
			} else if prepTmpl != "" {
				return usageError("--prep-cmd needs --cmd")
			}
			progress := func(format string, args ...any) {
				if !g.quiet {
					fmt.Fprintf(g.stderr, format+"\n", args...)
				}
			}
			title := "cairn eval " + suite + ": " + filepath.Base(f.tasks)
			if suite == eval.SuiteLocalize {
				res, err := eval.RunLocalize(cmd.Context(), eval.LocOptions{Tasks: tasks, ReposRoot: f.reposRoot, Engine: engine, TopK: topk, Progress: progress})
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				return finishEval(g, &f, res.Summary, res.RowList(), func() *eval.Report { return res.Report(title) })
			}
			var bs []int
			for _, b := range strings.Split(budgets, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(b))
				if err != nil || n <= 0 {
					return usageError("--budgets takes positive integers, e.g. 4000,8000,16000,32000; got %q", budgets)
				}
				bs = append(bs, n)
			}
			res, err := eval.RunContext(cmd.Context(), eval.CtxOptions{Tasks: tasks, ReposRoot: f.reposRoot, Engine: engine, Budgets: bs, Progress: progress})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			return finishEval(g, &f, res.Summary, res.RowList(), func() *eval.Report { return res.Report(title) })
		},
	}
	f.add(c)
	fl := c.Flags()
	fl.StringVar(&cmdTmpl, "cmd", "", "score this engine command instead of cairn (score.py's placeholders, shell-quoted)")
	fl.StringVar(&prepTmpl, "prep-cmd", "", "with --cmd: run before each task's questions (an index), timed apart")
	fl.DurationVar(&timeout, "timeout", 120*time.Second, "with --cmd: per question (the prep command gets ten times it)")
	if suite == eval.SuiteLocalize {
		fl.IntVar(&topk, "topk", 20, "the {topk} placeholder, and cairn search's --limit")
	} else {
		fl.StringVar(&budgets, "budgets", "4000,8000,16000,32000", "comma-separated token budgets")
	}
	return c
}

// finishEval compares with the baseline, writes --out and prints the
// report (Markdown) or the summary (--json).
func finishEval(g *globals, f *evalFlags, sum *eval.Summary, rows []eval.Row, report func() *eval.Report) error {
	if f.baseline != "" {
		cmp, err := eval.Compare(f.baseline, sum, rows)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		sum.Baseline = cmp
	}
	rep := report()
	if f.out != "" {
		if err := eval.Write(f.out, sum, rows); err != nil {
			return &exitError{code: 1, err: err}
		}
		if err := os.WriteFile(filepath.Join(f.out, "report.html"), rep.HTML(), 0o644); err != nil {
			return &exitError{code: 1, err: err}
		}
		if err := os.WriteFile(filepath.Join(f.out, "report.md"), rep.Markdown(), 0o644); err != nil {
			return &exitError{code: 1, err: err}
		}
		os.Remove(filepath.Join(f.out, "rows.partial.jsonl"))
	}
	if g.json {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	_, err := g.stdout.Write(rep.Markdown())
	return err
}

func evalGateCmd(g *globals) *cobra.Command {
	var f evalFlags
	var work, variants, until string
	var naive bool
	c := &cobra.Command{
		Use:   "gate --tasks FILE --repos-root DIR",
		Short: "the verification gate over Multi-SWE-bench-style instances: the reference, its test alone, no change and eight tamperings per instance",
		Long: `gate runs the verification gate on every instance of --tasks (the format of
../shared/bench/gate: base.sha, fix_patch, test_patch, f2p/n2p tests) for eleven
variants: reference (must pass), test_only and no_change (must not), and
tamperings — skip_added, assertions_neutralised (t.Error/Fatal, testify,
gomega), test_deleted, ci_edited, out_of_scope, helper_neutralised (an
assertion helper made vacuous), harness_exit (a TestMain that exits 0) of the
reference, and vacuous_regression (no fix: a new constant and a test of only
it) — each must be refused. An instance's contract allows by name what its
reference changes (the named tests the base has, the harness its test patch
edits). --repos-root DIR holds
DIR/ORG/REPO, a clone or bare git dir of each instance's repository; the
repositories are prepared outside the sandbox (clone, go mod download) under
--work, cached by base revision. It reports the confusion matrix (variant ×
verdict), the flaky tests seen and the time per instance.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			opts := agenteval.GateOptions{ReposRoot: f.reposRoot, Naive: naive, NaiveEnv: os.Environ()}
			if variants != "" {
				opts.Variants = strings.Split(variants, ",")
			}
			if until != "" {
				t, err := time.Parse("15:04", until)
				if err != nil {
					return usageError("--until: want HH:MM (UTC), got %q", until)
				}
				now := time.Now().UTC()
				opts.Until = time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC)
			}
			ins, err := agenteval.LoadInstances(f.tasks)
			if err != nil {
				return usageError("--tasks: %v", err)
			}
			if opts.Instances, err = selectIDs(ins, func(in agenteval.Instance) string { return in.ID }, f.only, f.limit); err != nil {
				return err
			}
			if work == "" {
				base, err := os.UserCacheDir()
				if err != nil {
					return usageError("no user cache directory; give --work")
				}
				work = filepath.Join(base, "cairn", "eval")
			}
			opts.Work = work
			goroot, modcache, err := sandbox.GoToolchain(cmd.Context())
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if opts.Executor, err = sandbox.Select(cmd.Context(), sandbox.Options{GoRoot: goroot, GoModCache: modcache}); err != nil {
				return &exitError{code: 1, err: err}
			}
			if !g.quiet {
				opts.Progress = g.stderr
			}
			if f.out != "" {
				// rows as they are made; rows.jsonl replaces them at the end
				if err := os.MkdirAll(f.out, 0o755); err != nil {
					return &exitError{code: 1, err: err}
				}
				opts.Partial = filepath.Join(f.out, "rows.partial.jsonl")
				os.Remove(opts.Partial)
			}
			res, err := agenteval.RunGate(cmd.Context(), opts)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			return finishEval(g, &f, res.Summary, res.RowList(), func() *eval.Report { return res.Report("cairn eval gate: " + filepath.Base(f.tasks)) })
		},
	}
	f.add(c)
	fl := c.Flags()
	fl.StringVar(&work, "work", "", "prepared repositories and gate directories, kept between runs (default: the user cache dir's cairn/eval)")
	fl.StringVar(&variants, "variants", "", "comma-separated variants (default: all eleven)")
	fl.StringVar(&until, "until", "", "HH:MM UTC: start no instance after it")
	fl.BoolVar(&naive, "naive", false, "also run the instance's tests with plain go test on the host per variant (what a gate-less harness accepts)")
	return c
}

func evalAgentCmd(g *globals) *cobra.Command {
	var f evalFlags
	var work, model, prices string
	var steps, reruns int
	c := &cobra.Command{
		Use:   "agent --tasks FILE --repos-root DIR --model anthropic:NAME",
		Short: "the agent over Multi-SWE-bench-style instances: resolved on the hidden tests, first-pass rate, rework, change precision, tokens, cost, wall time, rollbacks, policy violations",
		Long: `agent runs cairn's agent (the loop of cairn agent run) on every instance of
--tasks (the gate suite's format) from its base, with the issue as the objective
and a contract of a regression test, the tests of the reference's packages and
scope; then it judges the change on the task's own hidden tests (the
instance's test patch over the change, through the gate). Per run and overall:
resolved, first pass, rework rounds, changed lines against the reference and
files outside it, tokens in/out, cost, wall time (p50/p95), steps, rollbacks,
refused tool calls and attempted network or out-of-scope writes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if model == "" {
				return usageError("--model is required (anthropic:NAME or openai:NAME, or set CAIRN_MODEL)")
			}
			lo := llm.Options{Prices: llm.DefaultPrices()}
			lo = providers.FromEnv(model, os.Getenv, lo)
			if prices != "" {
				data, err := os.ReadFile(prices)
				if err != nil {
					return usageError("--prices: %v", err)
				}
				p, err := llm.ParsePrices(data)
				if err != nil {
					return usageError("--prices %s: %v", prices, err)
				}
				for k, v := range p {
					lo.Prices[k] = v
				}
			}
			if _, err := providers.Open(model, lo); err != nil {
				return usageError("--model: %v", err)
			}
			ins, err := agenteval.LoadInstances(f.tasks)
			if err != nil {
				return usageError("--tasks: %v", err)
			}
			if ins, err = selectIDs(ins, func(in agenteval.Instance) string { return in.ID }, f.only, f.limit); err != nil {
				return err
			}
			if work == "" {
				base, err := os.UserCacheDir()
				if err != nil {
					return usageError("no user cache directory; give --work")
				}
				work = filepath.Join(base, "cairn", "eval")
			}
			goroot, modcache, err := sandbox.GoToolchain(cmd.Context())
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			ex, err := sandbox.Select(cmd.Context(), sandbox.Options{GoRoot: goroot, GoModCache: modcache})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			opts := agenteval.AgentOptions{Instances: ins, ReposRoot: f.reposRoot, Work: work, Executor: ex, Steps: steps, Reruns: reruns,
				Model: func(agenteval.Instance) (llm.Provider, string, error) {
					p, err := providers.Open(model, lo)
					return p, model, err
				}}
			if !g.quiet {
				opts.Progress = g.stderr
			}
			res, err := agenteval.RunAgent(cmd.Context(), opts)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			return finishEval(g, &f, res.Summary, res.RowList(), func() *eval.Report {
				return res.Report("cairn eval agent: " + filepath.Base(f.tasks) + " with " + model)
			})
		},
	}
	f.add(c)
	fl := c.Flags()
	fl.StringVar(&model, "model", os.Getenv("CAIRN_MODEL"), "the model, anthropic:NAME or openai:NAME (base URL and key from the environment, as cairn agent run)")
	fl.StringVar(&prices, "prices", os.Getenv("CAIRN_PRICES"), "a price table over the built-in one")
	fl.StringVar(&work, "work", "", "prepared repositories, gate directories and the runs (default: the user cache dir's cairn/eval)")
	fl.IntVar(&steps, "steps", 30, "the step budget of each run")
	fl.IntVar(&reruns, "reruns", 0, "the gate's reruns of a failing test (default 2; negative: none)")
	return c
}
