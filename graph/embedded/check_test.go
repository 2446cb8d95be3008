package embedded

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// commitSide commits one generation whose side index writes file rel (a
// stand-in for a text or vector segment) with body, unless body is nil.
func commitSide(t *testing.T, dir string, o WriterOptions, rel string, body []byte) *Writer {
	t.Helper()
	ctx := context.Background()
	o.Dir = dir
	w, err := NewWriter(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Known(ctx); err != nil {
		t.Fatal(err)
	}
	if body != nil {
		p := filepath.Join(w.Dir(), rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx, graph.Meta{Root: "/r"}); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestCheckManifest: a side file damaged after its commit is found by
// Check, also after an incremental commit that did not verify (a
// watcher's) kept it; a verifying writer rebuilds instead of extending.
func TestCheckManifest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	commitSide(t, dir, WriterOptions{}, "bm25-000001/store/seg.zap", []byte(strings.Repeat("postings ", 100)))
	if dmg, err := Check(ctx, dir); err != nil || len(dmg) != 0 {
		t.Fatalf("a sound index: damage %v, error %v", dmg, err)
	}
	s, _ := Open(dir)
	epoch := s.EpochDir()
	s.Close()
	seg := filepath.Join(epoch, "bm25-000001/store/seg.zap")
	f, _ := os.OpenFile(seg, os.O_RDWR, 0)
	f.WriteAt([]byte("XXXX"), 10)
	f.Close()
	for round, what := range []string{"after the damage", "after an incremental commit that did not verify"} {
		if round == 1 {
			commitSide(t, dir, WriterOptions{}, "vec-000002.bin", []byte("vectors"))
		}
		dmg, err := Check(ctx, dir)
		if err != nil || len(dmg) != 1 || dmg[0].Part != "text index segment bm25-000001" || !strings.Contains(dmg[0].Problem, "checksum") {
			t.Fatalf("%s: damage %v, error %v", what, dmg, err)
		}
	}
	w := commitSide(t, dir, WriterOptions{Verify: true}, "bm25-000001/store/seg.zap", []byte("rebuilt"))
	if fresh, why := w.Fresh(); !fresh || !strings.Contains(why, "text index segment bm25-000001") || len(w.Repaired()) != 1 {
		t.Fatalf("a verifying writer extended a damaged index: fresh %v (%s), repaired %v", fresh, why, w.Repaired())
	}
	if dmg, err := Check(ctx, dir); err != nil || len(dmg) != 0 {
		t.Fatalf("after the repair: damage %v, error %v", dmg, err)
	}
	// a truncated database
	s, _ = Open(dir)
	db := filepath.Join(s.EpochDir(), dbFile)
	s.Close()
	info, _ := os.Stat(db)
	os.Truncate(db, info.Size()/2)
	if dmg, err := Check(ctx, dir); err != nil || len(dmg) != 1 || dmg[0].Part != "facts database" {
		t.Fatalf("a truncated database: damage %v, error %v", dmg, err)
	}
}
