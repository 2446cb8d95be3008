package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/agent/policy"
	"github.com/cairn-dev/cairn/agent/sandbox"
	"github.com/cairn-dev/cairn/agent/task"
	"github.com/cairn-dev/cairn/agent/verify"
)

func verifyCmd(g *globals) *cobra.Command {
	var taskFile, diff, dir string
	var working bool
	var reruns int
	c := &cobra.Command{
		Use:   "verify --task FILE [--diff BASE..HEAD | --working]",
		Short: "run the verification gate on a change: every criterion of the task contract executed in a sandbox, tamper and scope checks (exit 0 only on pass)",
		Long: `verify runs the gate over a worktree's uncommitted changes (--working, the
default: the base is the contract's, the candidate the worktree as it is,
untracked files included) or a commit range (--diff BASE..HEAD). It prints the
report (--json: verdict, criteria[], tamper[], scope[]) and exits 0 on pass,
1 on fail or blocked, 2 on usage errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if taskFile == "" {
				return usageError("--task FILE is required")
			}
			if working && diff != "" {
				return usageError("give --diff or --working, not both")
			}
			repo, err := g.repoRoot()
			if err != nil {
				return usageError("--repo: %v", err)
			}
			contract, err := task.ParseFile(taskFile)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			cand := verify.Candidate{Working: repo}
			if diff != "" {
				base, _, ok := strings.Cut(diff, "..")
				if !ok || base == "" {
					return usageError("--diff: want BASE..HEAD, got %q", diff)
				}
				contract.Base = base
				cand = verify.Candidate{Range: diff}
			}
			attempt, err := task.Start(ctx, contract, repo)
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("task contract %s: %w", taskFile, err)}
			}
			pol, err := policy.Load(repo)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			goroot, modcache, err := sandbox.GoToolchain(ctx)
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("verify needs the go toolchain: %w", err)}
			}
			ex, err := sandbox.Select(ctx, pol.SandboxOptions(sandbox.Options{GoRoot: goroot, GoModCache: modcache}))
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if dir == "" {
				if dir, err = gateDir(repo); err != nil {
					return &exitError{code: 1, err: err}
				}
			}
			rep, err := verify.Verify(ctx, verify.Options{Attempt: attempt, Repo: repo, Candidate: cand,
				Executor: ex, Dir: dir, Reruns: reruns, Impact: verify.EngineImpact{}})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			if g.json {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				printReport(g.stdout, rep)
			}
			if rep.Verdict != verify.Pass {
				return &exitError{code: 1, err: fmt.Errorf("verdict %s: %s", rep.Verdict, rep.Reason)}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&taskFile, "task", "", "the task contract (YAML or JSON)")
	f.StringVar(&diff, "diff", "", "judge the commit range BASE..HEAD (BASE becomes the contract's base)")
	f.BoolVar(&working, "working", false, "judge the worktree's uncommitted changes, untracked files included (the default)")
	f.StringVar(&dir, "dir", "", "the gate's directory: workspaces (removed at every start) and caches (default: the user cache dir)")
	f.IntVar(&reruns, "reruns", 0, "reruns of a failing test before it counts as failing (default 2; negative: none)")
	return c
}

// gateDir is the gate's directory for a repository, outside its worktree
// (so a --working candidate never includes it).
func gateDir(repo string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New("no user cache directory for the gate; give --dir")
	}
	sum := sha256.Sum256([]byte(repo))
	return filepath.Join(base, "cairn", "verify", hex.EncodeToString(sum[:8])), nil
}

func printReport(w io.Writer, r *verify.Report) {
	fmt.Fprintf(w, "verdict: %s", r.Verdict)
	if r.Reason != "" {
		fmt.Fprintf(w, " — %s", r.Reason)
	}
	fmt.Fprintf(w, "\nbase %s  contract %s  backend %s  %d changed paths  %.1fs\n", short(r.Base), r.ContractHash, r.Backend, len(r.Changed), r.Duration.Seconds())
	for _, c := range r.Criteria {
		fmt.Fprintf(w, "\n%-8s %s (%s, %.1fs)", c.Status, c.ID, c.Kind, c.Duration.Seconds())
		if c.Reason != "" {
			fmt.Fprintf(w, ": %s", c.Reason)
		}
		fmt.Fprintln(w)
		if len(c.Argv) > 0 {
			fmt.Fprintf(w, "         $ %s  (in %s, exit %d)\n", strings.Join(c.Argv, " "), orDot(c.Dir), c.ExitCode)
		}
		for _, t := range c.BaseTests {
			fmt.Fprintf(w, "         base   %-12s %s %s\n", t.Outcome, t.Package, t.Name)
		}
		for _, t := range c.Tests {
			fmt.Fprintf(w, "         test   %-12s %s %s\n", t.Outcome, t.Package, t.Name)
		}
	}
	for _, group := range []struct {
		name string
		fs   []verify.Finding
	}{{"tamper", r.Tamper}, {"scope", r.Scope}} {
		if len(group.fs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", group.name)
		for _, f := range group.fs {
			fmt.Fprintf(w, "  %s %s %s: base %q, candidate %q\n", f.Kind, f.Path, f.Test, f.Base, f.Candidate)
		}
	}
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}
