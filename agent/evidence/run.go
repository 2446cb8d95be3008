package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/agent/policy"
	"github.com/cairn-dev/cairn/agent/sandbox"
	"github.com/cairn-dev/cairn/agent/task"
	"github.com/cairn-dev/cairn/agent/verify"
	"github.com/cairn-dev/cairn/engine"
)

// Request is one gate run as `cairn verify` and the MCP tool verify_change
// ask for it: both call Run, so they cannot judge a change differently.
type Request struct {
	Repo string // the repository root
	// The contract: a file (TaskFile, as the caller resolved it) or its
	// text (TaskText), exactly one.
	TaskFile string
	TaskText []byte
	// The candidate: a commit range "BASE..HEAD" (BASE becomes the
	// contract's base), or, when Range is empty, the repository's
	// worktree as it is against the contract's base.
	Range string
	// Dir is the gate's directory (verify.Options.Dir).
	Dir string
	// Executor runs the checks; nil: the repository's policy
	// (.cairn/policy.yaml) chooses it, with bubblewrap required unless the
	// policy names the weaker backend.
	Executor sandbox.Executor
	Reruns   int
	Limits   sandbox.Limits
	// Impact selects the impact_tests; nil: the engine's, whose analysis
	// then also gives the bundle its risks (no second index).
	Impact verify.ImpactSelector
	// What the bundle records besides the run.
	Command      []string
	CairnVersion string
	Model        *Model
	RootCause    string
	Summary      string
	Decisions    []string
}

// RequestError is a request the caller can fix: a contract that does not
// parse or validate (the message names the field), a malformed range, a
// base that is not a commit. Other errors are the environment's.
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

func badRequest(format string, args ...any) error {
	return &RequestError{Err: fmt.Errorf(format, args...)}
}

// Run runs the gate on the request and builds its evidence bundle. The
// report's verdict is the answer; an error means it could not be given.
func Run(ctx context.Context, rq Request) (*verify.Report, *Bundle, error) {
	if rq.Repo == "" || rq.Dir == "" {
		return nil, nil, errors.New("evidence: Repo and Dir are required")
	}
	var contract *task.Contract
	var err error
	switch {
	case rq.TaskFile != "" && rq.TaskText != nil:
		return nil, nil, badRequest("give a contract file or its text, not both")
	case rq.TaskFile != "":
		contract, err = task.ParseFile(rq.TaskFile)
	case len(strings.TrimSpace(string(rq.TaskText))) > 0:
		contract, err = task.Parse(rq.TaskText)
		if err != nil {
			err = fmt.Errorf("task contract: %w", err)
		}
	default:
		return nil, nil, badRequest("a task contract is required")
	}
	if err != nil {
		return nil, nil, &RequestError{Err: err}
	}
	cand := verify.Candidate{Working: rq.Repo}
	if rq.Range != "" {
		base, head, ok := strings.Cut(rq.Range, "..")
		if !ok || base == "" || head == "" || strings.HasPrefix(head, ".") {
			return nil, nil, badRequest("diff: want BASE..HEAD, got %q", rq.Range)
		}
		contract.Base = base
		cand = verify.Candidate{Range: rq.Range}
	}
	attempt, err := task.Start(ctx, contract, rq.Repo)
	if err != nil {
		return nil, nil, &RequestError{Err: fmt.Errorf("task contract: %w", err)}
	}
	ex := rq.Executor
	if ex == nil {
		if ex, err = PolicyExecutor(ctx, rq.Repo); err != nil {
			return nil, nil, err
		}
	}
	rec := &recorder{}
	impact := rq.Impact
	if impact == nil {
		impact = rec
	}
	patch, perr := cand.Resolve(ctx, rq.Repo, attempt.Commit())
	rep, err := verify.Verify(ctx, verify.Options{Attempt: attempt, Repo: rq.Repo, Candidate: cand, Executor: ex,
		Dir: rq.Dir, Reruns: rq.Reruns, Limits: rq.Limits, Impact: impact})
	if err != nil {
		return nil, nil, err
	}
	if perr != nil {
		patch = []byte{}
	}
	in := Input{Report: rep, Attempt: attempt, Repo: rq.Repo, Candidate: cand, Patch: patch,
		Impact: rec.res, ImpactErr: rec.err, ScratchDir: filepath.Join(rq.Dir, "evidence"),
		Command: rq.Command, CairnVersion: rq.CairnVersion, Model: rq.Model,
		RootCause: rq.RootCause, Summary: rq.Summary, Decisions: rq.Decisions}
	// each analysis takes its own directory under ScratchDir and removes it
	if err := os.MkdirAll(in.ScratchDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("evidence: %w", err)
	}
	b, err := Build(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	return rep, b, nil
}

// PolicyExecutor is the executor the repository's policy allows: the host's
// Go toolchain bound in, bubblewrap unless the policy names the weaker
// backend (sandbox.Select says why not).
func PolicyExecutor(ctx context.Context, repo string) (sandbox.Executor, error) {
	pol, err := policy.Load(repo)
	if err != nil {
		return nil, &RequestError{Err: err}
	}
	goroot, modcache, err := sandbox.GoToolchain(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify needs the go toolchain: %w", err)
	}
	return sandbox.Select(ctx, pol.SandboxOptions(sandbox.Options{GoRoot: goroot, GoModCache: modcache}))
}

// recorder is the engine's impact selector that keeps its analysis for
// the bundle's risks.
type recorder struct {
	res *engine.ImpactResult
	err error
}

func (r *recorder) ImpactTests(ctx context.Context, dir string, changed []string) ([]string, error) {
	r.res, r.err = verify.WorkspaceImpact(ctx, dir)
	if r.err != nil {
		return nil, r.err
	}
	return verify.TestSelectors(r.res), nil
}
