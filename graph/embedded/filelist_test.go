package embedded

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestFileListIndex: listing the files reads the covering index alone,
// not the table's pages of facts (a column added to fileCols but not to
// the index would make SQLite read every row again); an incremental run
// over a generation written before the index existed adds it.
func TestFileListIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	commit(t, dir, map[string][]string{"a.go": {"A"}, "b.go": {"B"}})
	plan := func() string {
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rows, err := s.view.q.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT `+fileCols+` FROM files ORDER BY path`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if fs, err := s.Files(ctx); err != nil || len(fs) != 2 {
			t.Fatalf("files %+v, %v", fs, err)
		}
		return strings.Join(out, "; ")
	}
	if p := plan(); !strings.Contains(p, "COVERING INDEX files_list") {
		t.Fatalf("the file listing's plan is %q, want the covering index files_list", p)
	}

	// a generation without the index, as an older binary wrote it
	cur, err := readCurrent(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDB(filepath.Join(dir, cur.Epoch, dbFile), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP INDEX files_list`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if p := plan(); strings.Contains(p, "files_list") {
		t.Fatalf("index still used after dropping it: %q", p)
	}
	commit(t, dir, map[string][]string{"a.go": {"A", "A2"}})
	if p := plan(); !strings.Contains(p, "COVERING INDEX files_list") {
		t.Fatalf("after an incremental run the plan is %q, want the covering index files_list", p)
	}
}

// TestPathCategories: the paths-and-categories listing says what the
// file rows say.
func TestPathCategories(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	commit(t, dir, map[string][]string{"a.go": {"A"}, "b_test.go": {"B"}})
	db, err := openDB(filepath.Join(dir, mustCurrent(t, dir), dbFile), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE files SET category = 1 WHERE path = 'b_test.go'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cats, err := s.PathCategories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cats) != len(files) || cats["b_test.go"] != graph.FileTest {
		t.Fatalf("categories %v", cats)
	}
	for _, f := range files {
		if c, ok := cats[f.Path]; !ok || c != f.Category {
			t.Errorf("%s: category %v (listed: %v), row %v", f.Path, c, ok, f.Category)
		}
	}
}

func mustCurrent(t *testing.T, dir string) string {
	t.Helper()
	cur, err := readCurrent(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cur.Epoch
}

// TestSkipsOf: the skipped paths of one reason, selected by the store, are
// what Skips lists of that reason, in path order.
func TestSkipsOf(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := NewWriter(ctx, WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Known(ctx); err != nil {
		t.Fatal(err)
	}
	for _, sk := range []graph.Skip{
		{Path: "b/x_string.go", Reason: graph.SkipGenerated, Detail: "generated-code marker"},
		{Path: "a/y.pb.go", Reason: graph.SkipGenerated, Detail: "generated-code marker"},
		{Path: "a/logo.png", Reason: graph.SkipBinary, Detail: "NUL byte"},
	} {
		if err := w.PutSkip(ctx, sk, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx, graph.Meta{Root: "/r"}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.SkipsOf(ctx, graph.SkipGenerated)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, sk := range got {
		paths = append(paths, sk.Path)
	}
	if strings.Join(paths, " ") != "a/y.pb.go b/x_string.go" {
		t.Errorf("generated skips %v, want [a/y.pb.go b/x_string.go]", paths)
	}
	if got, err := s.SkipsOf(ctx, graph.SkipLockfile); err != nil || len(got) != 0 {
		t.Errorf("lockfile skips %v, %v", got, err)
	}
}
