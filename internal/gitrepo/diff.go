package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
)

// DiffOptions select the changes Diff reports.
type DiffOptions struct {
	// Rev compares the worktree with a commit; "" with HEAD.
	Rev string
	// Staged compares the index (staged changes) with Rev or HEAD instead
	// of the worktree.
	Staged bool
	// NoRenames reports a renamed file as deleted and added; otherwise git
	// detects renames as its configuration says (it does by default).
	NoRenames bool
}

// Change is what happened to a file.
type Change uint8

const (
	Modified Change = iota
	Added
	Deleted
	Renamed // (or copied), perhaps with changes
)

func (c Change) String() string {
	return [...]string{"modified", "added", "deleted", "renamed"}[c]
}

// FileDiff is one file's changes.
type FileDiff struct {
	// OldPath and Path are the file's repository-relative paths before and
	// after: OldPath is "" for an added file, Path "" for a deleted one.
	OldPath, Path string
	Change        Change
	// Binary: git reports only that the content differs (no hunks).
	Binary bool
	Hunks  []Hunk
}

// Hunk is a changed line range: OldLines lines from OldStart went, NewLines
// lines from NewStart came (lines are 1-based; a count of 0 means the
// range is empty, and its start is the line before the spot).
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
}

// Diff runs git diff in the worktree at root, with no context lines, and
// parses it.
func Diff(ctx context.Context, root string, o DiffOptions) ([]FileDiff, error) {
	args := []string{"diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}
	if o.NoRenames {
		args = append(args, "--no-renames")
	}
	if o.Staged {
		args = append(args, "--cached")
	}
	rev := o.Rev
	if rev == "" && !o.Staged {
		rev = "HEAD" // (--cached alone compares with HEAD, or with nothing before the first commit)
	}
	if err := checkRev(rev); err != nil {
		return nil, err
	}
	if rev != "" {
		args = append(args, rev)
	}
	args = append(args, "--")
	out, err := git(ctx, root, args...)
	if err != nil {
		return nil, err
	}
	return ParseDiff(out), nil
}

var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// ParseDiff parses git diff output (any amount of context; the context
// lines are not kept), in the order git wrote the files.
func ParseDiff(out []byte) []FileDiff {
	var files []FileDiff
	var cur *FileDiff
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			files = append(files, FileDiff{})
			cur = &files[len(files)-1]
			cur.OldPath, cur.Path = splitGitHeader(strings.TrimPrefix(line, "diff --git "))
		case cur == nil:
			// before the first file (a diff without git's headers is not read)
		case strings.HasPrefix(line, "new file mode "):
			cur.Change, cur.OldPath = Added, ""
		case strings.HasPrefix(line, "deleted file mode "):
			cur.Change, cur.Path = Deleted, ""
		case strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "copy from "):
			_, p, _ := strings.Cut(line, " from ")
			cur.Change, cur.OldPath = Renamed, unquote(p)
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			_, p, _ := strings.Cut(line, " to ")
			cur.Change, cur.Path = Renamed, unquote(p)
		case strings.HasPrefix(line, "Binary files ") && strings.HasSuffix(line, " differ"):
			cur.Binary = true
		case strings.HasPrefix(line, "--- "):
			if p := side(line[4:], "a/"); p != "" || cur.Change != Added {
				cur.OldPath = p
			}
		case strings.HasPrefix(line, "+++ "):
			if p := side(line[4:], "b/"); p != "" || cur.Change != Deleted {
				cur.Path = p
			}
		case strings.HasPrefix(line, "@@"):
			m := hunkRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			cur.Hunks = append(cur.Hunks, Hunk{OldStart: atoi(m[1], 0), OldLines: atoi(m[2], 1), NewStart: atoi(m[3], 0), NewLines: atoi(m[4], 1)})
		}
	}
	return files
}

// side reads the path of a ---/+++ line: "" for /dev/null.
func side(s, prefix string) string {
	s = strings.TrimSuffix(s, "\t") // git pads names with spaces by a tab
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(unquote(s), prefix)
}

// splitGitHeader splits "a/OLD b/NEW" of a diff --git line. Unquoted names
// with spaces are ambiguous; the ---/+++ or rename lines that follow set
// them when there are any.
func splitGitHeader(s string) (oldPath, newPath string) {
	if strings.HasPrefix(s, `"`) {
		if end := closingQuote(s); end > 0 {
			oldPath, s = unquote(s[:end+1]), strings.TrimPrefix(s[end+1:], " ")
		}
	} else if i := strings.Index(s, " b/"); i >= 0 && strings.HasPrefix(s, "a/") {
		// (the middle " b/" when both names are the same length)
		if j := len(s) / 2; len(s)%2 == 1 && s[j] == ' ' && s[:j][2:] == s[j+3:] {
			i = j
		}
		oldPath, s = s[:i], s[i+1:]
	}
	if newPath == "" {
		newPath = unquote(s)
	}
	return strings.TrimPrefix(oldPath, "a/"), strings.TrimPrefix(newPath, "b/")
}

// closingQuote finds the quote that ends the C-quoted name s starts with.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote undoes git's C-style quoting of a name ("a/t\303\251st").
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

func atoi(s string, def int) int {
	if s == "" {
		return def
	}
	n, _ := strconv.Atoi(s)
	return n
}
