package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/schema"
)

// fullCommit publishes a fresh epoch holding one function, name.
func fullCommit(dir, name string) error {
	ctx := context.Background()
	w, err := NewWriter(ctx, WriterOptions{Dir: dir, Full: true})
	if err != nil {
		return err
	}
	if _, err := w.Known(ctx); err != nil {
		w.Abort()
		return err
	}
	ff := &graph.FileFacts{File: graph.File{Path: "a.go", Lang: graph.LangGo, Hash: name, Status: graph.ParseOK}}
	ff.Symbols = []graph.Symbol{{ID: graph.SymbolID("cairn go p . " + name + "()."), Name: name, Kind: graph.KindFunction,
		Lang: graph.LangGo, Path: "a.go", Parent: -1, Range: graph.Range{StartByte: 0, EndByte: 5}}}
	if _, err := w.PutFile(ctx, ff); err != nil {
		w.Abort()
		return err
	}
	return w.Commit(ctx, graph.Meta{Root: "/r"})
}

func defined(t *testing.T, dir, name string) bool {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("open after the commit: %v", err)
	}
	defer s.Close()
	defs, err := graph.FindDefinitions(context.Background(), s, name)
	if err != nil {
		t.Fatal(err)
	}
	return len(defs) == 1
}

// TestPointerPublishedAside: a full commit writes the new CURRENT aside,
// syncs it while CURRENT still names the old epoch, renames it over
// CURRENT and then syncs the directory. A sync that fails (the machine
// dying before the pointer is on disk) leaves the old pointer and its
// epoch readable.
func TestPointerPublishedAside(t *testing.T) {
	dir := t.TempDir()
	if err := fullCommit(dir, "Old"); err != nil {
		t.Fatal(err)
	}
	old, err := CurrentEpoch(dir)
	if err != nil {
		t.Fatal(err)
	}
	current := filepath.Join(dir, currentFile)
	var syncedAside, syncedDirAfter bool
	var problems []string
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(f *os.File) error {
		info, err := f.Stat()
		if err != nil {
			return err
		}
		now, cerr := readCurrent(dir)
		switch {
		case !info.IsDir():
			if f.Name() == current {
				problems = append(problems, "CURRENT itself was written and synced: a reader meanwhile sees a partial pointer")
			}
			b, _ := os.ReadFile(f.Name())
			if cerr != nil || now.Epoch != old {
				problems = append(problems, "CURRENT changed before the new pointer was synced")
			} else if strings.Contains(string(b), `"epoch"`) && !strings.Contains(string(b), old) {
				syncedAside = true // the new pointer, whole, aside
			}
		case f.Name() == dir && cerr == nil && now.Epoch != old:
			syncedDirAfter = true
		}
		return (*os.File).Sync(f)
	}
	if err := fullCommit(dir, "New"); err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if !syncedAside {
		t.Error("the new pointer was never synced before it replaced CURRENT")
	}
	if !syncedDirAfter {
		t.Error("the directory was not synced after the rename: the new CURRENT may not survive a crash")
	}
	published, err := CurrentEpoch(dir)
	if err != nil || published == old || !defined(t, dir, "New") {
		t.Fatalf("after the commit CURRENT names %q (%v), the old epoch was %q", published, err, old)
	}

	// The pointer's sync fails: the commit fails and changes nothing a
	// reader sees.
	crash := errors.New("power lost")
	syncFile = func(f *os.File) error {
		if info, err := f.Stat(); err == nil && !info.IsDir() {
			return crash
		}
		return (*os.File).Sync(f)
	}
	if err := fullCommit(dir, "Lost"); !errors.Is(err, crash) {
		t.Fatalf("commit with a failing pointer sync = %v, want the sync's error", err)
	}
	if cur, err := CurrentEpoch(dir); err != nil || cur != published {
		t.Fatalf("after the failed commit CURRENT names %q (%v), want %q", cur, err, published)
	}
	if !defined(t, dir, "New") || defined(t, dir, "Lost") {
		t.Fatal("after the failed commit the index is not the previous one")
	}
}

// TestPointerReadDuringCommits: a reader polling CURRENT while pointers are
// published back to back always finds a whole one.
func TestPointerReadDuringCommits(t *testing.T) {
	dir := t.TempDir()
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(*os.File) error { return nil } // atomicity, not durability, here
	if err := writeCurrent(dir, current{Format: schema.EmbeddedFormat, Epoch: "epoch-000001"}); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Value
	var reads atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if _, err := readCurrent(dir); err != nil {
				bad.Store(err)
				return
			}
			reads.Add(1)
		}
	}()
	deadline := time.Now().Add(300 * time.Millisecond)
	for i := 0; i < 3000 && bad.Load() == nil && time.Now().Before(deadline); i++ {
		epoch := []string{"epoch-000002", "epoch-000003-with-a-longer-name"}[i%2]
		if err := writeCurrent(dir, current{Format: schema.EmbeddedFormat, Epoch: epoch}); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if err, _ := bad.Load().(error); err != nil {
		t.Fatalf("a reader during a commit read a broken pointer (after %d good reads): %v", reads.Load(), err)
	}
}
