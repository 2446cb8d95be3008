package hook

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
)

// stop runs the gate on the session's change and blocks the stop when it
// does not pass, at most MaxBlocks times in a row.
func (o Options) stop(ctx context.Context, in *Input, repo string) Answer {
	st, err := loadState(repo, in.SessionID)
	if err != nil {
		return o.failed(in, repo, err)
	}
	if o.fresh(in) && st.Blocks > 0 {
		st.Blocks = 0 // a new turn: a new run of blocks
		if err := st.save(repo, in.SessionID); err != nil {
			return o.failed(in, repo, err)
		}
	}
	rq, base, err := o.contract(ctx, repo, st)
	if err != nil {
		return o.failed(in, repo, err)
	}
	patch, err := verify.Candidate{Working: repo}.Resolve(ctx, repo, base)
	if err != nil {
		return o.failed(in, repo, fmt.Errorf("read the change: %w", err))
	}
	if len(patch) == 0 {
		st.Blocks = 0
		st.save(repo, in.SessionID)
		return Answer{Verdict: Silent} // nothing changed: nothing to verify
	}
	// the user's index, for the tools after the stop (the gate indexes
	// its own workspace)
	if err := o.refreshIndex(ctx, repo); err != nil && err != errNoIndex {
		fmt.Fprintf(o.Stderr, "cairn hook stop: the index was not refreshed: %v\n", err)
	}
	gateDir := o.GateDir
	if gateDir == "" {
		if gateDir, err = evidence.DefaultDir(repo); err != nil {
			return o.failed(in, repo, err)
		}
	}
	rq.Repo, rq.Dir, rq.User, rq.Reruns = repo, gateDir, o.User, o.Reruns
	rq.CairnVersion = o.Version
	rep, bundle, err := evidence.Run(ctx, rq)
	if err != nil {
		return o.failed(in, repo, fmt.Errorf("the gate: %w", err))
	}
	st.Runs++
	dir := filepath.Join(RunsDir, fmt.Sprintf("hook-%s-%d", sessionName(in.SessionID), st.Runs))
	werr := ignoredDir(filepath.Join(repo, RunsDir), "the runs' evidence")
	if werr == nil {
		werr = evidence.Write(filepath.Join(repo, dir), bundle)
	}
	where := filepath.ToSlash(filepath.Join(dir, "CHANGE.md"))
	if werr != nil {
		where = "not written: " + werr.Error()
	}
	if rep.Verdict == verify.Pass {
		st.Blocks = 0
		if err := st.save(repo, in.SessionID); err != nil {
			fmt.Fprintf(o.Stderr, "cairn hook stop: %v\n", err)
		}
		if rq.TaskFile == "" {
			// the default contract proves the selected tests pass and no
			// test was weakened — not that the change fixes anything: no
			// contract says what it was to fix (a test of a new helper
			// nothing calls passes it)
			return Answer{Verdict: Note, User: fmt.Sprintf("cairn: the change passed the default checks (%d criteria: the tests impact selects pass, no test weakened, scope kept). No %s states what the change must fix, so nothing here proves it fixes anything. Evidence: %s", len(rep.Criteria), TaskFile, where)}
		}
		return Answer{Verdict: Note, User: fmt.Sprintf("cairn: the change passed the verification gate (%d criteria of %s). Evidence: %s", len(rep.Criteria), TaskFile, where)}
	}
	if err := st.save(repo, in.SessionID); err != nil {
		fmt.Fprintf(o.Stderr, "cairn hook stop: %v\n", err)
	}
	return o.refuseStop(in, repo, gateReason(rep, where), "")
}

// fresh reports a stop that does not follow a blocked one: Claude Code and
// Codex say so with stop_hook_active, Cursor with loop_count. Other
// clients do not say, and their blocks count until the gate passes, the
// change is gone or a session starts.
func (o Options) fresh(in *Input) bool {
	switch o.Client {
	case ClaudeCode, Codex:
		return !in.StopHookActive
	case Cursor:
		return in.LoopCount == 0
	}
	return false
}

// refuseStop blocks the stop, or, when MaxBlocks stops in a row were
// blocked already, lets the agent stop and tells the user plainly that
// the change is unverified.
func (o Options) refuseStop(in *Input, repo, reason, user string) Answer {
	st, err := loadState(repo, in.SessionID)
	if err == nil && st.Blocks < o.MaxBlocks {
		st.Blocks++
		if err = st.save(repo, in.SessionID); err == nil {
			return Answer{Verdict: Block, User: user,
				Reason: fmt.Sprintf("%s\n\n(cairn blocked this stop, %d of %d in a row; after %d the stop is allowed and the change is reported to the user as unverified.)", reason, st.Blocks, o.MaxBlocks, o.MaxBlocks)}
		}
	}
	why := fmt.Sprintf("after %d blocked stops", o.MaxBlocks)
	if err != nil {
		// the blocks cannot be counted: never loop on them
		why = "the blocked stops cannot be counted (" + err.Error() + ")"
	}
	return Answer{Verdict: Note, User: strings.TrimSpace(fmt.Sprintf("cairn: the change is UNVERIFIED — the agent stopped %s without passing the verification gate. %s\n%s", why, firstLine(reason), user))}
}

// contract is the session's gate request: .cairn/task.yaml when the
// repository has one, else the default contract against the session's
// base (the commit checked out at session start, else HEAD). It returns
// the base commit the change is read against.
func (o Options) contract(ctx context.Context, repo string, st *state) (evidence.Request, string, error) {
	file := filepath.Join(repo, TaskFile)
	if _, err := os.Stat(file); err == nil {
		c, err := task.ParseFile(file)
		if err != nil {
			return evidence.Request{}, "", fmt.Errorf("the session's contract %s: %w", TaskFile, err)
		}
		base, err := task.ResolveBase(ctx, repo, c.Base)
		if err != nil {
			return evidence.Request{}, "", fmt.Errorf("the contract's base: %w", err)
		}
		return evidence.Request{TaskFile: file, Command: []string{"cairn", "verify", "--repo", repo, "--task", file, "--working"}}, base, nil
	}
	base, err := task.ResolveBase(ctx, repo, cmp.Or(st.Base, "HEAD"))
	if err != nil {
		return evidence.Request{}, "", fmt.Errorf("the session's base: %w", err)
	}
	text, err := defaultContract(repo, base, o.User)
	if err != nil {
		return evidence.Request{}, "", err
	}
	return evidence.Request{TaskText: text, Command: []string{"cairn", "hook", "stop", "--repo", repo}}, base, nil
}

// defaultContract is the contract of a session without one: the tests
// the engine's impact analysis selects for the change pass, and the
// change stays within the policy's writable paths and off its protected
// ones (the gate's tamper checks run for every contract).
func defaultContract(repo, base string, u policy.User) ([]byte, error) {
	pol, err := policy.Layered(repo, u)
	if err != nil {
		return nil, fmt.Errorf("read the policy: %w", err)
	}
	write := pol.Write
	if own, err := policy.Load(repo); err == nil && !slices.Equal(own.Write, policy.Default().Write) {
		write = own.Write // the repository's narrower write globs
	}
	c := map[string]any{
		"objective": "The session's change keeps the tests that reach it passing, weakens no test and stays off protected paths.",
		"base":      base,
		"scope":     map[string]any{"write": write, "protected": pol.Protected},
		"criteria": []map[string]any{
			{"id": "impact-tests", "text": "The tests that reach the changed code pass.", "check": map[string]bool{"impact_tests": true}},
			{"id": "scope", "text": "The change stays within the writable paths and leaves protected paths untouched.", "check": map[string]bool{"scope": true}},
		},
	}
	return json.Marshal(c)
}

// Bounds of the stop's reason: the model reads all of it.
const (
	maxReasonTests    = 8
	maxReasonFindings = 10
	maxTestOutput     = 600
)

// gateReason is the gate's report as the model reads it: each criterion
// that did not pass with the tests that failed, each tamper and scope
// finding with what to do about it, and where the evidence is.
func gateReason(r *verify.Report, where string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn's verification gate did not pass (verdict %s: %s). Fix what it names below, then stop again — do not weaken, skip or delete tests to get past it.\n", r.Verdict, r.Reason)
	for _, c := range r.Criteria {
		if c.Status == verify.Pass {
			continue
		}
		fmt.Fprintf(&b, "\n- criterion %q (%s) %s: %s", c.ID, c.Kind, c.Status, c.Text)
		if c.Reason != "" {
			fmt.Fprintf(&b, "\n  gate: %s", c.Reason)
		}
		if c.Kind == task.CheckImpactTests.String() && c.Status == verify.NotRun {
			b.WriteString("\n  No test reaches the changed code: add a test that exercises it (the gate runs the tests the engine's impact analysis selects). If the change needs none, tell the user; a contract in .cairn/task.yaml can say what proves it.")
		}
		if len(c.Argv) > 0 {
			fmt.Fprintf(&b, "\n  ran: %s (in %s)", strings.Join(c.Argv, " "), cmp.Or(c.Dir, "."))
		}
		shown := 0
		for _, t := range c.Tests {
			if t.Outcome == verify.OutcomePass || t.Outcome == verify.OutcomePreExisting {
				continue
			}
			if shown == maxReasonTests {
				b.WriteString("\n  … more tests did not pass (see the evidence)")
				break
			}
			shown++
			fmt.Fprintf(&b, "\n  test %s %s: %s", t.Package, t.Name, t.Outcome)
			if out := strings.TrimSpace(t.Output); out != "" {
				if len(out) > maxTestOutput {
					out = "…" + out[len(out)-maxTestOutput:]
				}
				fmt.Fprintf(&b, "\n    %s", strings.ReplaceAll(out, "\n", "\n    "))
			}
		}
	}
	findings := func(kind string, fs []verify.Finding) {
		for i, f := range fs {
			if i == maxReasonFindings {
				fmt.Fprintf(&b, "\n- … %d more %s findings (see the evidence)", len(fs)-i, kind)
				return
			}
			fmt.Fprintf(&b, "\n- %s finding %s in %s", kind, f.Kind, f.Path)
			if f.Test != "" {
				fmt.Fprintf(&b, " (%s)", f.Test)
			}
			if f.Base != "" || f.Candidate != "" {
				fmt.Fprintf(&b, ": base %q, now %q", f.Base, f.Candidate)
			}
			if hint := findingHint(kind, f.Kind); hint != "" {
				b.WriteString(". " + hint)
			}
		}
	}
	findings("tamper", r.Tamper)
	findings("scope", r.Scope)
	fmt.Fprintf(&b, "\n\nEvidence (the full report): %s", where)
	return b.String()
}

// findingHint says what to do about a finding.
func findingHint(group, kind string) string {
	if group == "scope" {
		return "The change may not touch this path: revert it."
	}
	switch kind {
	case "test_deleted", "test_renamed", "test_file_deleted":
		return "Restore the test; change the code under test instead."
	case "fewer_assertions", "unreachable_assertions":
		return "Restore the test's assertions; make the code satisfy them."
	case "skip_added", "build_constraint_added", "only_added":
		return "Remove the skip or constraint; tests must run."
	case "ci_config_edited":
		return "Revert the CI configuration."
	case "harness_changed", "exit_added", "framing_output", "forged_result":
		return "Revert the change to the test harness."
	}
	return ""
}
