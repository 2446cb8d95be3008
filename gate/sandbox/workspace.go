package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// Owner is the host identity a workspace's files belong to, so that the
// sandbox's user can write them (the bubblewrap backend runs commands as an
// unprivileged user when the harness is root; see doc.go).
type Owner struct {
	UID, GID int
}

// Workspace is a disposable git worktree of a base commit. The harness does
// every git operation on it; commands run inside it through an Executor.
type Workspace struct {
	Repo   string // the source repository
	Dir    string // the worktree, RunDir/work
	RunDir string // the run's directory: the worktree and per-run caches
	Base   string // the base commit
	owner  *Owner
}

// Create adds a detached worktree of base (a commit) under runDir/work. With
// owner set, the worktree's files are handed to that identity.
func Create(ctx context.Context, repo, base, runDir string, owner *Owner) (*Workspace, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return nil, err
	}
	runDir, err = filepath.Abs(runDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	w := &Workspace{Repo: repo, Dir: filepath.Join(runDir, "work"), RunDir: runDir, owner: owner}
	commit, err := git(ctx, repo, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("create workspace: base %q: %w", base, err)
	}
	w.Base = strings.TrimSpace(commit)
	if _, err := git(ctx, repo, nil, "worktree", "add", "--detach", "--quiet", w.Dir, w.Base); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	if err := w.chown(w.Dir); err != nil {
		return nil, errors.Join(fmt.Errorf("create workspace: %w", err), w.Remove(context.WithoutCancel(ctx)))
	}
	// the engine's git reads the tree too, though its files may now be
	// the sandbox user's
	gitrepo.Trust(w.Dir)
	return w, nil
}

// Open reattaches the workspace an earlier Create left under runDir (a run
// resumed after its process was killed): RUN/work must still be a worktree
// registered in repo. Its base is the one the run recorded.
func Open(ctx context.Context, repo, base, runDir string, owner *Owner) (*Workspace, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return nil, err
	}
	runDir, err = filepath.Abs(runDir)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Repo: repo, Dir: filepath.Join(runDir, "work"), RunDir: runDir, owner: owner}
	list, err := git(ctx, repo, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	registered := false
	for _, f := range strings.Split(list, "\x00") {
		if p, ok := strings.CutPrefix(f, "worktree "); ok && filepath.Clean(p) == w.Dir {
			registered = true
		}
	}
	if !registered {
		return nil, fmt.Errorf("open workspace: %s is not a worktree of %s", w.Dir, repo)
	}
	commit, err := git(ctx, repo, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("open workspace: base %q: %w", base, err)
	}
	w.Base = strings.TrimSpace(commit)
	gitrepo.Trust(w.Dir)
	return w, nil
}

// MkdirRun creates a directory under the run directory (for a per-run
// cache), owned by the workspace's owner.
func (w *Workspace) MkdirRun(name string) (string, error) {
	d := filepath.Join(w.RunDir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	return d, w.chown(d)
}

func (w *Workspace) chown(root string) error {
	if w.owner == nil {
		return nil
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, w.owner.UID, w.owner.GID)
	})
}

// Change is one path that differs from the base: its status letter as git
// prints it (A added, M modified, D deleted, T type changed).
type Change struct {
	Status string `json:"status"`
	Path   string `json:"path"`
}

// Changed lists the paths that differ from the base, untracked files
// included, sorted by path.
func (w *Workspace) Changed(ctx context.Context) ([]Change, error) {
	out, err := w.withTreeIndex(ctx, "diff", "--cached", "--name-status", "--no-renames", "-z", w.Base)
	if err != nil {
		return nil, fmt.Errorf("list changes: %w", err)
	}
	var cs []Change
	f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		cs = append(cs, Change{Status: f[i], Path: f[i+1]})
	}
	return cs, nil
}

// Diff is the binary-safe patch from the base to the worktree as it is,
// untracked files included.
func (w *Workspace) Diff(ctx context.Context) ([]byte, error) {
	out, err := w.withTreeIndex(ctx, "diff", "--cached", "--binary", "--no-renames", "--no-color", w.Base)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	return []byte(out), nil
}

// withTreeIndex runs a git command against a throwaway index holding the
// worktree as it is, so looking never changes the workspace's own index.
func (w *Workspace) withTreeIndex(ctx context.Context, args ...string) (string, error) {
	idx, err := os.CreateTemp(w.RunDir, ".index-*")
	if err != nil {
		return "", err
	}
	idx.Close()
	defer os.Remove(idx.Name())
	os.Remove(idx.Name()) // git wants to create it
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if _, err := git(ctx, w.Dir, env, "read-tree", w.Base); err != nil {
		return "", err
	}
	if _, err := git(ctx, w.Dir, env, "add", "--all", "--force", "--", "."); err != nil {
		return "", err
	}
	return git(ctx, w.Dir, env, args...)
}

// Snapshot commits every change in the worktree (untracked files included)
// on its detached HEAD and returns the commit; with nothing changed since
// the last snapshot it returns HEAD. Hooks never run.
func (w *Workspace) Snapshot(ctx context.Context, message string) (string, error) {
	if _, err := git(ctx, w.Dir, nil, "add", "--all", "--", "."); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	if _, err := git(ctx, w.Dir, nil, "diff", "--cached", "--quiet"); err != nil {
		if _, err := git(ctx, w.Dir, nil, "commit", "--quiet", "--no-verify", "--allow-empty-message", "-m", message); err != nil {
			return "", fmt.Errorf("snapshot: %w", err)
		}
	}
	head, err := git(ctx, w.Dir, nil, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	return strings.TrimSpace(head), nil
}

// Revert puts a path (a file or a directory, relative to the workspace
// root) back as it is at the base: files the base has are restored, files
// it does not have are removed.
func (w *Workspace) Revert(ctx context.Context, rel string) error {
	clean, err := cleanRel(rel)
	if err != nil {
		return fmt.Errorf("revert %q: %w", rel, err)
	}
	inBase, err := git(ctx, w.Dir, nil, "ls-tree", "-r", "-z", "--name-only", w.Base, "--", clean)
	if err != nil {
		return fmt.Errorf("revert %q: %w", rel, err)
	}
	keep := map[string]bool{}
	for _, p := range strings.Split(inBase, "\x00") {
		if p != "" {
			keep[p] = true
		}
	}
	now, err := git(ctx, w.Dir, nil, "ls-files", "-z", "--cached", "--others", "--", clean)
	if err != nil {
		return fmt.Errorf("revert %q: %w", rel, err)
	}
	for _, p := range strings.Split(now, "\x00") {
		if p != "" && !keep[p] {
			if err := os.Remove(filepath.Join(w.Dir, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("revert %q: %w", rel, err)
			}
		}
	}
	if _, err := git(ctx, w.Dir, nil, "reset", "--quiet", w.Base, "--", clean); err != nil {
		return fmt.Errorf("revert %q: %w", rel, err)
	}
	if len(keep) > 0 {
		if _, err := git(ctx, w.Dir, nil, "checkout", w.Base, "--", clean); err != nil {
			return fmt.Errorf("revert %q: %w", rel, err)
		}
		for p := range keep {
			if err := w.chown(filepath.Join(w.Dir, filepath.FromSlash(p))); err != nil {
				return fmt.Errorf("revert %q: %w", rel, err)
			}
		}
	}
	return nil
}

// Remove deletes the worktree and its registration in the repository.
func (w *Workspace) Remove(ctx context.Context) error {
	_, err := git(ctx, w.Repo, nil, "worktree", "remove", "--force", "--force", w.Dir)
	if rerr := os.RemoveAll(w.Dir); rerr != nil && err == nil {
		err = rerr
	}
	if _, perr := git(ctx, w.Repo, nil, "worktree", "prune"); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return fmt.Errorf("remove workspace %s: %w", w.Dir, err)
	}
	return nil
}

// cleanRel checks a workspace-relative, slash-separated path.
func cleanRel(rel string) (string, error) {
	c := path.Clean(filepath.ToSlash(rel))
	if rel == "" || path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") || c == ".git" || strings.HasPrefix(c, ".git/") {
		return "", errors.New("not a path inside the workspace")
	}
	return c, nil
}

// Git runs git, outside any sandbox, with the settings the harness needs on
// a tree a model has written to: no hooks, no fsmonitor, no pager, no
// signing, a fixed identity, unquoted paths, and none of the caller's GIT_*
// variables or secret-looking ones (env adds variables). The gate's own git
// work uses it too, so the harness runs git one way.
func Git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return git(ctx, dir, env, args...)
}

func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	base := []string{"-C", dir,
		"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "safe.directory=*",
		"-c", "commit.gpgsign=false", "-c", "user.name=cairn", "-c", "user.email=cairn@localhost",
		"-c", "core.autocrlf=false", "-c", "core.quotePath=false"}
	cmd := exec.CommandContext(ctx, "git", append(base, args...)...)
	cmd.Env = hostEnv(true)
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
