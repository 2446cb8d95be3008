package embedded

import (
	"context"
	"path/filepath"
	"testing"
)

// TestReaderPragmasOnEveryConnection: each connection a reader's pool
// opens — not only the first — maps the database and has the larger
// cache, including one opened after the others were busy.
func TestReaderPragmasOnEveryConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	w, err := openDB(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := openDB(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for i := 0; i < 4; i++ { // the pool's limit: four connections held at once
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var mmap, cache int64
		var temp int
		if err := c.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&temp); err != nil {
			t.Fatal(err)
		}
		if mmap != 268435456 || cache != -65536 || temp != 2 {
			t.Errorf("connection %d: mmap_size %d, cache_size %d, temp_store %d; want 268435456, -65536, 2 (memory)", i, mmap, cache, temp)
		}
	}
}
