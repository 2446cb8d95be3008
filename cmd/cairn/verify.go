package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/verify"
)

func verifyCmd(g *globals) *cobra.Command {
	var taskFile, diff, patchFile, dir, evidenceDir string
	var working bool
	var reruns int
	var user userPolicyFlags
	c := &cobra.Command{
		Use:   "verify --task FILE [--diff BASE..HEAD | --patch FILE | --working]",
		Short: "run the verification gate on a change: every criterion of the task contract executed in a sandbox, tamper and scope checks (exit 0 only on pass)",
		Long: `verify runs the gate over a worktree's uncommitted changes (--working, the
default: the base is the contract's, the candidate the worktree as it is,
untracked files included), a commit range (--diff BASE..HEAD) or a binary git
patch against the contract's base (--patch FILE: an agent run's
.cairn/runs/RUN/evidence/change.patch, with --task .cairn/runs/RUN/contract). It prints the
report (--json: verdict, criteria[], tamper[], scope[], and evidence: the
bundle's summary — revisions, files with line counts, risks from impact, how
to reproduce, the environment) and exits 0 on pass, 1 on fail or blocked, 2
on usage errors. --evidence DIR writes the whole bundle (evidence.json) and
the change description (CHANGE.md) there.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if taskFile == "" {
				return usageError("--task FILE is required")
			}
			if working && diff != "" || working && patchFile != "" || diff != "" && patchFile != "" {
				return usageError("give one of --diff, --patch and --working")
			}
			if patchFile != "" {
				if _, err := os.Stat(patchFile); err != nil {
					return usageError("--patch: %v", err)
				}
				abs, err := filepath.Abs(patchFile)
				if err != nil {
					return usageError("--patch: %v", err)
				}
				patchFile = abs
			}
			repo, err := g.repoRoot()
			if err != nil {
				return usageError("--repo: %v", err)
			}
			if diff != "" {
				if base, head, ok := strings.Cut(diff, ".."); !ok || base == "" || head == "" {
					return usageError("--diff: want BASE..HEAD, got %q", diff)
				}
			}
			if _, err := os.Stat(taskFile); err != nil {
				return usageError("--task: %v", err)
			}
			u, err := user.user()
			if err != nil {
				return err
			}
			if dir == "" {
				if dir, err = gateDir(repo); err != nil {
					return &exitError{code: 1, err: err}
				}
			}
			argv := []string{"cairn", "verify", "--repo", repo, "--task", taskFile}
			switch {
			case patchFile != "":
				argv = append(argv, "--patch", patchFile)
			case diff != "":
				argv = append(argv, "--diff", diff)
			default:
				argv = append(argv, "--working")
			}
			rep, bundle, err := evidence.Run(ctx, evidence.Request{Repo: repo, TaskFile: taskFile, Range: diff, PatchFile: patchFile, Dir: dir,
				Reruns: reruns, Command: argv, CairnVersion: version, User: u})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			printIsolation(g.stderr, bundle.Isolation)
			if evidenceDir != "" {
				if err := evidence.Write(evidenceDir, bundle); err != nil {
					return &exitError{code: 1, err: err}
				}
			}
			if g.json {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(verifyJSON{Report: rep, Evidence: bundle.WithoutReport()}); err != nil {
					return err
				}
			} else {
				printReport(g.stdout, rep)
				printRisks(g.stdout, bundle)
				if evidenceDir != "" {
					fmt.Fprintf(g.stdout, "\nevidence: %s (evidence.json, CHANGE.md)\n", evidenceDir)
				}
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
	f.StringVar(&patchFile, "patch", "", "judge a binary git patch against the contract's base (an agent run's .cairn/runs/RUN/evidence/change.patch)")
	f.BoolVar(&working, "working", false, "judge the worktree's uncommitted changes, untracked files included (the default)")
	f.StringVar(&dir, "dir", "", "the gate's directory: workspaces (removed at every start) and caches (default: the user cache dir)")
	f.StringVar(&evidenceDir, "evidence", "", "write the evidence bundle into this directory: evidence.json (schema/evidence.schema.json) and CHANGE.md (cause, fix, proof)")
	f.IntVar(&reruns, "reruns", 0, "reruns of a failing test before it counts as failing (default 2; negative: none)")
	user.register(c)
	return c
}

// gateDir is the gate's directory for a repository (evidence.DefaultDir).
func gateDir(repo string) (string, error) { return evidence.DefaultDir(repo) }

// verifyJSON is the --json output: the report, and the evidence beside it
// (the bundle without the report it would repeat).
type verifyJSON struct {
	*verify.Report
	Evidence *evidence.Bundle `json:"evidence"`
}

func printRisks(w io.Writer, b *evidence.Bundle) {
	rk := b.Risks
	if !rk.Available {
		fmt.Fprintf(w, "\nrisks: unknown — %s\n", rk.Unavailable)
		return
	}
	fmt.Fprintf(w, "\nrisks: %s — %d dependents (%d direct), %d untested callers, public API %v\n", rk.Level, rk.Dependents, rk.DirectDependents, len(rk.UntestedCallers), rk.PublicAPI)
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
