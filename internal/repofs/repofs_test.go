package repofs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// repo makes /tmp/…/x/repo with a file and a sibling /tmp/…/x/repo-secrets
// (sharing the root's prefix) holding a secret.
func repo(t *testing.T) (root, sibling string) {
	t.Helper()
	base := t.TempDir()
	root, sibling = filepath.Join(base, "repo"), filepath.Join(base, "repo-secrets")
	for p, c := range map[string]string{
		filepath.Join(root, "src", "a.go"):     "package a\n",
		filepath.Join(root, ".git", "config"):  "[remote]\n\turl = https://u:pw@example.com\n",
		filepath.Join(sibling, "secret.txt"):   "TOP SECRET\n",
		filepath.Join(root, "docs", "read.md"): "# read\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, sibling
}

func reason(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return 0
}

func TestReadFileBoundary(t *testing.T) {
	root, sibling := repo(t)
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(sibling, "secret.txt"), "abs-sibling") // absolute link to the sibling
	link("../repo-secrets/secret.txt", "rel-sibling")         // relative link to the sibling
	link("../repo-secrets", "sibdir")                         // a directory link out
	link("src/a.go", "inside")                                // a link within the root
	link(".git/config", "gitconfig")                          // a link within the root into .git
	link("missing.go", "dangling")                            // a dangling link
	link("/etc/passwd", "passwd")                             // the attack
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := New(root)
	for _, c := range []struct {
		path string
		want Reason // 0: readable
		body string
	}{
		{"src/a.go", 0, "package a\n"},
		{"./src/../src/a.go", 0, "package a\n"},
		{`src\a.go`, 0, "package a\n"},
		{"inside", 0, "package a\n"},
		{"", Invalid, ""},
		{"src/a\x00.go", Invalid, ""},
		{"/etc/passwd", Absolute, ""},
		{filepath.Join(root, "src", "a.go"), Absolute, ""},
		{"..", Climbs, ""},
		{"../repo-secrets/secret.txt", Climbs, ""},
		{`..\repo-secrets\secret.txt`, Climbs, ""},
		{"src/../../repo-secrets/secret.txt", Climbs, ""},
		{".git/config", InGit, ""},
		{".git", InGit, ""},
		{"src/../.git/config", InGit, ""},
		{"gitconfig", InGit, ""},
		{"abs-sibling", Escapes, ""},
		{"rel-sibling", Escapes, ""},
		{"sibdir/secret.txt", Escapes, ""},
		{"passwd", Escapes, ""},
		{"dangling", NotExist, ""},
		{"dangling-out", NotExist, ""}, // nothing there to leak
		{"missing.go", NotExist, ""},
		{"src", NotRegular, ""},
		{"fifo", NotRegular, ""},
	} {
		b, err := f.ReadFile(c.path)
		if got := reason(err); got != c.want || (c.want == 0 && err != nil) {
			t.Errorf("ReadFile(%q): reason %v, err %v; want reason %v", c.path, got, err, c.want)
			continue
		}
		if c.want == 0 && string(b) != c.body {
			t.Errorf("ReadFile(%q) = %q, want %q", c.path, b, c.body)
		}
		if c.want != 0 && b != nil {
			t.Errorf("ReadFile(%q) returned content %q with its error", c.path, b)
		}
		if err != nil && strings.Contains(err.Error(), "TOP SECRET") {
			t.Errorf("ReadFile(%q): the error quotes the file: %v", c.path, err)
		}
	}
	if _, err := f.Stat("src"); err != nil {
		t.Errorf("Stat(src): %v", err)
	}
	if _, err := f.Stat("sibdir"); reason(err) != Escapes {
		t.Errorf("Stat(sibdir): %v, want escapes", err)
	}
}

// TestSiblingRoot: the reader of /x/repo-secrets is not fooled by files of
// /x/repo, nor the reader of /x/repo by a root given through a symlink.
func TestSiblingRoot(t *testing.T) {
	root, sibling := repo(t)
	viaLink := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, viaLink); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src", "a.go"), filepath.Join(sibling, "to-repo")); err != nil {
		t.Fatal(err)
	}
	if _, err := New(viaLink).ReadFile("src/a.go"); err != nil {
		t.Errorf("a root given through a symlink: %v", err)
	}
	if _, err := New(sibling).ReadFile("to-repo"); reason(err) != Escapes {
		t.Errorf("repo-secrets reading a link into repo: %v, want escapes", err)
	}
	if !within("/x/repo", "/x/repo/a") || within("/x/repo", "/x/repo-secrets/a") || within("/x/repo", "/x") {
		t.Error("within compares by prefix, not by component")
	}
}

// TestSwappedAfterCheck swaps the file (then a directory on its way) for a
// symlink out of the root after the path was checked and before it is
// opened: what is opened is checked, so the read is refused.
func TestSwappedAfterCheck(t *testing.T) {
	root, sibling := repo(t)
	f := New(root)
	defer func() { afterCheck = nil }()
	afterCheck = func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(sibling, "secret.txt"), p); err != nil {
			t.Fatal(err)
		}
	}
	b, err := f.ReadFile("src/a.go")
	if reason(err) != Escapes || b != nil {
		t.Fatalf("file swapped for a link out: %q, %v; want an escapes error", b, err)
	}
	afterCheck = func(rel string) {
		dir := filepath.Join(root, "docs")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sibling, "read.md"), []byte("TOP SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(sibling, dir); err != nil {
			t.Fatal(err)
		}
	}
	b, err = f.ReadFile("docs/read.md")
	if reason(err) != Escapes || b != nil {
		t.Fatalf("directory swapped for a link out: %q, %v; want an escapes error", b, err)
	}
}

func TestErrorBounded(t *testing.T) {
	long := strings.Repeat("a", 5<<20)
	_, err := New(t.TempDir()).ReadFile("../" + long)
	if err == nil || len(err.Error()) > 400 {
		t.Fatalf("error of %d bytes for a 5 MB path", len(err.Error()))
	}
}
