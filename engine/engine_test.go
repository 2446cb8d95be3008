package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
)

func category(err error) engine.Category {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Category
	}
	return ""
}

func open(t *testing.T, root string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Options{Root: root, Embedder: "none", CheckEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

func TestNoIndexThenIndex(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc Alpha() {}\n"), 0o644)
	e := open(t, root)
	if _, err := e.Acquire(ctx); category(err) != engine.StaleIndex || !strings.Contains(err.Error(), "cairn index") {
		t.Fatalf("Acquire without index = %v, want stale_index telling to run cairn index", err)
	}
	if _, err := e.Reindex(ctx, nil, time.Second); err != nil {
		t.Fatal(err)
	}
	s, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	defs, err := s.Resolve(ctx, "Alpha", "", "", true)
	if err != nil || len(defs) != 1 || defs[0].Path != "a.go" {
		t.Fatalf("Resolve(Alpha) = %v, %v", defs, err)
	}
}

func TestSnapshotSurvivesReindex(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	old, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A new function, indexed through the incremental path.
	p := filepath.Join(root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\n// Farewell says goodbye.\nfunc Farewell() string { return \"bye\" }\n")...), 0o644)
	res, err := e.Reindex(ctx, []string{"server/greet.go"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Parsed != 1 {
		t.Errorf("incremental re-index parsed %d files, want 1", res.Parsed)
	}
	cur, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Release()
	if cur.Meta.Generation <= old.Meta.Generation {
		t.Fatalf("generation %d after re-index, was %d", cur.Meta.Generation, old.Meta.Generation)
	}
	if _, err := cur.Resolve(ctx, "Farewell", "", "", true); err != nil {
		t.Fatalf("new symbol not found after Reindex: %v", err)
	}
	hits, err := cur.Search(ctx, engine.SearchOptions{Query: "Farewell goodbye", Limit: 5})
	if err != nil || len(hits.Hits) == 0 || hits.Hits[0].Path != "server/greet.go" {
		t.Fatalf("search after re-index = %+v, %v", hits.Hits, err)
	}
	// The old snapshot still answers from its generation.
	if _, err := old.Search(ctx, engine.SearchOptions{Query: "Greet", Limit: 5}); err != nil {
		t.Fatalf("old snapshot after swap: %v", err)
	}
	old.Release()
	old.Release() // idempotent
}

func TestRepoPath(t *testing.T) {
	root := enginetest.Repo(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "leak.txt"))
	os.Symlink(outside, filepath.Join(root, "leakdir"))
	os.Symlink("store/store.go", filepath.Join(root, "alias.go"))
	for _, c := range []struct {
		path string
		want engine.Category
	}{
		{"/etc/passwd", engine.OutsideRepository},
		{filepath.Join(root, "store/store.go"), engine.OutsideRepository},
		{"../../etc/passwd", engine.OutsideRepository},
		{"store/../../x", engine.OutsideRepository},
		{`..\..\etc\passwd`, engine.OutsideRepository},
		{".git/config", engine.OutsideRepository},
		{"leak.txt", engine.OutsideRepository},
		{"leakdir/secret.txt", engine.OutsideRepository},
		{"missing.go", engine.NotFound},
		{"", engine.InvalidArgument},
		{"store/store.go", ""},
		{"./store//store.go", ""},
		{"alias.go", ""},
	} {
		rel, _, err := engine.RepoPath(root, c.path)
		if category(err) != c.want {
			t.Errorf("RepoPath(%q) = %q, %v; want category %q", c.path, rel, err, c.want)
		}
	}
}

func TestReadSpanPinned(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	s, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	sp, err := s.ReadSpan(ctx, "server/server.go", 12, 14, "")
	if err != nil {
		t.Fatal(err)
	}
	if sp.Stale || len(sp.Lines) != 3 || !strings.Contains(sp.Lines[0], "func (s *Server) Serve()") {
		t.Fatalf("span = %+v", sp)
	}
	if !strings.HasPrefix(s.Meta.Revision, sp.Revision) || sp.TotalLines != 23 {
		t.Fatalf("revision %q (index %q), total %d", sp.Revision, s.Meta.Revision, sp.TotalLines)
	}
	if !strings.Contains(sp.Numbered(), "12\tfunc (s *Server) Serve()") {
		t.Fatalf("numbered: %q", sp.Numbered())
	}
	commit := sp.Revision
	// The worktree changes: lines move down by two.
	p := filepath.Join(root, "server", "server.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "package server\n", "package server\n\n// moved\n", 1)), 0o644)
	cur, err := s.ReadSpan(ctx, "server/server.go", 12, 14, "")
	if err != nil {
		t.Fatal(err)
	}
	if !cur.Stale || cur.Revision == commit || !strings.HasPrefix(cur.Revision, commit+"+") {
		t.Fatalf("changed file read as %+v", cur)
	}
	// Pinned to the commit the answer cited: the committed lines, from git.
	pinned, err := s.ReadSpan(ctx, "server/server.go", 12, 14, commit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pinned.Lines[0], "func (s *Server) Serve()") || pinned.Revision != commit {
		t.Fatalf("pinned read = %+v", pinned)
	}
	// Pinned to content that exists nowhere any more.
	if _, err := s.ReadSpan(ctx, "server/server.go", 1, 2, commit+"+0123456789ab"); category(err) != engine.StaleIndex {
		t.Fatalf("gone content: %v, want stale_index", err)
	}
	if _, err := s.ReadSpan(ctx, "server/server.go", 1, 2, "HEAD; rm -rf /"); category(err) != engine.InvalidArgument {
		t.Fatalf("bad revision: %v", err)
	}
	if _, err := s.ReadSpan(ctx, "server/server.go", 500, 510, ""); category(err) != engine.InvalidArgument {
		t.Fatalf("past the end: %v", err)
	}
	// Credentials are redacted.
	sec, err := s.ReadSpan(ctx, "app/settings.py", 1, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(sec.Lines, "\n"), "sk-proj-") || len(sec.Redactions) == 0 {
		t.Fatalf("secret not redacted: %q", sec.Lines)
	}
}

// TestReadSpanCaps: a span stops at MaxSpanLines lines and at
// MaxSpanBytes bytes, whichever comes first, and says where to continue.
func TestReadSpanCaps(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	var many, wide strings.Builder
	many.WriteString("package a\n")
	for i := 2; i <= 3*engine.MaxSpanLines; i++ {
		fmt.Fprintf(&many, "// line %d\n", i)
	}
	wide.WriteString("package a\n")
	for i := 2; i <= engine.MaxSpanLines; i++ {
		fmt.Fprintf(&wide, "// %d %s\n", i, strings.Repeat("w", 500))
	}
	os.WriteFile(filepath.Join(root, "many.go"), []byte(many.String()), 0o644)
	os.WriteFile(filepath.Join(root, "wide.go"), []byte(wide.String()), 0o644)
	e := open(t, root)
	if _, err := e.Reindex(ctx, nil, time.Second); err != nil {
		t.Fatal(err)
	}
	s, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	for _, start := range []int{1, 11} {
		sp, err := s.ReadSpan(ctx, "many.go", start, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(sp.Lines) != engine.MaxSpanLines || sp.EndLine != start+engine.MaxSpanLines-1 || !sp.Truncated || sp.NextStartLine != sp.EndLine+1 {
			t.Errorf("many.go from %d: %d lines, %d-%d, truncated %v, next %d; want %d lines, cut", start, len(sp.Lines), sp.StartLine, sp.EndLine, sp.Truncated, sp.NextStartLine, engine.MaxSpanLines)
		}
	}
	sp, err := s.ReadSpan(ctx, "wide.go", 1, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, l := range sp.Lines {
		size += len(l) + 1
	}
	if size > engine.MaxSpanBytes || len(sp.Lines) >= engine.MaxSpanLines || !sp.Truncated || sp.NextStartLine != sp.EndLine+1 || sp.EndLine < 2 {
		t.Errorf("wide.go: %d lines of %d bytes in all, %d-%d, truncated %v, next %d; want at most %d bytes, cut", len(sp.Lines), size, sp.StartLine, sp.EndLine, sp.Truncated, sp.NextStartLine, engine.MaxSpanBytes)
	}
	// a range within the caps is whole
	if sp, err := s.ReadSpan(ctx, "many.go", 5, 9, ""); err != nil || len(sp.Lines) != 5 || sp.Truncated {
		t.Errorf("many.go 5-9: %+v, %v", sp, err)
	}
}

func TestResolveAmbiguous(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	s, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	_, err = s.Resolve(ctx, "Serve", "", "", true)
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Category != engine.Ambiguous || len(ee.Candidates) != 2 {
		t.Fatalf("Resolve(Serve) = %v", err)
	}
	defs, err := s.Resolve(ctx, "Serve", "server", "", true)
	if err != nil || len(defs) != 1 || defs[0].Path != "server/server.go" {
		t.Fatalf("Resolve(Serve, server) = %v, %v", defs, err)
	}
	byID, err := s.Resolve(ctx, string(ee.Candidates[0].SymbolID), "", "", true)
	if err != nil || len(byID) != 1 {
		t.Fatalf("Resolve(id) = %v, %v", byID, err)
	}
	if _, err := s.Resolve(ctx, "NoSuchThing", "", "", true); category(err) != engine.NotFound {
		t.Fatalf("missing: %v", err)
	}
	if _, err := s.Resolve(ctx, "Serve", "", "bogus-kind", true); category(err) != engine.InvalidArgument {
		t.Fatalf("bad kind: %v", err)
	}
}

func TestWorktreeHead(t *testing.T) {
	root := enginetest.Repo(t)
	want := strings.TrimSpace(enginetest.Git(t, root, "rev-parse", "HEAD"))
	if got := engine.WorktreeHead(root); got != want {
		t.Fatalf("WorktreeHead = %q, want %q", got, want)
	}
	enginetest.Git(t, root, "pack-refs", "--all")
	if got := engine.WorktreeHead(root); got != want {
		t.Fatalf("WorktreeHead after pack-refs = %q, want %q", got, want)
	}
	if got := engine.WorktreeHead(t.TempDir()); got != "" {
		t.Fatalf("no git: %q", got)
	}
}

func TestOwners(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	if got := engine.Owners(ctx, root, "server/server.go"); len(got) != 1 || got[0] != "git:t" {
		t.Fatalf("owners from git = %v", got)
	}
	os.MkdirAll(filepath.Join(root, ".github"), 0o755)
	os.WriteFile(filepath.Join(root, ".github", "CODEOWNERS"), []byte("# owners\n* @all\n*.py @py-team\n/server/ @srv @ops\nweb/**/*.ts @web\n"), 0o644)
	for path, want := range map[string]string{
		"server/server.go": "@srv @ops",
		"app/serve.py":     "@py-team",
		"web/client.ts":    "@web",
		"go.mod":           "@all",
	} {
		if got := strings.Join(engine.Owners(ctx, root, path), " "); got != want {
			t.Errorf("Owners(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestCachesCopy(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	s, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	fs, err := s.R.Files(ctx)
	if err != nil || len(fs) == 0 {
		t.Fatal(fs, err)
	}
	fs[0].Path = "changed"
	again, _ := s.R.Files(ctx)
	if again[0].Path == "changed" {
		t.Fatal("Files returns the cached slice itself")
	}
	defs, _ := s.Resolve(ctx, "Greet", "", "", true)
	a, _ := s.R.SymbolsByID(ctx, defs[0].ID)
	a[0].Doc = "changed"
	b, _ := s.R.SymbolsByID(ctx, defs[0].ID)
	if b[0].Doc == "changed" {
		t.Fatal("SymbolsByID returns the cached slice itself")
	}
	// the store's batch reads stay batch reads, and copies
	br, ok := s.R.(graph.BatchReader)
	if !ok {
		t.Fatal("the cached reader hides the store's batch reads")
	}
	ids := []graph.SymbolID{defs[0].ID, "cairn go . . nowhere/Nothing#"}
	m, err := br.SymbolsByIDs(ctx, ids)
	if err != nil || len(m[ids[0]]) != 1 || m[ids[0]][0].Name != "Greet" || len(m[ids[1]]) != 0 {
		t.Fatalf("SymbolsByIDs = %v, %v", m, err)
	}
	m[ids[0]][0].Name = "changed"
	if m2, _ := br.SymbolsByIDs(ctx, ids); m2[ids[0]][0].Name != "Greet" {
		t.Fatal("SymbolsByIDs returns the cached slice itself")
	}
	if f, err := s.R.File(ctx, "nope.go"); err == nil {
		t.Fatalf("File(nope.go) = %+v", f)
	}
	calls := 0
	v1, _ := s.Memo("k", func() (any, error) { calls++; return 1, nil })
	v2, _ := s.Memo("k", func() (any, error) { calls++; return 2, nil })
	if v1 != 1 || v2 != 1 || calls != 1 {
		t.Fatalf("memo: %v %v %d", v1, v2, calls)
	}
}

func TestWatchKeepsFresh(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	if err := e.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	if !e.Watching() {
		t.Fatal("not watching")
	}
	// A second watcher on the same index refuses to start.
	other := open(t, root)
	if err := other.Watch(ctx); err == nil {
		t.Fatal("two watchers on one index")
	}
	p := filepath.Join(root, "store", "extra.go")
	os.WriteFile(p, []byte("package store\n\n// Purge empties a store.\nfunc Purge() {}\n"), 0o644)
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, err := e.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Resolve(ctx, "Purge", "", "", true)
		s.Release()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher never indexed the new file")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSnapshotOneGeneration: a request running across an incremental
// commit (into the same SQLite database) reads the generation it started
// on, to the end; a snapshot taken after reads the new one.
func TestSnapshotOneGeneration(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	old, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Release()
	// Other requests on the same generation, started and ended meanwhile.
	for range 3 {
		s, err := e.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	before, err := old.R.SymbolsInFile(ctx, "server/greet.go")
	if err != nil || len(before) != 2 {
		t.Fatalf("symbols of greet.go = %v, %v", before, err)
	}
	// An incremental commit by another writer (as `cairn watch` would do):
	// a third function in the file, a new file.
	p := filepath.Join(root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\n// Farewell says goodbye.\nfunc Farewell() string { return \"bye\" }\n")...), 0o644)
	os.WriteFile(filepath.Join(root, "server", "extra.go"), []byte("package server\n\nfunc Extra() {}\n"), 0o644)
	other, err := engine.Open(ctx, engine.Options{Root: root, Embedder: "none"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := other.Reindex(ctx, []string{"server/greet.go", "server/extra.go"}, 10*time.Second)
	other.Close()
	if err != nil || res.Fresh {
		t.Fatalf("re-index: fresh %v, %v (want an incremental commit)", res.Fresh, err)
	}
	// Concurrent reads through the old snapshot: all of its generation.
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			syms, err := old.R.SymbolsInFile(ctx, "server/greet.go")
			if err == nil && len(syms) != 2 {
				err = errors.New("old snapshot sees " + strings.Join(symNames(syms), ", "))
			}
			if err == nil {
				if _, ferr := old.R.File(ctx, "server/extra.go"); ferr == nil {
					err = errors.New("old snapshot sees server/extra.go")
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if m, err := old.R.Meta(ctx); err != nil || m.Generation != old.Meta.Generation {
		t.Fatalf("old snapshot's Meta = generation %d, %v; want %d", m.Generation, err, old.Meta.Generation)
	}
	if defs, err := old.Resolve(ctx, "Farewell", "", "", true); err == nil {
		t.Fatalf("old snapshot resolves Farewell: %v", defs)
	}
	cur, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Release()
	if cur.Meta.Generation <= old.Meta.Generation {
		t.Fatalf("new snapshot on generation %d, old one %d", cur.Meta.Generation, old.Meta.Generation)
	}
	if syms, err := cur.R.SymbolsInFile(ctx, "server/greet.go"); err != nil || len(syms) != 3 {
		t.Fatalf("new snapshot: symbols of greet.go = %v, %v", symNames(syms), err)
	}
	if _, err := cur.R.File(ctx, "server/extra.go"); err != nil {
		t.Fatalf("new snapshot: %v", err)
	}
}

// TestIdleEngineHoldsNoReader: between requests the engine holds no read
// transaction, so a writer's checkpoint can empty the WAL.
func TestIdleEngineHoldsNoReader(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	e := open(t, root)
	s, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.R.Files(ctx); err != nil {
		t.Fatal(err)
	}
	s.Release()
	p := filepath.Join(root, "server", "log.go")
	os.WriteFile(p, []byte("package server\n\nfunc logf(msg string) {}\n"), 0o644)
	if _, err := e.Reindex(ctx, []string{"server/log.go"}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".cairn")
	epoch, err := embedded.CurrentEpoch(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, epoch, "index.db")+"?_busy_timeout=200")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// TRUNCATE waits for every reader to finish and empties the WAL;
	// busy = 1 when a reader holds it back.
	var busy, log, done int
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil || busy != 0 {
		t.Fatalf("checkpoint with an idle engine: busy %d, %v", busy, err)
	}
	// A request in flight holds it back, and lets it go when released.
	s, err = e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.R.Files(ctx); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("package server\n\nfunc logf(msg string) { _ = msg }\n"), 0o644)
	other, err := engine.Open(ctx, engine.Options{Root: root, Embedder: "none"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Reindex(ctx, []string{"server/log.go"}, 10*time.Second)
	other.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil || busy != 1 {
		t.Fatalf("checkpoint under a pinned request: busy %d, %v (want 1: the request reads its generation)", busy, err)
	}
	s.Release()
	if s, err = e.Acquire(ctx); err != nil { // notices the new generation
		t.Fatal(err)
	}
	s.Release()
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil || busy != 0 {
		t.Fatalf("checkpoint after the request: busy %d, %v", busy, err)
	}
}

func symNames(syms []graph.Symbol) []string {
	var out []string
	for _, s := range syms {
		out = append(out, s.Name)
	}
	return out
}
