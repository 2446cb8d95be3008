package evidence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
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
	// PatchFile is a binary git patch against the contract's base to
	// judge instead (an agent run's evidence/change.patch); exclusive with
	// Range.
	PatchFile string
	// Dir is the gate's directory (verify.Options.Dir).
	Dir string
	// Executor runs the checks; nil: the policy chooses it (PolicyExecutor),
	// with bubblewrap required unless the user allows the weaker backend.
	Executor sandbox.Executor
	// User is the user's layer of the policy, which the repository's
	// .cairn/policy.yaml only narrows (policy.Layered).
	User   policy.User
	Reruns int
	Limits sandbox.Limits
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
	if rq.PatchFile != "" {
		if rq.Range != "" {
			return nil, nil, badRequest("give a commit range or a patch, not both")
		}
		p, err := os.ReadFile(rq.PatchFile)
		if err != nil {
			return nil, nil, badRequest("patch: %v", err)
		}
		cand = verify.Candidate{Patch: p}
	}
	attempt, err := task.Start(ctx, contract, rq.Repo)
	if err != nil {
		return nil, nil, &RequestError{Err: fmt.Errorf("task contract: %w", err)}
	}
	ex := rq.Executor
	var pol *policy.Policy
	if ex == nil {
		if ex, pol, err = PolicyExecutor(ctx, rq.Repo, rq.User); err != nil {
			return nil, nil, err
		}
	}
	iso := IsolationOf(ex, pol)
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
		Command: rq.Command, CairnVersion: rq.CairnVersion, Model: rq.Model, ContractPath: rq.TaskFile, PatchPath: rq.PatchFile,
		RootCause: rq.RootCause, Summary: rq.Summary, Decisions: rq.Decisions, Isolation: iso}
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

// PolicyExecutor is the executor the policy allows — the user's layer,
// narrowed by the repository's (policy.Layered) — with the host's Go
// toolchain bound in: bubblewrap, unless it cannot run and the user allows
// the weaker backend (sandbox.Select says why not). The policy comes back
// for what it weakened and ignored.
func PolicyExecutor(ctx context.Context, repo string, u policy.User) (sandbox.Executor, *policy.Policy, error) {
	pol, err := policy.Layered(repo, u)
	if err != nil {
		return nil, nil, &RequestError{Err: err}
	}
	goroot, modcache, err := sandbox.GoToolchain(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("verify needs the go toolchain: %w", err)
	}
	ex, err := pol.Select(ctx, sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	if err != nil {
		return nil, nil, err
	}
	return ex, pol, nil
}

// IsolationOf is the isolation an executor gives under a policy (nil: not
// known): the backend, why bubblewrap could not run when it is the weaker
// one, and the policy's weakenings and ignored widenings.
func IsolationOf(ex sandbox.Executor, pol *policy.Policy) Isolation {
	iso := Isolation{Backend: ex.Backend()}
	iso.Isolated = iso.Backend == sandbox.BackendBwrap
	if why := sandbox.Degraded(ex); why != nil {
		iso.Degraded = why.Reason()
	}
	if pol != nil {
		iso.Weakened, iso.Ignored = policy.Strings(pol.Weakened), policy.Strings(pol.Ignored)
	}
	return iso
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

// DefaultDir is the gate's directory for a repository when the caller does
// not name one: under the user's cache directory, keyed by the
// repository's path, outside its worktree (so a working candidate never
// includes it). `cairn verify` and the client hooks share it, and with it
// the base results and the Go build cache.
func DefaultDir(repo string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New("no user cache directory for the gate; give --dir")
	}
	sum := sha256.Sum256([]byte(repo))
	return filepath.Join(base, "cairn", "verify", hex.EncodeToString(sum[:8])), nil
}
