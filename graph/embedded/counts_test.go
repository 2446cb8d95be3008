package embedded

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestStoredCounts: Commit stores the generation's counts, and Meta's
// answer from them equals a recount of the rows, after a fresh commit and
// after an incremental one.
func TestStoredCounts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for i, files := range []map[string][]string{
		{"a.go": {"A"}, "b.go": {"B", "B2"}},
		{"a.go": {"A", "A2", "A3"}, "c.go": {"C"}},
	} {
		commit(t, dir, files)
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		q := s.view.q
		_, stored, err := readMetaRows(ctx, q)
		if err != nil || stored == "" {
			t.Fatalf("commit %d: stored counts %q, %v", i+1, stored, err)
		}
		m, err := s.Meta(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, err := countRows(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if m.Files != c.Files || m.Symbols != c.Symbols || m.Chunks != c.Chunks || len(m.Languages) != len(c.Langs) || len(m.Status) != len(c.Status) {
			t.Errorf("commit %d: meta %d files, %d symbols, %d chunks, %v, %v; recount %+v", i+1, m.Files, m.Symbols, m.Chunks, m.Languages, m.Status, c)
		}
		if _, ok := m.Extra[countsKey]; ok {
			t.Errorf("commit %d: the counts leak into Meta.Extra", i+1)
		}
		if got, want := m.Symbols, []int{3, 6}[i]; got != want {
			t.Errorf("commit %d: %d symbols, want %d", i+1, got, want)
		}
		for k, n := range c.Langs {
			if m.Languages[graph.Language(k)] != n {
				t.Errorf("commit %d: language %d: %d files, recount %d", i+1, k, m.Languages[graph.Language(k)], n)
			}
		}
		s.Close()
	}
}

// TestStaleCounts: counts stored for another generation (a binary that
// does not store them committed since, leaving the row) are recounted.
func TestStaleCounts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	commit(t, dir, map[string][]string{"a.go": {"A"}})
	cur, err := readCurrent(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDB(filepath.Join(dir, cur.Epoch, dbFile), false)
	if err != nil {
		t.Fatal(err)
	}
	// what an older binary's incremental commit does: a new generation,
	// the symbol gone, the counts row untouched
	for _, q := range []string{`UPDATE meta SET value = '2' WHERE key = 'generation'`, `DELETE FROM symbols`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := s.Meta(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Generation != 2 || m.Symbols != 0 {
		t.Errorf("generation %d, %d symbols; want generation 2 and the symbol deleted by it (stale counts used)", m.Generation, m.Symbols)
	}
}
