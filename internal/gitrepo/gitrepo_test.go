package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=ann", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=ann", "GIT_COMMITTER_EMAIL=a@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repo makes a repository with one commit on branch main.
func repo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	run(t, root, "init", "-q", "-b", "main")
	write(t, root, "a.go", "package a\n\nfunc A() {}\n")
	write(t, root, "sub/b.txt", "one\ntwo\nthree\n")
	run(t, root, "add", "-A")
	run(t, root, "commit", "-q", "-m", "first")
	return root
}

// headOf is Head, checked to come from git's files alone (no process).
func headOf(t *testing.T, dir string) string {
	t.Helper()
	h := Head(context.Background(), dir)
	loc, found, known := locate(dir)
	if fh, ok := headFromFiles(loc); !found || !known || !ok || fh != h {
		t.Errorf("%s: HEAD from the files = %q (found %v, known %v, ok %v), from Head %q", dir, fh, found, known, ok, h)
	}
	return h
}

func TestHead(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	first := run(t, root, "rev-parse", "HEAD")
	for _, tc := range []struct{ name, dir string }{{"the top", root}, {"a directory inside", filepath.Join(root, "sub")}} {
		if got := headOf(t, tc.dir); got != first {
			t.Errorf("on a branch, from %s: Head = %q, want %q", tc.name, got, first)
		}
	}
	run(t, root, "pack-refs", "--all")
	if got := headOf(t, root); got != first {
		t.Errorf("packed refs: Head = %q, want %q", got, first)
	}
	write(t, root, "a.go", "package a\n")
	run(t, root, "commit", "-q", "-am", "second")
	second := run(t, root, "rev-parse", "HEAD")
	if got := headOf(t, root); got != second || got == first {
		t.Errorf("after a commit: Head = %q, want %q", got, second)
	}
	run(t, root, "checkout", "-q", "--detach", first)
	if got := headOf(t, root); got != first {
		t.Errorf("detached: Head = %q, want %q", got, first)
	}
	run(t, root, "checkout", "-q", "main")

	// a linked worktree: .git is a file, HEAD its own, refs shared
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, root, "worktree", "add", "-q", "-b", "side", wt, first)
	if got := headOf(t, wt); got != first {
		t.Errorf("linked worktree: Head = %q, want %q", got, first)
	}
	if got := headOf(t, root); got != second {
		t.Errorf("main worktree beside a linked one: Head = %q, want %q", got, second)
	}
	dirs := Dirs(ctx, wt)
	wantGit, _ := filepath.EvalSymlinks(filepath.Join(root, ".git"))
	if len(dirs) != 2 || !strings.HasPrefix(dirs[0], wantGit+string(filepath.Separator)+"worktrees") || dirs[1] != wantGit {
		t.Errorf("Dirs(linked worktree) = %v, want [%s/worktrees/… %s]", dirs, wantGit, wantGit)
	}
	if d := Dirs(ctx, root); len(d) != 1 || d[0] != wantGit {
		t.Errorf("Dirs(main worktree) = %v, want [%s]", d, wantGit)
	}

	// outside git, and a branch with no commit yet
	if got := Head(ctx, t.TempDir()); got != "" {
		t.Errorf("outside git: Head = %q", got)
	}
	if d := Dirs(ctx, t.TempDir()); d != nil {
		t.Errorf("outside git: Dirs = %v", d)
	}
	empty := t.TempDir()
	run(t, empty, "init", "-q")
	if got := Head(ctx, empty); got != "" {
		t.Errorf("unborn branch: Head = %q", got)
	}
}

func TestTreeShowAuthors(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	tree, err := ReadTree(ctx, filepath.Join(root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	want := run(t, root, "rev-parse", "HEAD:sub/b.txt")
	if diff := cmp.Diff(map[string]string{"b.txt": want}, tree.Blobs); diff != "" || tree.Revision != run(t, root, "rev-parse", "HEAD") {
		t.Errorf("tree of sub at %s (-want +got):\n%s", tree.Revision, diff)
	}
	b, err := Show(ctx, root, "HEAD", "sub/b.txt")
	if err != nil || string(b) != "one\ntwo\nthree\n" {
		t.Errorf("Show = %q, %v", b, err)
	}
	_, err = Show(ctx, root, "HEAD", "missing.go")
	var ce *CommandError
	if !errors.As(err, &ce) || !ce.Exited() || !strings.Contains(err.Error(), "missing.go") {
		t.Errorf("Show of a missing file: %v, want a CommandError with git's message", err)
	}
	if _, err := Show(ctx, root, "--output=/tmp/x", "a.go"); !errors.Is(err, ErrBadRevision) {
		t.Errorf("an option as revision: %v", err)
	}
	if a, err := Authors(ctx, root, "a.go", 50); err != nil || !cmp.Equal(a, []string{"ann"}) {
		t.Errorf("Authors = %v, %v", a, err)
	}
}

// TestDiff runs git diff over a worktree with every kind of change.
func TestDiff(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	long := strings.Repeat("a line that stays the same in the renamed file\n", 20)
	write(t, root, "old/name.go", long)
	write(t, root, "gone.txt", "bye\n")
	write(t, root, "img.bin", "\x00\x01\x02")
	write(t, root, "noeol.txt", "x\ny")
	write(t, root, "with space.txt", "s\n")
	run(t, root, "add", "-A")
	run(t, root, "commit", "-q", "-m", "more")

	if err := os.MkdirAll(filepath.Join(root, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "old", "name.go"), filepath.Join(root, "new", "name.go")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "gone.txt"))
	write(t, root, "img.bin", "\x00\x03")
	write(t, root, "noeol.txt", "x\nz")
	write(t, root, "sub/b.txt", "one\nTWO\nthree\nfour\n")
	write(t, root, "fresh.go", "package a\n\nvar F = 1\n")
	write(t, root, "with space.txt", "t\n")
	write(t, root, "tést.txt", "é\n")
	run(t, root, "add", "-A") // renames are detected between index and HEAD

	got, err := Diff(ctx, root, DiffOptions{Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []FileDiff{
		{Path: "fresh.go", Change: Added, Hunks: []Hunk{{0, 0, 1, 3}}},
		{OldPath: "gone.txt", Path: "", Change: Deleted, Hunks: []Hunk{{1, 1, 0, 0}}},
		{OldPath: "img.bin", Path: "img.bin", Change: Modified, Binary: true},
		{OldPath: "old/name.go", Path: "new/name.go", Change: Renamed},
		{OldPath: "noeol.txt", Path: "noeol.txt", Change: Modified, Hunks: []Hunk{{2, 1, 2, 1}}},
		{OldPath: "sub/b.txt", Path: "sub/b.txt", Change: Modified, Hunks: []Hunk{{2, 1, 2, 1}, {3, 0, 4, 1}}},
		{Path: "tést.txt", Change: Added, Hunks: []Hunk{{0, 0, 1, 1}}},
		{OldPath: "with space.txt", Path: "with space.txt", Change: Modified, Hunks: []Hunk{{1, 1, 1, 1}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("staged diff (-want +got):\n%s", diff)
	}

	// Without rename detection the rename is a deletion and an addition.
	got, err = Diff(ctx, root, DiffOptions{Staged: true, NoRenames: true})
	if err != nil {
		t.Fatal(err)
	}
	var renamed []FileDiff
	for _, f := range got {
		if strings.HasSuffix(f.Path, "name.go") || strings.HasSuffix(f.OldPath, "name.go") {
			f.Hunks = nil
			renamed = append(renamed, f)
		}
	}
	if diff := cmp.Diff([]FileDiff{{Path: "new/name.go", Change: Added}, {OldPath: "old/name.go", Change: Deleted}}, renamed); diff != "" {
		t.Errorf("--no-renames (-want +got):\n%s", diff)
	}

	// The worktree against HEAD (everything is staged) is the same diff;
	// against a revision that does not exist, git's message comes back.
	got, err = Diff(ctx, root, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("worktree diff (-want +got):\n%s", diff)
	}
	_, err = Diff(ctx, root, DiffOptions{Rev: "no-such-rev"})
	var ce *CommandError
	if !errors.As(err, &ce) || !ce.Exited() || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("bad revision: %v", err)
	}
	if _, err := Diff(ctx, root, DiffOptions{Rev: "--output=x"}); !errors.Is(err, ErrBadRevision) {
		t.Errorf("an option as revision: %v", err)
	}
}

// TestParseDiff covers what a real git may write that the repository
// above does not produce: quoted names, context lines, copies.
func TestParseDiff(t *testing.T) {
	in := `diff --git "a/t\303\251st file.go" "b/t\303\251st file.go"
index 1..2 100644
--- "a/t\303\251st file.go"
+++ "b/t\303\251st file.go"
@@ -3 +3,2 @@ func f() {
-old
+new
+more
\ No newline at end of file
diff --git a/x.go b/y.go
similarity index 90%
copy from x.go
copy to y.go
--- a/x.go
+++ b/y.go
@@ -10,0 +11 @@
+added
diff --git a/pic.png b/pic.png
new file mode 100644
index 0000000..1111111
Binary files /dev/null and b/pic.png differ
`
	want := []FileDiff{
		{OldPath: "tést file.go", Path: "tést file.go", Hunks: []Hunk{{3, 1, 3, 2}}},
		{OldPath: "x.go", Path: "y.go", Change: Renamed, Hunks: []Hunk{{10, 0, 11, 1}}},
		{Path: "pic.png", Change: Added, Binary: true},
	}
	if diff := cmp.Diff(want, ParseDiff([]byte(in))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A merged pull request: Log leaves the merge out, and with Merges lists
// only it, with what the branch changed against the first parent.
func TestLogMerges(t *testing.T) {
	root := repo(t)
	run(t, root, "checkout", "-q", "-b", "fix")
	write(t, root, "sub/c.go", "package sub\n")
	run(t, root, "add", "-A")
	run(t, root, "commit", "-q", "-m", "fix the thing")
	write(t, root, "sub/b.txt", "one\n")
	run(t, root, "commit", "-q", "-am", "and its text")
	run(t, root, "checkout", "-q", "main")
	write(t, root, "a.go", "package a\n\nfunc A() { B() }\n")
	run(t, root, "commit", "-q", "-am", "meanwhile on main")
	run(t, root, "merge", "-q", "--no-ff", "-m", "Merge pull request #42 from ann/fix\n\nFix the thing", "fix")
	ctx := context.Background()
	subjects := func(cs []Commit) (out []string) {
		for _, c := range cs {
			s, _, _ := strings.Cut(c.Message, "\n")
			out = append(out, s+" "+strings.Join(c.Files, ","))
		}
		return out
	}
	all, err := Log(ctx, root, "HEAD", LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := subjects(all)
	slices.Sort(got) // commits of one second: git's order is the walk's
	if diff := cmp.Diff([]string{"and its text sub/b.txt", "first a.go,sub/b.txt", "fix the thing sub/c.go", "meanwhile on main a.go"}, got); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	merges, err := Log(ctx, root, "HEAD", LogOptions{Merges: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Merge pull request #42 from ann/fix sub/b.txt,sub/c.go"}, subjects(merges)); diff != "" {
		t.Errorf("merges (-want +got):\n%s", diff)
	}
}

func TestRemotes(t *testing.T) {
	for u, want := range map[string]string{
		"https://github.com/grpc/grpc-go.git":        "grpc/grpc-go",
		"https://github.com/Grpc/grpc-go":            "grpc/grpc-go",
		"git@github.com:grpc/grpc-go.git":            "grpc/grpc-go",
		"ssh://git@gitlab.com/group/sub/project.git": "group/sub/project",
		"/work/.mirror/grpc+grpc-go/repo":            "",
		"../other":                                   "",
		"file:///srv/git/x.git":                      "",
		"https://example.com/x":                      "",
	} {
		if got := remoteName(u); got != want {
			t.Errorf("%s: %q, want %q", u, got, want)
		}
	}
	root := repo(t)
	if got := Remotes(context.Background(), root); got != nil {
		t.Errorf("no remote: %q", got)
	}
	run(t, root, "remote", "add", "origin", "git@github.com:alice/Widgets.git")
	run(t, root, "remote", "add", "upstream", "https://github.com/acme/widgets")
	run(t, root, "remote", "add", "mirror", "/srv/mirror/widgets")
	if got := Remotes(context.Background(), root); !slices.Equal(got, []string{"acme/widgets", "alice/widgets"}) && !slices.Equal(got, []string{"alice/widgets", "acme/widgets"}) {
		t.Errorf("remotes: %q", got)
	}
}

// AddedLines: what a commit added to the files asked about, paths and all
// relative to a root below the repository's top; a merge's against its
// first parent; nothing for the root commit.
func TestAddedLines(t *testing.T) {
	top := repo(t)
	ctx := context.Background()
	first := run(t, top, "rev-parse", "HEAD")
	if got, err := AddedLines(ctx, top, first, []string{"a.go"}); err != nil || got != nil {
		t.Fatalf("the root commit: %v, %v", got, err)
	}
	run(t, top, "checkout", "-q", "-b", "fix")
	write(t, top, "sub/b.txt", "one\ntwo and a half\nthree\nfour\n")
	write(t, top, "a.go", "package a\n\nfunc A() { return }\n")
	run(t, top, "commit", "-q", "-am", "fix")
	fix := run(t, top, "rev-parse", "HEAD")
	run(t, top, "checkout", "-q", "main")
	write(t, top, "sub/c.txt", "main's\n")
	run(t, top, "add", "-A")
	run(t, top, "commit", "-q", "-m", "main")
	run(t, top, "merge", "-q", "--no-ff", "-m", "Merge pull request #9", "fix")
	merge := run(t, top, "rev-parse", "HEAD")
	sub := filepath.Join(top, "sub")
	for _, c := range []struct {
		commit string
		want   map[string][]string
	}{
		{fix, map[string][]string{"b.txt": {"two and a half", "four"}}},
		{merge, map[string][]string{"b.txt": {"two and a half", "four"}}},
	} {
		got, err := AddedLines(ctx, sub, c.commit, []string{"b.txt", "c.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.commit[:8], diff)
		}
	}
	if _, err := AddedLines(ctx, top, "--output=x", nil); !errors.Is(err, ErrBadRevision) {
		t.Errorf("an option for a commit: %v", err)
	}
}
