package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// Candidate is the change the gate judges: exactly one of its fields.
type Candidate struct {
	// Working is a worktree of the repository: its changes against the
	// base as it is now, untracked files included (ignored ones and
	// cairn's own .cairn directory not).
	Working string
	// Range is "BASE..HEAD" in the repository; BASE must be the
	// attempt's base.
	Range string
	// Patch is a binary-safe git patch against the base.
	Patch []byte
}

// Resolve is the candidate as the gate judges it: one binary git patch
// against base (the same bytes Verify applies).
func (c Candidate) Resolve(ctx context.Context, repo, base string) ([]byte, error) {
	return c.patch(ctx, repo, base)
}

// patch resolves the candidate to a git patch against base.
func (c Candidate) patch(ctx context.Context, repo, base string) ([]byte, error) {
	set := 0
	for _, b := range []bool{c.Working != "", c.Range != "", c.Patch != nil} {
		if b {
			set++
		}
	}
	if set != 1 {
		return nil, errors.New("candidate: give exactly one of a worktree, a commit range or a patch")
	}
	switch {
	case c.Patch != nil:
		return c.Patch, nil
	case c.Range != "":
		from, to, ok := strings.Cut(c.Range, "..")
		if !ok || from == "" || to == "" || strings.HasPrefix(to, ".") || strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") {
			return nil, fmt.Errorf("candidate: range %q is not BASE..HEAD", c.Range)
		}
		fromC, err := revParse(ctx, repo, from)
		if err != nil {
			return nil, fmt.Errorf("candidate: range base: %w", err)
		}
		if fromC != base {
			return nil, fmt.Errorf("candidate: range base %s is %s, not the attempt's base %s", from, fromC, base)
		}
		toC, err := revParse(ctx, repo, to)
		if err != nil {
			return nil, fmt.Errorf("candidate: range head: %w", err)
		}
		out, err := gitRun(ctx, repo, nil, "diff", "--binary", "--no-renames", "--full-index", "--no-color", fromC, toC)
		return []byte(out), err
	}
	idx, err := os.CreateTemp("", "cairn-verify-index-*")
	if err != nil {
		return nil, err
	}
	idx.Close()
	os.Remove(idx.Name()) // git creates it
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if _, err := gitRun(ctx, c.Working, env, "read-tree", base); err != nil {
		return nil, fmt.Errorf("candidate: worktree %s: %w", c.Working, err)
	}
	// cairn's own directory (the index, run state, a contract beside it) is
	// never part of a change: add everything, then put .cairn back as the
	// base has it. (An exclude pathspec, ":(exclude).cairn", makes git add
	// fail when .cairn is ignored — a .gitignore or info/exclude entry.)
	if _, err := gitRun(ctx, c.Working, env, "add", "--all", "--", "."); err != nil {
		return nil, fmt.Errorf("candidate: worktree %s: %w", c.Working, err)
	}
	if _, err := gitRun(ctx, c.Working, env, "reset", "--quiet", base, "--", ".cairn"); err != nil {
		return nil, fmt.Errorf("candidate: worktree %s: %w", c.Working, err)
	}
	out, err := gitRun(ctx, c.Working, env, "diff", "--cached", "--binary", "--no-renames", "--full-index", "--no-color", base)
	return []byte(out), err
}

// filePatch is one file's part of a git patch.
type filePatch struct {
	path string // the new path (the old one for a deletion)
	text []byte
}

// splitPatch cuts a git patch at its "diff --git" headers.
func splitPatch(p []byte) []filePatch {
	var out []filePatch
	for _, part := range bytes.SplitAfter(p, []byte("\n")) {
		if bytes.HasPrefix(part, []byte("diff --git ")) {
			out = append(out, filePatch{path: headerPath(string(part))})
		}
		if len(out) > 0 {
			out[len(out)-1].text = append(out[len(out)-1].text, part...)
		}
	}
	return out
}

// headerPath is the b/ path of a "diff --git a/X b/X" line (git quotes
// unusual names; the paths of both sides are equal without renames).
func headerPath(line string) string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "diff --git "), "\n")
	if i := strings.Index(line, " b/"); i >= 0 && strings.HasPrefix(line, "a/") {
		return line[i+3:]
	}
	return line
}

// applyPatch applies a patch in a workspace and hands the files to the
// executor's owner. An error means the change cannot be judged.
func applyPatch(ctx context.Context, ws *sandbox.Workspace, p []byte, owner *sandbox.Owner) error {
	if len(bytes.TrimSpace(p)) > 0 {
		f, err := os.CreateTemp(ws.RunDir, ".patch-*")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		if _, err := f.Write(p); err != nil {
			f.Close()
			return err
		}
		f.Close()
		if _, err := gitRun(ctx, ws.Dir, nil, "apply", "--binary", "--whitespace=nowarn", f.Name()); err != nil {
			return fmt.Errorf("the candidate diff does not apply at the base: %w", err)
		}
	}
	if owner == nil {
		return nil
	}
	return filepath.WalkDir(ws.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, owner.UID, owner.GID)
	})
}

// selectPatch keeps the parts of a patch whose paths keep says.
func selectPatch(p []byte, keep func(path string) bool) []byte {
	var out []byte
	for _, fp := range splitPatch(p) {
		if keep(fp.path) {
			out = append(out, fp.text...)
		}
	}
	return out
}

func revParse(ctx context.Context, repo, rev string) (string, error) {
	out, err := gitRun(ctx, repo, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q is not a commit in %s", rev, repo)
	}
	return strings.TrimSpace(out), nil
}

// showBase is a file's content at the base; ok is false when the base has
// no such file.
func showBase(ctx context.Context, repo, base, rel string) ([]byte, bool) {
	out, err := gitRun(ctx, repo, nil, "cat-file", "blob", base+":"+path.Clean(rel))
	if err != nil {
		return nil, false
	}
	return []byte(out), true
}

// gitRun is the harness's one way of running git (sandbox.Git).
func gitRun(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return sandbox.Git(ctx, dir, env, args...)
}
