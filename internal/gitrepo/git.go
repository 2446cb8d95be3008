package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// CommandError is a git command that failed: its arguments (after -C DIR),
// what git wrote to standard error, and the process's error.
type CommandError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *CommandError) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Exited reports whether git ran and exited with an error (as opposed to
// not running at all: no git on the machine, a cancelled context).
func (e *CommandError) Exited() bool {
	var ee *exec.ExitError
	return errors.As(e.Err, &ee)
}

// ErrBadRevision is returned (wrapped) for a revision git would read as an
// option.
var ErrBadRevision = errors.New("not a revision")

func checkRev(rev string) error {
	if strings.HasPrefix(rev, "-") {
		return fmt.Errorf("revision %q: %w", rev, ErrBadRevision)
	}
	return nil
}

// Tree is the commit checked out in a worktree and the blob of every file
// of its tree below the directory asked about.
type Tree struct {
	Revision string
	Blobs    map[string]string // path relative to the directory asked about → blob SHA-1
}

// ReadTree asks git for HEAD and its tree, paths relative to root (which
// may be a directory inside the worktree).
func ReadTree(ctx context.Context, root string) (Tree, error) {
	rev, prefix, err := TreeKey(ctx, root)
	if err != nil {
		return Tree{}, err
	}
	return ReadTreeAt(ctx, root, rev, prefix)
}

// TreeKey names the tree ReadTree would read at root without reading it
// (HEAD's commit and root's place in the worktree), for caches.
func TreeKey(ctx context.Context, root string) (rev, prefix string, err error) {
	out, err := git(ctx, root, "rev-parse", "--show-prefix", "HEAD")
	if err != nil {
		return "", "", err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	rev = lines[len(lines)-1]
	if len(lines) == 2 {
		prefix = lines[0]
	}
	return rev, prefix, nil
}

// ReadTreeAt reads the tree of commit rev, keeping the files below prefix
// (a worktree-relative directory ending in "/", or "") relative to it.
func ReadTreeAt(ctx context.Context, root, rev, prefix string) (Tree, error) {
	if err := checkRev(rev); err != nil {
		return Tree{}, err
	}
	out, err := git(ctx, root, "ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return Tree{}, err
	}
	t := Tree{Revision: rev, Blobs: map[string]string{}}
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> blob <sha>\t<path>"
		tab := bytes.IndexByte(rec, '\t')
		if tab < 0 {
			continue
		}
		meta := strings.Fields(string(rec[:tab]))
		if len(meta) != 3 || meta[1] != "blob" {
			continue
		}
		p := string(rec[tab+1:])
		if prefix != "" {
			var ok bool
			if p, ok = strings.CutPrefix(p, prefix); !ok {
				continue
			}
		}
		t.Blobs[p] = meta[2]
	}
	return t, nil
}

// Show returns the content of the repository-relative file rel at commit
// rev, as stored (no text conversion).
func Show(ctx context.Context, root, rev, rel string) ([]byte, error) {
	if err := checkRev(rev); err != nil {
		return nil, err
	}
	return git(ctx, root, "show", "--no-textconv", rev+":./"+rel)
}

// Authors returns the author names of the last n commits that touched the
// repository-relative path rel, newest first (with repeats).
func Authors(ctx context.Context, root, rel string, n int) ([]string, error) {
	out, err := git(ctx, root, "log", "-n", fmt.Sprint(n), "--format=%an", "--", rel)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, a := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if a != "" {
			names = append(names, a)
		}
	}
	return names, nil
}

// Remotes are the repository's names on its code hosts, "owner/name"
// (GitLab's groups included: "group/sub/name"), lower-cased, one per
// remote whose URL names one — https, ssh or scp-like
// ("git@host:owner/name.git"); not a local path. A fork's clone with an
// upstream remote has both names.
func Remotes(ctx context.Context, root string) []string {
	out, err := git(ctx, root, "config", "--get-regexp", `^remote\..*\.url$`)
	if err != nil {
		return nil
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		_, u, ok := strings.Cut(strings.TrimSpace(l), " ")
		if n := remoteName(u); ok && n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func remoteName(u string) string {
	var path string
	switch {
	case strings.Contains(u, "://"):
		_, rest, _ := strings.Cut(u, "://")
		_, path, _ = strings.Cut(rest, "/") // after the host
		if strings.HasPrefix(u, "file://") {
			return ""
		}
	case strings.Contains(u, ":") && !strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "."):
		_, path, _ = strings.Cut(u, ":") // git@host:owner/name
	default:
		return "" // a local path
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if strings.Count(path, "/") < 1 {
		return ""
	}
	return strings.ToLower(path)
}
