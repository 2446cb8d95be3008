package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/walk"
)

// TestCachedChangesMatchScan: the freshness check answered from the stat
// snapshot reports exactly what the full scan (Changes) reports, after
// edits, additions, deletions, renames, mode changes, files in ignored
// directories, ignore-file edits and size-limit crossings; content-only
// changes are answered without a scan.
func TestCachedChangesMatchScan(t *testing.T) {
	// A change counts as racy within 25ms of a full scan; the steps sleep
	// longer than that around every change, so that the answers from the
	// snapshot are not all re-decisions (TestCachedChangesRacy covers those).
	defer indexer.SetRacySlack(25 * time.Millisecond)()
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore":       "ignored/\n*.log\ngen.go\n",
		"a.go":             "package a\n\nfunc A() {}\n",
		"b/c.go":           "package b\n\nfunc C() {}\n",
		"b/d.py":           "def d():\n    pass\n",
		"b/bin.go":         "package b\x00\x00\n",
		"gen.go":           "package a\n\nfunc Gen() {}\n",
		"ignored/x.go":     "package x\n",
		"keep.log":         "log\n",
		"big/huge.go":      "package big\n\n// " + strings.Repeat("x", 300) + "\n",
		"deep/er/f/g/h.go": "package h\n",
		".git/info/x":      "",
	})
	const maxSize = 200
	index(t, root, dir, indexer.Options{MaxFileSize: maxSize})
	s := open(t, dir)
	ctx := context.Background()
	m, err := s.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	opts := walk.Options{Root: root, MaxFileSize: maxSize}
	snap := filepath.Join(dir, indexer.SnapshotFile)
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	pause := func() { time.Sleep(60 * time.Millisecond) }

	// step checks the snapshot's answer against the full scan's: fast
	// says whether the first check may answer from the snapshot; a second
	// check always does.
	step := func(name string, fast bool, want []string) {
		t.Helper()
		pause()
		paths, n, complete, err := indexer.Changes(ctx, s, opts, 100)
		if err != nil || !complete {
			t.Fatalf("%s: full scan: %v, complete %v", name, err, complete)
		}
		if !slices.Equal(paths, want) || n != len(want) {
			t.Fatalf("%s: full scan = %q (%d), want %q", name, paths, n, want)
		}
		for i, wantFast := range []bool{fast, true} {
			cs, err := indexer.CachedChanges(ctx, s, m, opts, 100, snap)
			if err != nil {
				t.Fatalf("%s: check %d: %v", name, i+1, err)
			}
			if !slices.Equal(cs.Paths, paths) || cs.N != n || !cs.Complete {
				t.Errorf("%s: check %d (fast %v) = %q (%d, complete %v), full scan %q", name, i+1, cs.Fast, cs.Paths, cs.N, cs.Complete, paths)
			}
			if cs.Fast != wantFast {
				t.Errorf("%s: check %d answered from the snapshot: %v, want %v", name, i+1, cs.Fast, wantFast)
			}
		}
		pause()
	}

	step("nothing changed, no snapshot yet", false, nil)
	os.WriteFile(abs("a.go"), []byte("package a\n\nfunc Z() {}\n"), 0o644)
	step("same size edit", true, []string{"a.go"})
	os.WriteFile(abs("tmp.go"), []byte("package a\n"), 0o644)
	step("added: a new snapshot", false, []string{"a.go", "tmp.go"})
	// the indexed content back, with the size and modification time the
	// snapshot holds: only the change time tells the snapshot that its
	// verdict is out of date
	st, _ := os.Stat(abs("a.go"))
	os.WriteFile(abs("a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	os.Chtimes(abs("a.go"), st.ModTime(), st.ModTime())
	step("edited back, snapshot's mtime", true, []string{"tmp.go"})
	os.Remove(abs("tmp.go"))
	step("removed", false, nil)
	os.WriteFile(abs("a.go"), []byte("package a\n\nfunc A2() {}\n"), 0o644)
	step("edit", true, []string{"a.go"})
	// same size and modification time as indexed: neither check reads it
	st, _ = os.Stat(abs("b/c.go"))
	os.WriteFile(abs("b/c.go"), []byte("package b\n\nfunc X() {}\n"), 0o644)
	os.Chtimes(abs("b/c.go"), st.ModTime(), st.ModTime())
	step("same size, same mtime", true, []string{"a.go"})
	// same size, new mtime: the content decides
	os.WriteFile(abs("b/c.go"), []byte("package b\n\nfunc Y() {}\n"), 0o644)
	step("same size edit", true, []string{"a.go", "b/c.go"})
	os.WriteFile(abs("b/c.go"), []byte("package b\n\nfunc C() {}\n"), 0o644)
	step("edited back", true, []string{"a.go"})
	os.Chmod(abs("b/d.py"), 0o755)
	step("mode change", true, []string{"a.go"})
	os.WriteFile(abs("b/bin.go"), []byte("package b\x00\x00\x00\n"), 0o644)
	step("a file skipped for its content edited", true, []string{"a.go"})
	os.WriteFile(abs("ignored/y.go"), []byte("package y\n"), 0o644)
	step("added in an ignored directory", true, []string{"a.go"})
	os.WriteFile(abs("new.log"), []byte("log\n"), 0o644)
	step("added, ignored", false, []string{"a.go"})
	os.WriteFile(abs("deep/er/f/g/new.go"), []byte("package h\n"), 0o644)
	step("added deep", false, []string{"a.go", "deep/er/f/g/new.go"})
	os.Remove(abs("a.go"))
	step("deleted", false, []string{"deep/er/f/g/new.go", "a.go"})
	os.Rename(abs("b/d.py"), abs("b/e.py"))
	step("renamed", false, []string{"b/e.py", "deep/er/f/g/new.go", "a.go", "b/d.py"})
	os.Rename(abs("deep/er"), abs("deep/ER"))
	step("directory renamed", false, []string{"b/e.py", "deep/ER/f/g/h.go", "deep/ER/f/g/new.go", "a.go", "b/d.py", "deep/er/f/g/h.go"})
	os.WriteFile(abs(".gitignore"), []byte("ignored/\n*.log\ngen.go\nb/c.go\n"), 0o644)
	del := []string{"a.go", "b/c.go", "b/d.py", "deep/er/f/g/h.go"}
	step("ignore file edited", false, append([]string{"b/e.py", "deep/ER/f/g/h.go", "deep/ER/f/g/new.go"}, del...))
	os.WriteFile(abs("big/huge.go"), []byte("package big\n"), 0o644)
	// (the index skipped it for its size: the full scan does not report a
	// path the index skipped, whatever the reason)
	step("shrunk below the size limit", false, append([]string{"b/e.py", "deep/ER/f/g/h.go", "deep/ER/f/g/new.go"}, del...))
	os.WriteFile(abs("big/huge.go"), []byte("package big\n\n// "+strings.Repeat("y", 300)+"\n"), 0o644)
	step("grown over it", false, append([]string{"b/e.py", "deep/ER/f/g/h.go", "deep/ER/f/g/new.go"}, del...))
	os.Remove(abs("b/e.py"))
	os.Symlink("c.go", abs("b/e.py"))
	step("a file replaced by a link", false, append([]string{"deep/ER/f/g/h.go", "deep/ER/f/g/new.go"}, del...))
	os.WriteFile(abs(".git/info/exclude"), []byte("deep/ER/f/g/new.go\n"), 0o644)
	step(".git/info/exclude added", false, append([]string{"deep/ER/f/g/h.go"}, del...))
	os.WriteFile(abs(".git/info/exclude"), []byte("deep/ER/f/g/new.go\ndeep/ER/f/g/h.go\n"), 0o644)
	step(".git/info/exclude edited", false, del)
}

// TestCachedChangesRacy: an edit right after the snapshot was taken, of
// the same size, is reported — the snapshot treats what changed near its
// own time as undecided.
func TestCachedChangesRacy(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package a\n\nfunc B() {}\n"})
	ageFiles(t, root)
	index(t, root, dir, indexer.Options{})
	s := open(t, dir)
	ctx := context.Background()
	m, _ := s.Meta(ctx)
	opts := walk.Options{Root: root}
	snap := filepath.Join(dir, indexer.SnapshotFile)
	if _, err := indexer.CachedChanges(ctx, s, m, opts, 10, snap); err != nil {
		t.Fatal(err)
	}
	for i, c := range []string{"package a\n\nfunc X() {}\n", "package a\n\nfunc Y() {}\n", "package a\n\nfunc A() {}\n"} {
		os.WriteFile(filepath.Join(root, "a.go"), []byte(c), 0o644)
		want, _, _, _ := indexer.Changes(ctx, s, opts, 10)
		cs, err := indexer.CachedChanges(ctx, s, m, opts, 10, snap)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cs.Paths, want) {
			t.Errorf("edit %d: snapshot says %q, full scan %q", i+1, cs.Paths, want)
		}
		if i < 2 && !slices.Equal(want, []string{"a.go"}) {
			t.Errorf("edit %d: full scan %q, want [a.go]", i+1, want)
		}
	}
}

// BenchmarkFreshnessCheck times the full scan against the snapshot's
// answer on a real index: CAIRN_FRESH_INDEX (an index directory) and
// CAIRN_FRESH_ROOT (its worktree), e.g. bench/index/run.sh's mono1m:
//
//	CAIRN_FRESH_INDEX=~/cairn-bench/mono1m.idx CAIRN_FRESH_ROOT=~/cairn-bench/mono1m \
//	  go test ./indexer -run '^$' -bench FreshnessCheck
func BenchmarkFreshnessCheck(b *testing.B) {
	dir, root := os.Getenv("CAIRN_FRESH_INDEX"), os.Getenv("CAIRN_FRESH_ROOT")
	if dir == "" || root == "" {
		b.Skip("CAIRN_FRESH_INDEX and CAIRN_FRESH_ROOT name an index and its worktree")
	}
	s := open(b, dir)
	ctx := context.Background()
	m, err := s.Meta(ctx)
	if err != nil {
		b.Fatal(err)
	}
	opts := walk.Options{Root: root}
	snap := filepath.Join(b.TempDir(), indexer.SnapshotFile)
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, err := indexer.Changes(ctx, s, opts, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		if _, err := indexer.CachedChanges(ctx, s, m, opts, 10, snap); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			cs, err := indexer.CachedChanges(ctx, s, m, opts, 10, snap)
			if err != nil || !cs.Fast {
				b.Fatalf("not answered from the snapshot: %v", err)
			}
		}
	})
}

// TestDamagedSnapshotIsRefused: a snapshot with any byte flipped is not
// read — the check falls back to the full scan (cs.Fast false) and answers
// as it does; without the file's checksum a flipped byte inside a path or
// a stat parsed and was believed.
func TestDamagedSnapshotIsRefused(t *testing.T) {
	defer indexer.SetRacySlack(25 * time.Millisecond)()
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b/b.go": "package b\n\nfunc B() {}\n"})
	ageFiles(t, root)
	index(t, root, dir, indexer.Options{})
	s := open(t, dir)
	ctx := context.Background()
	m, _ := s.Meta(ctx)
	opts := walk.Options{Root: root}
	snap := filepath.Join(dir, indexer.SnapshotFile)
	time.Sleep(60 * time.Millisecond) // nothing is racy from here on
	if _, err := indexer.CachedChanges(ctx, s, m, opts, 10, snap); err != nil {
		t.Fatal(err)
	}
	if cs, _ := indexer.CachedChanges(ctx, s, m, opts, 10, snap); !cs.Fast {
		t.Fatal("an undamaged snapshot is not used")
	}
	good, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _, _ := indexer.Changes(ctx, s, opts, 10)
	believed := 0
	for off := len("cairn worktree snapshot 2\n"); off < len(good); off++ {
		bad := slices.Clone(good)
		bad[off] ^= 0x20
		os.WriteFile(snap, bad, 0o644)
		cs, err := indexer.CachedChanges(ctx, s, m, opts, 10, snap)
		if err != nil {
			t.Fatalf("byte %d flipped: %v", off, err)
		}
		if cs.Fast {
			believed++
		}
		if !slices.Equal(cs.Paths, want) {
			t.Errorf("byte %d flipped: %q, full scan %q", off, cs.Paths, want)
		}
	}
	if believed > 0 {
		t.Errorf("%d of %d damaged snapshots were believed", believed, len(good)-len("cairn worktree snapshot 2\n"))
	}
}
