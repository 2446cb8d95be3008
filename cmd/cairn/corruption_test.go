package main

import (
	"database/sql"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the store's database, to find a page in use
)

// TestDamagedIndexIsNamedAndRepaired overwrites and truncates, in turn,
// every file the embedded store wrote (the pointer, the facts database, the
// text segment's files, the vectors, the embedding model and the commit
// history): status must
// name the damaged part, no query may panic or answer without saying what
// to run, `cairn index` (without --full) must repair it — a side index by
// rebuilding just that index from the stored facts — and every answer
// afterwards must be the undamaged index's.
func TestDamagedIndexIsNamedAndRepaired(t *testing.T) {
	// Real code, enough text to train the built-in embedder.
	src, err := filepath.Abs(filepath.Join("..", "..", "graph", "embedded"))
	if err != nil {
		t.Fatal(err)
	}
	repo := copyTree(t, src, func(rel string) bool { return strings.HasSuffix(rel, "_test.go") })
	// a git history, so that the commit history index is among the parts
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "writer.go"}, {"commit", "-q", "-m", "writer: commit a generation atomically"},
		{"add", "-A"}, {"commit", "-q", "-m", "store: readers and the pointer"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	good := filepath.Join(t.TempDir(), "good")
	if out, code := cli("index", "-q", "--repo", repo, "--index-dir", good); code != 0 {
		t.Fatalf("index: %s", out)
	}
	queries := [][]string{
		{"search", "--limit", "5", "commit a generation atomically"},
		{"def", "NewWriter"},
		{"refs", "readCurrent"},
		{"callers", "openDB"},
	}
	answers := func(dir string) []string {
		var out []string
		for _, q := range queries {
			o, code := cliStdout(append(q, "--repo", repo, "--index-dir", dir)...)
			out = append(out, strings.Join(q, " ")+" → "+o+" exit "+string(rune('0'+code)))
		}
		return out
	}
	want := answers(good)
	if !strings.Contains(want[0], "writer.go") || !strings.Contains(want[1], "writer.go") {
		t.Fatalf("the undamaged index answers wrongly:\n%s", strings.Join(want, "\n"))
	}
	var files []string
	filepath.WalkDir(good, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != "LOCK" && !strings.HasPrefix(d.Name(), "index.db-") {
			rel, _ := filepath.Rel(good, p)
			files = append(files, rel)
		}
		return nil
	})
	for _, kind := range []string{"bm25-", ".bin", ".ppmi", "history-", "index.db", "CURRENT"} {
		if !slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, kind) }) {
			t.Fatalf("the index has no %s file (files %v): the test damages nothing there", kind, files)
		}
	}
	for _, rel := range files {
		for _, mode := range []string{"overwrite", "truncate"} {
			t.Run(mode+"/"+rel, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "idx")
				copyDir(t, good, dir)
				damage(t, filepath.Join(dir, rel), mode)

				if rel == "VERIFIED" || rel == "worktree.snap" || rel == ".gitignore" {
					// a note of when the database was last verified, and the
					// freshness check's stat snapshot (checksummed): damaged,
					// they only make the next check read every page, or walk
					// the worktree, again
					if out, _ := cli("status", "--repo", repo, "--index-dir", dir); strings.Contains(out, "damaged") {
						t.Fatalf("a damaged VERIFIED note reported as damage:\n%s", out)
					}
					if got := answers(dir); !slices.Equal(got, want) {
						t.Errorf("answers differ:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					return
				}
				// status names the damaged part, whether or not the
				// index can still be opened
				out, _ := cli("status", "--repo", repo, "--index-dir", dir)
				if !strings.Contains(out, "damaged") || !strings.Contains(out, "cairn index") {
					t.Fatalf("status does not name the damage of %s:\n%s", rel, out)
				}
				if name := partName(rel); !strings.Contains(out, name) {
					t.Errorf("status does not name %q:\n%s", name, out)
				}
				// every query either answers or says what to run (a
				// panic fails the test by itself)
				for _, q := range queries {
					o, code := cli(append(q, "--repo", repo, "--index-dir", dir)...)
					if code != 0 && code != 3 && !strings.Contains(o, "cairn index") {
						t.Errorf("%v on a damaged %s: exit %d without saying what to run:\n%s", q, rel, code, o)
					}
				}
				// index repairs it, without --full
				o, code := cli("index", "--repo", repo, "--index-dir", dir)
				if code != 0 || !strings.Contains(o, "repaired:") {
					t.Fatalf("index did not repair the damaged %s (exit %d):\n%s", rel, code, o)
				}
				// a side index is rebuilt from the stored facts, without
				// parsing; a damaged pointer or database needs a fresh build
				side := strings.Contains(rel, "bm25-") || strings.Contains(rel, "vec-") || strings.Contains(rel, "history-")
				if side && !strings.Contains(o, "(0 parsed,") {
					t.Errorf("repairing the side index %s re-parsed files:\n%s", rel, o)
				}
				if !side && !strings.Contains(o, "full (") {
					t.Errorf("repairing %s was no fresh build:\n%s", rel, o)
				}
				if out, _ := cli("status", "--repo", repo, "--index-dir", dir); strings.Contains(out, "damaged") {
					t.Fatalf("still damaged after index:\n%s", out)
				}
				if got := answers(dir); !slices.Equal(got, want) {
					t.Errorf("answers after the repair differ:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

// partName is how status names the part a file of the index belongs to.
func partName(rel string) string {
	switch base := filepath.Base(rel); {
	case base == "CURRENT":
		return "index pointer"
	case base == "index.db":
		return "facts database"
	case strings.Contains(rel, "bm25-"):
		return "text index segment"
	case strings.HasSuffix(base, ".bin"):
		return "vector segment"
	case strings.HasPrefix(base, "history-"):
		return "commit history"
	}
	return "embedding model"
}

// dbName is the embedded store's database file.
const dbName = "index.db"

// damage overwrites a kilobyte in the middle of the file (the whole of a
// small one; for the database, a page in use) or truncates it to half its
// size.
func damage(t *testing.T, p, mode string) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	n := info.Size()
	if mode == "truncate" {
		if err := os.Truncate(p, n/2); err != nil {
			t.Fatal(err)
		}
		return
	}
	off, size := n/2, int64(1024)
	if n < 4096 {
		off, size = 0, n
	}
	if filepath.Base(p) == dbName {
		// a page in use (bytes in a page's free space or on the free
		// list are no damage): the symbols table's root page
		db, err := sql.Open("sqlite3", "file:"+p+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		var root, pageSize int64
		err = db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'symbols'`).Scan(&root)
		if err == nil {
			err = db.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
		}
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		off, size = (root-1)*pageSize, pageSize
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size = min(size, n-off)
	junk := make([]byte, size)
	for i := range junk {
		junk[i] = byte(0xde + i*7)
	}
	if _, err := f.WriteAt(junk, off); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
