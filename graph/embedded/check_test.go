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
	// the fresh build recorded its database as verified: checks skip
	// quick_check until the database changes
	if !isVerified(dir, filepath.Base(epoch)) {
		t.Fatal("a committed fresh epoch is not recorded as verified")
	}
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
	// a verifying writer keeps the facts and names the side index to
	// rebuild; the rebuilt segment (a new name: the old one removed)
	// replaces the damage
	w := commitSide(t, dir, WriterOptions{Verify: true}, "bm25-000002/store/seg.zap", []byte("rebuilt"))
	if fresh, _ := w.Fresh(); fresh || len(w.SideRepair()) != 1 || w.SideRepair()[0].Part != "text index segment bm25-000001" {
		t.Fatalf("a verifying writer: fresh %v, side repair %v", fresh, w.SideRepair())
	}
	os.RemoveAll(filepath.Join(epoch, "bm25-000001"))
	commitSide(t, dir, WriterOptions{}, "", nil)
	if dmg, err := Check(ctx, dir); err != nil || len(dmg) != 0 {
		t.Fatalf("after the side repair: damage %v, error %v", dmg, err)
	}
	// a damaged database makes a verifying writer build afresh
	s, _ = Open(dir)
	db := filepath.Join(s.EpochDir(), dbFile)
	s.Close()
	f, _ = os.OpenFile(db, os.O_RDWR, 0)
	f.WriteAt([]byte("not a database at all"), 0)
	f.Close()
	w = commitSide(t, dir, WriterOptions{Verify: true}, "", nil)
	if fresh, why := w.Fresh(); !fresh || !strings.Contains(why, "facts database") || len(w.Repaired()) != 1 {
		t.Fatalf("a verifying writer over a damaged database: fresh %v (%s), repaired %v", fresh, why, w.Repaired())
	}
	if dmg, err := Check(ctx, dir); err != nil || len(dmg) != 0 {
		t.Fatalf("after the repair: damage %v, error %v", dmg, err)
	}
	// a truncated database
	s, _ = Open(dir)
	db = filepath.Join(s.EpochDir(), dbFile)
	s.Close()
	info, _ := os.Stat(db)
	os.Truncate(db, info.Size()/2)
	if isVerified(dir, filepath.Base(filepath.Dir(db))) {
		t.Fatal("a truncated database still counts as verified")
	}
	if dmg, err := Check(ctx, dir); err != nil || len(dmg) != 1 || dmg[0].Part != "facts database" {
		t.Fatalf("a truncated database: damage %v, error %v", dmg, err)
	}
}
