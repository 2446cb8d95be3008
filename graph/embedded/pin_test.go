package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
)

// commit writes files (path → function names) as the next generation.
func commit(t *testing.T, dir string, files map[string][]string) {
	t.Helper()
	ctx := context.Background()
	w, err := NewWriter(ctx, WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Known(ctx); err != nil {
		t.Fatal(err)
	}
	for path, names := range files {
		ff := &graph.FileFacts{File: graph.File{Path: path, Lang: graph.LangGo, Hash: fmt.Sprint(path, names), Status: graph.ParseOK}}
		for i, n := range names {
			ff.Symbols = append(ff.Symbols, graph.Symbol{ID: graph.SymbolID("cairn go p . " + n + "()."), Name: n, Kind: graph.KindFunction,
				Lang: graph.LangGo, Path: path, Parent: -1, Range: graph.Range{StartByte: uint32(10 * i), EndByte: uint32(10*i + 5)}})
		}
		if _, err := w.PutFile(ctx, ff); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx, graph.Meta{Root: "/r"}); err != nil {
		t.Fatal(err)
	}
}

// TestPinnedStore: many concurrent queries through a pinned store read its
// generation while incremental commits land in the same database; a
// cancelled query does not break the others; once unpinned, a store whose
// generation was replaced fails to pin with ErrMoved, and Changed says so.
func TestPinnedStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	commit(t, dir, map[string][]string{"a.go": {"A"}})
	s, err := OpenPinned(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Pin(ctx); err != nil {
		t.Fatal(err)
	}
	gen := s.pin.gen
	commit(t, dir, map[string][]string{"a.go": {"A", "A2"}, "b.go": {"B"}})
	if changed, err := s.Changed(ctx); err != nil || !changed {
		t.Fatalf("Changed after a commit = %v, %v", changed, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%8 == 0 {
				s.Files(cancelled) // fails or not; must not disturb the others
				return
			}
			syms, err := s.SymbolsInFile(ctx, "a.go")
			if err == nil && len(syms) != 1 {
				err = fmt.Errorf("a.go has %d symbols through the pin, want 1", len(syms))
			}
			if _, ferr := s.File(ctx, "b.go"); err == nil && !errors.Is(ferr, graph.ErrNotFound) {
				err = fmt.Errorf("b.go through the pin: %v", ferr)
			}
			if m, merr := s.Meta(ctx); err == nil && (merr != nil || m.Generation != gen || m.Files != 1) {
				err = fmt.Errorf("Meta through the pin: generation %d, %d files, %v", m.Generation, m.Files, merr)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Unpin()
	if err := s.Pin(ctx); !errors.Is(err, ErrMoved) {
		t.Fatalf("Pin after the generation was replaced = %v, want ErrMoved", err)
	}
	if _, err := s.Files(ctx); !errors.Is(err, ErrMoved) {
		t.Fatalf("a query of an unpinned, replaced store = %v, want ErrMoved", err)
	}
	// A store opened now reads the new generation.
	s2, err := OpenPinned(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if syms, err := s2.SymbolsInFile(ctx, "a.go"); err != nil || len(syms) != 2 {
		t.Fatalf("new store: %d symbols in a.go, %v", len(syms), err)
	}
	if changed, err := s2.Changed(ctx); err != nil || changed {
		t.Fatalf("Changed of a current store = %v, %v", changed, err)
	}
}

// TestCommitTruncatesWAL: an incremental commit leaves the write-ahead
// log empty when no reader is mid-query (a process opening the index
// first reads all of the log: a gigabyte after a watch session on the
// Linux kernel), and one that is does not hold the commit up.
func TestCommitTruncatesWAL(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, map[string][]string{"a.go": {"A"}})
	walOf := func() int64 {
		m, _ := filepath.Glob(filepath.Join(dir, "epoch-*", "index.db-wal"))
		if len(m) != 1 {
			return 0 // no log at all: empty
		}
		fi, err := os.Stat(m[0])
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	// An idle reader's connection stays open throughout (a watcher's, a
	// server's): the writer's close is then not the last, which would
	// fold the log in by itself.
	dbs, _ := filepath.Glob(filepath.Join(dir, "epoch-*", "index.db"))
	if len(dbs) != 1 {
		t.Fatalf("databases: %v", dbs)
	}
	db, err := sql.Open("sqlite3", "file:"+dbs[0]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	many := map[string][]string{}
	for i := range 200 {
		many[fmt.Sprintf("f%03d.go", i)] = []string{fmt.Sprintf("F%d", i), fmt.Sprintf("G%d", i)}
	}
	commit(t, dir, many)
	if n := walOf(); n != 0 {
		t.Fatalf("after an incremental commit the log holds %d bytes, want 0", n)
	}

	// A reader mid-query: the log stays, and the commit is not held up.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM files").Scan(&n); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	many["f000.go"] = []string{"Changed"}
	commit(t, dir, many)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a commit beside a reader took %s", d)
	}
	if walOf() == 0 {
		t.Fatal("the log was emptied under a reader's transaction")
	}
}

// TestScanSymbols: the symbols in the order of their rows — every file's
// together and in their order in the file, after a file is rewritten too
// — are AllSymbols's, without its sort by path.
func TestScanSymbols(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	commit(t, dir, map[string][]string{"z.go": {"Z1", "Z2", "Z3"}, "a.go": {"A1", "A2"}, "m.go": {"M1"}})
	commit(t, dir, map[string][]string{"a.go": {"A1", "A2", "A3"}}) // rewritten: its rows come last
	w, err := NewWriter(ctx, WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	v := w.View()
	sc, ok := v.(graph.SymbolScanner)
	if !ok {
		t.Fatal("the embedded view is no SymbolScanner")
	}
	var all, scanned []string
	v.AllSymbols(ctx, func(s graph.Symbol) error { all = append(all, s.Path+":"+s.Name); return nil })
	if err := sc.ScanSymbols(ctx, func(s graph.Symbol) error { scanned = append(scanned, s.Path+":"+s.Name); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(scanned)); !slices.Equal(got, slices.Sorted(slices.Values(all))) {
		t.Fatalf("scanned %v, all %v", scanned, all)
	}
	// each file's symbols together, in order
	var files []string
	byFile := map[string][]string{}
	for _, s := range scanned {
		p, n, _ := strings.Cut(s, ":")
		if len(files) == 0 || files[len(files)-1] != p {
			if _, seen := byFile[p]; seen {
				t.Fatalf("%s's symbols come apart: %v", p, scanned)
			}
			files = append(files, p)
		}
		byFile[p] = append(byFile[p], n)
	}
	if !slices.Equal(byFile["a.go"], []string{"A1", "A2", "A3"}) || !slices.Equal(byFile["z.go"], []string{"Z1", "Z2", "Z3"}) {
		t.Fatalf("a file's symbols out of order: %v", byFile)
	}
	// and nothing is sorted (AllSymbols's order by path is, in a fresh
	// epoch, whose indexes are built at the end)
	plan := func(order string) string {
		rows, err := w.tx.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT `+symbolCols+symbolFrom+order)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			b.WriteString(detail + "\n")
		}
		return b.String()
	}
	if p := plan(scanOrder); strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("ScanSymbols sorts:\n%s", p)
	}
	if p := plan(`ORDER BY f.path, s.ord`); !strings.Contains(p, "TEMP B-TREE") {
		t.Logf("(AllSymbols's order needs no sort here:\n%s)", p)
	}
}
