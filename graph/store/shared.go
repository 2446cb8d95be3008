package store

import (
	"context"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/postgres"
	"github.com/cairn-dev/cairn/schema"
)

// SharedOptions configure OpenShared.
type SharedOptions struct {
	// CacheDir is where the shared store keeps this machine's copies of
	// side indexes and per-repository state; "" is the user's cache
	// directory.
	CacheDir string
	// MaxConns bounds the connection pool (default 8).
	MaxConns int32
}

// Shared is the write side of a shared store: builds that many processes
// share (graph.Coordinator, driven by package indexer/fleet), and the one
// watcher a repository may have.
type Shared interface {
	graph.Coordinator
	// LockWatcher takes repo's watcher lock, held until release (or the
	// process's end), so that one watcher, on any machine, keeps the
	// repository fresh; who names the holder to a second watcher, whose
	// error says who holds it.
	LockWatcher(ctx context.Context, repo, who string) (release func(), err error)
	// Where names the store for messages (the database, without its
	// password).
	Where() string
	Close()
}

// OpenShared connects to the shared store url names, to build
// generations in it. It fails with *URLError for a URL of no shared
// store. (Writing checks the schema: a store behind this binary must be
// migrated first, see Migrate.)
func OpenShared(ctx context.Context, url string, o SharedOptions) (Shared, error) {
	if !IsShared(url) {
		return nil, &URLError{URL: url}
	}
	db, err := postgres.Connect(ctx, url, postgres.Options{CacheDir: o.CacheDir, MaxConns: o.MaxConns})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	Where    string             // the store, without its password
	From, To int                // schema versions before and after
	Applied  []schema.Migration // migrations applied now
	Ahead    bool               // the store is newer than this binary (left alone)
}

// Migrate brings the schema of the shared store url names to this
// binary's version, one migration at a time (package schema); concurrent
// migrators wait for each other. It fails with *URLError for a URL of no
// shared store.
func Migrate(ctx context.Context, url string) (MigrateResult, error) {
	if !IsShared(url) {
		return MigrateResult{}, &URLError{URL: url}
	}
	db, err := postgres.Connect(ctx, url, postgres.Options{})
	if err != nil {
		return MigrateResult{}, err
	}
	defer db.Close()
	res, err := db.Migrate(ctx)
	// (The store's errors say what failed: the migration, the lock, the
	// connection and where.)
	return MigrateResult{Where: db.Where(), From: res.From, To: res.To, Applied: res.Applied, Ahead: res.Ahead}, err
}
