package task

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// Attempt is one try at a contract: the contract as it was when the attempt
// started, its hash, and the base resolved to a commit. An attempt is
// immutable: Contract returns a copy, and a changed contract is a new
// attempt with a new hash.
type Attempt struct {
	contract *Contract
	hash     string
	commit   string
	started  time.Time
}

var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Start resolves the contract's base against the repository at repo (git
// rev-parse, peeled to a commit) and freezes the contract for one attempt.
func Start(ctx context.Context, c *Contract, repo string) (*Attempt, error) {
	commit, err := ResolveBase(ctx, repo, c.Base)
	if err != nil {
		return nil, err
	}
	frozen := c.Clone()
	return &Attempt{contract: frozen, hash: frozen.Hash(), commit: commit, started: time.Now().UTC()}, nil
}

// ResolveBase turns a revision into a full commit id in the repository at
// repo.
func ResolveBase(ctx context.Context, repo, rev string) (string, error) {
	if msg := badRevision(rev); msg != "" {
		return "", &FieldError{Path: "base", Msg: msg}
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return "", &FieldError{Path: "base", Msg: strings.TrimSpace(fmt.Sprintf("%q is not a commit in %s %s", rev, repo, stderr.String()))}
		}
		return "", fmt.Errorf("resolve base %q in %s: %w", rev, repo, err)
	}
	commit := strings.TrimSpace(string(out))
	if !commitPattern.MatchString(commit) {
		return "", fmt.Errorf("resolve base %q in %s: git printed %q", rev, repo, commit)
	}
	return commit, nil
}

// Contract returns a copy of the attempt's contract.
func (a *Attempt) Contract() *Contract { return a.contract.Clone() }

// Hash is the contract's content hash (Contract.Hash) at the start.
func (a *Attempt) Hash() string { return a.hash }

// Commit is the base, resolved to a full commit id.
func (a *Attempt) Commit() string { return a.commit }

// Started is when the attempt started (UTC).
func (a *Attempt) Started() time.Time { return a.started }

// Check reports an error when the frozen contract no longer has the hash
// it started with, which only a bug (or unsafe code) could cause.
func (a *Attempt) Check() error {
	if h := a.contract.Hash(); h != a.hash {
		return fmt.Errorf("task contract changed during the attempt: %s, started as %s", h, a.hash)
	}
	return nil
}

// Restore is the attempt a run recorded: its contract, the base commit it
// resolved then and when it started. A resumed run continues that attempt
// rather than starting a new one (a base revision such as HEAD may name
// another commit by now).
func Restore(c *Contract, commit string, started time.Time) (*Attempt, error) {
	if !commitPattern.MatchString(commit) {
		return nil, fmt.Errorf("restore attempt: %q is not a full commit id", commit)
	}
	frozen := c.Clone()
	return &Attempt{contract: frozen, hash: frozen.Hash(), commit: commit, started: started.UTC()}, nil
}
