package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/agent/eval"
	"github.com/cairn-dev/cairn/agent/sandbox"
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
	c.AddCommand(evalGateCmd(g))
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
		Short: "the verification gate over Multi-SWE-bench-style instances: the reference, its test alone, no change and five mutations per instance",
		Long: `gate runs the verification gate on every instance of --tasks (the format of
../shared/bench/gate: base.sha, fix_patch, test_patch, f2p/n2p tests) for eight
variants: reference (must pass), test_only and no_change (must not), and
mutations of the reference — skip_added, assertions_neutralised, test_deleted,
ci_edited, out_of_scope (each must be flagged). --repos-root DIR holds
DIR/ORG/REPO, a clone or bare git dir of each instance's repository; the
repositories are prepared outside the sandbox (clone, go mod download) under
--work, cached by base revision. It reports the confusion matrix (variant ×
verdict), the flaky tests seen and the time per instance.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			opts := eval.GateOptions{ReposRoot: f.reposRoot, Naive: naive}
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
			ins, err := eval.LoadInstances(f.tasks)
			if err != nil {
				return usageError("--tasks: %v", err)
			}
			if opts.Instances, err = selectIDs(ins, func(in eval.Instance) string { return in.ID }, f.only, f.limit); err != nil {
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
			res, err := eval.RunGate(cmd.Context(), opts)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			return finishEval(g, &f, res.Summary, res.RowList(), func() *eval.Report { return res.Report("cairn eval gate: " + filepath.Base(f.tasks)) })
		},
	}
	f.add(c)
	fl := c.Flags()
	fl.StringVar(&work, "work", "", "prepared repositories and gate directories, kept between runs (default: the user cache dir's cairn/eval)")
	fl.StringVar(&variants, "variants", "", "comma-separated variants (default: all eight)")
	fl.StringVar(&until, "until", "", "HH:MM UTC: start no instance after it")
	fl.BoolVar(&naive, "naive", false, "also run the instance's tests with plain go test on the host per variant (what a gate-less harness accepts)")
	return c
}
