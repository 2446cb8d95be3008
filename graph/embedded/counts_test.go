package embedded

import (
	"context"
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
