package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/postgres"
	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/fleet"
)

// TestSharedStore: the engine over PostgreSQL answers from the repository's
// current generation, with its text index; a snapshot taken before the next
// generation is committed keeps reading its own, the next one reads the new
// one; Reindex and Watch are refused (the shared store is written by
// builds).
func TestSharedStore(t *testing.T) {
	u := pgtest.NewDB(t)
	ctx := context.Background()
	cache := t.TempDir()
	db, err := postgres.Connect(ctx, u, postgres.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	root := enginetest.Repo(t)
	os.RemoveAll(filepath.Join(root, ".cairn"))
	build := func() {
		t.Helper()
		_, err := fleet.Run(ctx, db, fleet.Options{Index: indexer.Options{Root: root, Workers: 1}, Repo: "shop", Jobs: 2,
			Sinks: func(ctx context.Context, w graph.BuildWriter) ([]indexer.Sink, error) {
				return engine.SideIndexes(ctx, w, w.StateDir(), engine.Embedding{Name: "none"}, engine.History{}, func(string) {})
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	build()
	e, err := engine.Open(ctx, engine.Options{Root: root, Store: u, RepoName: "shop", StoreCache: cache, Embedder: "none", CheckEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.Shared() {
		t.Fatal("engine over postgres:// is not Shared")
	}
	old, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Release()
	if defs, err := old.Resolve(ctx, "Greet", "", "", true); err != nil || len(defs) != 1 || defs[0].Path != "server/greet.go" {
		t.Fatalf("Resolve(Greet) = %v, %v", defs, err)
	}
	if old.Texts == nil {
		t.Fatal("no text index over the shared store")
	}
	files, err := old.Texts.FilesWithTerms(ctx, []string{"Greet"})
	if err != nil || len(files) == 0 {
		t.Fatalf("FilesWithTerms(Greet) = %v, %v", files, err)
	}

	p := filepath.Join(root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\n// Farewell says goodbye.\nfunc Farewell() string { return \"bye\" }\n")...), 0o644)
	build()

	if _, err := old.Resolve(ctx, "Farewell", "", "", true); err == nil {
		t.Fatal("the snapshot taken before the build sees Farewell")
	}
	if syms, err := old.R.SymbolsInFile(ctx, "server/greet.go"); err != nil || len(syms) != 2 {
		t.Fatalf("old snapshot: %d symbols in greet.go, %v; want 2", len(syms), err)
	}
	cur, err := e.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Release()
	if cur.Meta.Generation <= old.Meta.Generation {
		t.Fatalf("new snapshot on generation %d, old one on %d", cur.Meta.Generation, old.Meta.Generation)
	}
	if _, err := cur.Resolve(ctx, "Farewell", "", "", true); err != nil {
		t.Fatalf("new snapshot: %v", err)
	}
	hits, err := cur.Search(ctx, engine.SearchOptions{Query: "Farewell goodbye", Limit: 3})
	if err != nil || len(hits.Hits) == 0 || hits.Hits[0].Path != "server/greet.go" {
		t.Fatalf("search on the new generation = %+v, %v", hits.Hits, err)
	}
	if _, err := e.Reindex(ctx, nil, time.Second); category(err) != engine.Unsupported {
		t.Fatalf("Reindex on a shared store = %v, want unsupported", err)
	}
	if err := e.Watch(ctx); category(err) != engine.Unsupported {
		t.Fatalf("Watch on a shared store = %v, want unsupported", err)
	}
}
