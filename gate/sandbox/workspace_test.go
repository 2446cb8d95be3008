package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWorkspaceGit: edits made inside the sandbox are seen by Changed and
// Diff (untracked files included, the workspace's index untouched), kept
// by Snapshot, undone by Revert; Remove leaves no worktree behind.
func TestWorkspaceGit(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, reachableDir(t, ""), Options{})
	res := f.sh(t, "echo 'package m // edited' > m.go && rm doc/readme.txt && mkdir -p internal && echo new > internal/new.txt", Limits{})
	if !res.OK() {
		t.Fatalf("edit: %s", res.Stderr)
	}
	changed, err := f.ws.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"D", "doc/readme.txt"}, {"A", "internal/new.txt"}, {"M", "m.go"}}
	if diff := cmp.Diff(want, changed); diff != "" {
		t.Errorf("Changed (-want +got)\n%s", diff)
	}
	d, err := f.ws.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"+package m // edited", "+++ b/internal/new.txt", "deleted file mode"} {
		if !strings.Contains(string(d), s) {
			t.Errorf("diff lacks %q:\n%s", s, d)
		}
	}
	if st := strings.TrimSpace(gitOut(t, f.ws.Dir, "status", "--porcelain")); !strings.Contains(st, "?? internal/") {
		t.Errorf("looking changed the workspace's index: %q", st)
	}

	c1, err := f.ws.Snapshot(ctx, "step 1")
	if err != nil {
		t.Fatal(err)
	}
	if c1 == f.base {
		t.Fatal("snapshot made no commit")
	}
	if c2, err := f.ws.Snapshot(ctx, "step 2"); err != nil || c2 != c1 {
		t.Errorf("snapshot with nothing new: %s %v, want %s", c2, err, c1)
	}
	if files := gitOut(t, f.ws.Dir, "show", "--name-only", "--format=", c1); !strings.Contains(files, "internal/new.txt") {
		t.Errorf("snapshot lacks the new file: %s", files)
	}

	if res := f.sh(t, "mkdir -p fresh && echo never-snapshotted > fresh/f.txt", Limits{}); !res.OK() {
		t.Fatal(string(res.Stderr))
	}
	for _, p := range []string{"m.go", "internal", "doc/readme.txt", "fresh"} {
		if err := f.ws.Revert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if changed, err := f.ws.Changed(ctx); err != nil || len(changed) != 0 {
		t.Errorf("after reverting every change: %v %v", changed, err)
	}
	// The sandbox's user can write the restored file again.
	if res := f.sh(t, "echo more >> m.go", Limits{}); !res.OK() {
		t.Errorf("restored file not writable inside: %s", res.Stderr)
	}
	for _, bad := range []string{"../x", "/etc/passwd", ".git", ".git/config", ""} {
		if err := f.ws.Revert(ctx, bad); err == nil {
			t.Errorf("Revert(%q) accepted", bad)
		}
	}

	// A resumed run reattaches the same worktree; a directory that is not
	// one is refused.
	again, err := Open(ctx, f.repo, f.base, f.ws.RunDir, f.ex.Owner())
	if err != nil || again.Dir != f.ws.Dir || again.Base != f.base {
		t.Errorf("Open: %+v %v", again, err)
	}
	if _, err := Open(ctx, f.repo, f.base, t.TempDir(), nil); err == nil {
		t.Error("Open of a run without a worktree succeeded")
	}

	if err := f.ws.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.ws.Dir); !os.IsNotExist(err) {
		t.Errorf("workspace still there: %v", err)
	}
	if wl := gitOut(t, f.repo, "worktree", "list"); strings.Contains(wl, f.ws.Dir) {
		t.Errorf("worktree still registered:\n%s", wl)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(context.Background(), dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoTestInside: dependencies prepared outside, a module's tests run
// inside with GOPROXY=off, the module cache read-only and a per-run build
// cache.
func TestGoTestInside(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the standard library's test dependencies")
	}
	ctx := context.Background()
	goroot, modcache, err := GoToolchain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, reachableDir(t, ""), Options{GoRoot: goroot, GoModCache: modcache})
	if err := PrepareGo(ctx, f.ws); err != nil {
		t.Fatal(err)
	}
	res, err := f.ex.Run(ctx, f.ws, Command{Argv: []string{"go", "test", "-count=1", "./..."}, Limit: Limits{Wall: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || !strings.Contains(string(res.Stdout), "ok  \texample.com/m") {
		t.Errorf("go test inside: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(f.ws.RunDir, "cache", "go-build")); err != nil {
		t.Errorf("no per-run build cache: %v", err)
	}
	res = f.sh(t, "touch "+modcache+"/cairn-probe", Limits{})
	if res.OK() {
		os.Remove(filepath.Join(modcache, "cairn-probe"))
		t.Error("the module cache is writable inside")
	}
}

// A go.mod without a go directive gets the version the go command assumes
// for it (1.16), so no later go command records its own there; one with a
// directive is left alone.
func TestPinGoVersion(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "go.mod")
	os.WriteFile(p, []byte("module google.golang.org/grpc\n\nrequire golang.org/x/net v0.0.0-20190311183353-d8887717615a\n"), 0o644)
	if err := pinGoVersion(p); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if want := "module google.golang.org/grpc\n\ngo 1.16\n\nrequire golang.org/x/net v0.0.0-20190311183353-d8887717615a\n"; string(got) != want {
		t.Errorf("pinned go.mod:\n%s\nwant:\n%s", got, want)
	}
	os.WriteFile(p, []byte("module m\n\ngo 1.22\n"), 0o644)
	pinGoVersion(p)
	if got, _ := os.ReadFile(p); string(got) != "module m\n\ngo 1.22\n" {
		t.Errorf("a go.mod with a directive was changed:\n%s", got)
	}
	os.WriteFile(p, []byte("// no module line\n"), 0o644)
	if err := pinGoVersion(p); err == nil {
		t.Error("a go.mod without a module directive was accepted")
	}
}
