package gitrepo

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// location is where a worktree's git data is: the worktree's git directory
// (HEAD) and the common one (refs, packed-refs; the same unless a linked
// worktree).
type location struct {
	top, gitDir, common string
}

// locate finds the git directory of the worktree holding dir: the nearest
// .git at or above it. ok is false outside any worktree; known is false
// when a .git was found but could not be read.
func locate(dir string) (loc location, found, known bool) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for d := dir; ; {
		g := filepath.Join(d, ".git")
		if st, err := os.Stat(g); err == nil {
			loc.top = d
			if st.IsDir() {
				loc.gitDir, loc.common = g, g
				return loc, true, true
			}
			// a linked worktree or a submodule: "gitdir: <path>"
			b, err := os.ReadFile(g)
			if err != nil {
				return loc, true, false
			}
			gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if !ok {
				return loc, true, false
			}
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(d, gd)
			}
			loc.gitDir, loc.common = gd, gd
			if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
				cd := strings.TrimSpace(string(c))
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(gd, cd)
				}
				loc.common = filepath.Clean(cd)
			}
			return loc, true, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return loc, false, false
		}
		d = parent
	}
}

// Head returns the commit checked out in the worktree holding root, ""
// outside git or on a branch with no commit yet. It reads git's files (see
// the package documentation) and runs git only when they do not tell.
func Head(ctx context.Context, root string) string {
	loc, found, known := locate(root)
	if !found {
		return ""
	}
	if known {
		if h, ok := headFromFiles(loc); ok {
			return h
		}
	}
	out, err := git(ctx, root, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// headFromFiles reads HEAD and the ref it names; ok is false when the
// files do not tell (the answer "" with ok is an unborn branch).
func headFromFiles(loc location) (string, bool) {
	b, err := os.ReadFile(filepath.Join(loc.gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	head := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(head, "ref: ")
	if !ok {
		return head, isHash(head) // detached
	}
	for _, d := range []string{loc.gitDir, loc.common} {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			h := strings.TrimSpace(string(b))
			return h, isHash(h)
		}
	}
	f, err := os.Open(filepath.Join(loc.common, "packed-refs"))
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sha, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
			return sha, isHash(sha)
		}
	}
	if _, err := os.Stat(filepath.Join(loc.common, "refs", "heads")); err == nil {
		return "", true // a branch with no commit yet
	}
	return "", false
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Dirs returns the git directory of the worktree holding root and the
// common one (they differ for linked worktrees), symbolic links resolved,
// without duplicates: HEAD lives in the first, refs in the second. Nil
// outside git.
func Dirs(ctx context.Context, root string) []string {
	loc, found, known := locate(root)
	if !found {
		return nil
	}
	var dirs []string
	if known {
		dirs = []string{loc.gitDir, loc.common}
	} else {
		out, err := git(ctx, root, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
		if err != nil {
			return nil
		}
		dirs = strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	var out []string
	for _, l := range dirs {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(l); err == nil {
			l = r
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// trusted are the worktrees a harness made and named (Trust).
var trusted sync.Map // absolute path → true

// Trust names a worktree the calling process created itself — an agent's
// sandbox workspace, whose files may belong to the sandbox's user — as one
// git may work in although another user owns it ("dubious ownership").
// Git runs there with its hooks and fsmonitor off, so nothing the tree's
// writer put in its configuration runs. Only for trees the process made:
// safe.directory guards against running a stranger's repository config.
func Trust(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	trusted.Store(filepath.Clean(dir), true)
}

// trustArgs are the -c settings for dir when it is inside a trusted tree.
func trustArgs(dir string) []string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for d := filepath.Clean(dir); ; {
		if _, ok := trusted.Load(d); ok {
			return []string{"-c", "safe.directory=" + d, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}
		}
		up := filepath.Dir(d)
		if up == d {
			return nil
		}
		d = up
	}
}

// git runs git in dir and returns its standard output; a failure is a
// *CommandError.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	argv := append(trustArgs(dir), "-C", dir)
	cmd := exec.CommandContext(ctx, "git", append(argv, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &CommandError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return out, nil
}
