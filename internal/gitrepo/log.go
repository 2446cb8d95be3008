package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Commit is one commit of the history: its hash, commit time (Unix
// seconds), message and the files it changed, relative to the directory
// the log was asked about.
type Commit struct {
	Hash    string
	Time    int64
	Message string
	Files   []string
}

// LogOptions bound a Log.
type LogOptions struct {
	// Max is the most commits returned (0: no limit).
	Max int
	// After: only commits not reachable from After ("" = all history).
	After string
	// Merges: only the merges of the first-parent line (how a pull request
	// lands in a repository that merges them), each with the files it
	// changed against its first parent — what the pull request changed.
	Merges bool
}

// Log returns the commits reachable from rev, newest first, merges left
// out (o.Merges: only merges), each with the files it added, changed or deleted below root (paths
// relative to root; renames as a deletion and an addition). Commits that
// changed nothing below root are left out.
func Log(ctx context.Context, root, rev string, o LogOptions) ([]Commit, error) {
	if err := checkRev(rev); err != nil {
		return nil, err
	}
	args := []string{"-c", "core.quotePath=false", "log", "--no-merges", "--no-renames", "--relative", "--name-only",
		"--no-color", "--no-ext-diff", "--format=%x1e%H%x1f%ct%x1f%B%x1f"}
	if o.Merges {
		args[3] = "--merges"
		args = append(args, "--first-parent", "--diff-merges=first-parent")
	}
	if o.Max > 0 {
		args = append(args, "-n", strconv.Itoa(o.Max))
	}
	spec := rev
	if o.After != "" {
		if err := checkRev(o.After); err != nil {
			return nil, err
		}
		spec = o.After + ".." + rev
	}
	out, err := git(ctx, root, append(args, spec, "--")...)
	if err != nil {
		return nil, err
	}
	return parseLog(out)
}

func parseLog(out []byte) ([]Commit, error) {
	var cs []Commit
	for _, rec := range bytes.Split(out, []byte{0x1e})[1:] {
		parts := bytes.SplitN(rec, []byte{0x1f}, 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("git log: a record of %d fields", len(parts))
		}
		t, err := strconv.ParseInt(string(parts[1]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("git log: commit time %q", parts[1])
		}
		c := Commit{Hash: string(parts[0]), Time: t, Message: strings.TrimSpace(string(parts[2]))}
		for _, l := range strings.Split(string(parts[3]), "\n") {
			if l = strings.TrimRight(l, "\r"); l != "" {
				c.Files = append(c.Files, l)
			}
		}
		if len(c.Files) > 0 {
			cs = append(cs, c)
		}
	}
	return cs, nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func IsAncestor(ctx context.Context, root, a, b string) (bool, error) {
	if err := checkRev(a); err != nil {
		return false, err
	}
	if err := checkRev(b); err != nil {
		return false, err
	}
	_, err := git(ctx, root, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	if ce, ok := err.(*CommandError); ok && ce.Exited() && ce.Stderr == "" {
		return false, nil
	}
	return false, err
}

// AddedLines returns the lines each of paths gained in commit, against its
// first parent (for a merge, what the merged branch brought), paths
// relative to root; nothing for a root commit.
func AddedLines(ctx context.Context, root, commit string, paths []string) (map[string][]string, error) {
	if err := checkRev(commit); err != nil {
		return nil, err
	}
	args := []string{"-c", "core.quotePath=false", "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
		"--relative", "--src-prefix=a/", "--dst-prefix=b/", commit + "^1", commit, "--"}
	out, err := git(ctx, root, append(args, paths...)...)
	if err != nil {
		if ce, ok := err.(*CommandError); ok && ce.Exited() && strings.Contains(ce.Stderr, commit+"^1") {
			return nil, nil // a root commit
		}
		return nil, err
	}
	var added map[string][]string
	cur := ""
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			cur = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if l == "+++ /dev/null" {
				cur = ""
			}
		case strings.HasPrefix(l, "diff --git "):
			cur = ""
		case cur != "" && strings.HasPrefix(l, "+"):
			if added == nil {
				added = map[string][]string{}
			}
			added[cur] = append(added[cur], l[1:])
		}
	}
	return added, nil
}
