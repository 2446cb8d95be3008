package loop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/agent/sandbox"
	"github.com/cairn-dev/cairn/agent/state"
)

// ApplyOptions say where a run's change goes.
type ApplyOptions struct {
	// Branch commits the change on a new local branch from the base, with
	// the change description as the message, and leaves the worktree as it
	// is; "" applies the change to the worktree (the index untouched).
	Branch string
	// Force applies a run the gate did not verify.
	Force bool
}

// Applied is what Apply did.
type Applied struct {
	RunID  string   `json:"run_id"`
	Files  []string `json:"files"`
	Branch string   `json:"branch,omitempty"`
	Commit string   `json:"commit,omitempty"`
}

// ConflictError is a refusal: files the change touches were changed in the
// user's worktree since the base.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return "refused: changed in your worktree since the run's base (commit or stash them, or apply to a branch): " + strings.Join(e.Paths, ", ")
}

// Apply brings a run's change into the user's repository. It never pushes,
// and it refuses rather than overwrite: a file the change touches must be in
// the user's worktree exactly as it is at the base.
func Apply(ctx context.Context, dir string, o ApplyOptions) (*Applied, error) {
	v, err := state.Read(dir)
	if err != nil {
		return nil, err
	}
	meta := v.Meta
	st := v.Checkpoint
	if st == nil || !st.Finished {
		return nil, fmt.Errorf("run %s has not ended; nothing to apply yet", meta.RunID)
	}
	if st.Status != StatusVerified && !o.Force {
		return nil, fmt.Errorf("run %s ended %s, not verified: the gate did not accept its change (--force applies it anyway)", meta.RunID, st.Status)
	}
	ws, err := sandbox.Open(ctx, meta.Repo, meta.Base, dir, nil)
	if err != nil {
		return nil, fmt.Errorf("run %s: its workspace: %w", meta.RunID, err)
	}
	patch, err := ws.Diff(ctx)
	if err != nil {
		return nil, err
	}
	changed, err := ws.Changed(ctx)
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 {
		return nil, fmt.Errorf("run %s changed nothing", meta.RunID)
	}
	out := &Applied{RunID: meta.RunID}
	for _, c := range changed {
		out.Files = append(out.Files, c.Path)
	}
	if o.Branch != "" {
		commit, err := commitOnBranch(ctx, meta.Repo, meta.Base, o.Branch, patch, description(meta.RunID, st))
		if err != nil {
			return nil, err
		}
		out.Branch, out.Commit = o.Branch, commit
		return out, nil
	}
	var conflicts []string
	for _, c := range changed {
		same, err := sameAsBase(ctx, meta.Repo, meta.Base, c.Path)
		if err != nil {
			return nil, err
		}
		if !same {
			conflicts = append(conflicts, c.Path)
		}
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Paths: conflicts}
	}
	if err := git(ctx, meta.Repo, nil, patch, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
		return nil, fmt.Errorf("apply the change: %w", err)
	}
	return out, nil
}

// sameAsBase reports whether the user's file is as the base has it
// (absent when the base has none).
func sameAsBase(ctx context.Context, repo, base, rel string) (bool, error) {
	disk, derr := os.ReadFile(filepath.Join(repo, filepath.FromSlash(rel)))
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "blob", base+":"+rel)
	blob, berr := cmd.Output()
	switch {
	case berr != nil && errors.Is(derr, os.ErrNotExist):
		return true, nil // new in the change, absent here
	case berr != nil:
		return false, nil // new in the change, but the user has one
	case derr != nil:
		return false, nil // the user deleted it
	}
	return bytes.Equal(disk, blob), nil
}

// commitOnBranch commits the patch on base in a private index and points a
// new branch at it: the user's index and worktree are not touched.
func commitOnBranch(ctx context.Context, repo, base, branch string, patch []byte, msg string) (string, error) {
	if err := git(ctx, repo, nil, nil, "check-ref-format", "--branch", branch); err != nil {
		return "", fmt.Errorf("branch name %q: %w", branch, err)
	}
	if err := git(ctx, repo, nil, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		return "", fmt.Errorf("branch %s exists already", branch)
	}
	tmp, err := os.MkdirTemp("", "cairn-apply-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if who, _ := gitOutput(ctx, repo, nil, nil, "config", "user.email"); who == "" {
		env = append(env, "GIT_AUTHOR_NAME=cairn agent", "GIT_AUTHOR_EMAIL=cairn@localhost", "GIT_COMMITTER_NAME=cairn agent", "GIT_COMMITTER_EMAIL=cairn@localhost")
	}
	if err := git(ctx, repo, env, nil, "read-tree", base); err != nil {
		return "", err
	}
	if err := git(ctx, repo, env, patch, "apply", "--cached", "--binary", "-"); err != nil {
		return "", fmt.Errorf("apply the change on the base: %w", err)
	}
	tree, err := gitOutput(ctx, repo, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	commit, err := gitOutput(ctx, repo, env, []byte(msg), "commit-tree", tree, "-p", base, "-F", "-")
	if err != nil {
		return "", err
	}
	if err := git(ctx, repo, nil, nil, "branch", branch, commit); err != nil {
		return "", err
	}
	return commit, nil
}

func description(id string, st *state.TaskState) string {
	var b strings.Builder
	title := st.Objective
	if i := strings.IndexByte(title, '\n'); i >= 0 {
		title = title[:i]
	}
	fmt.Fprintf(&b, "%s\n\n", title)
	if st.RootCause != "" {
		fmt.Fprintf(&b, "Cause: %s\n\n", st.RootCause)
	}
	if st.Summary != "" {
		fmt.Fprintf(&b, "Fix: %s\n\n", st.Summary)
	}
	fmt.Fprintf(&b, "Proof: cairn run %s ended %s.\n", id, st.Status)
	return b.String()
}

func git(ctx context.Context, dir string, env []string, stdin []byte, args ...string) error {
	_, err := gitOutput(ctx, dir, env, stdin, args...)
	return err
}

func gitOutput(ctx context.Context, dir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Env = append(cmd.Environ(), env...) // the host's git, as the user runs it
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
