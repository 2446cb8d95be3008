// Package store opens an index: the one place that decides between the
// embedded store (package graph/embedded, a directory) and the shared one
// (package graph/postgres, a PostgreSQL database named by a postgres://
// URL). Every reader above the stores — the engine, the search engine, the
// command line's queries — opens through Open and reads through Store, and
// never names a concrete store.
//
// A Store reads one committed generation, whatever commits meanwhile: the
// shared store names its generation in every query; the embedded store,
// whose incremental runs commit into the same SQLite database, reads
// through read transactions that began on its generation (WAL readers see
// the database as of their start), held between Pin and Unpin so that an
// idle reader never holds the writer's checkpoints back. Changed is the
// cheap check a long-running reader makes to learn that a newer generation
// is current; it then opens the store again.
//
// OpenWriter opens the embedded store's next generation. The shared store
// is written by builds many processes share: OpenShared connects to it and
// returns its write side, Shared — a graph.Coordinator, which package
// indexer/fleet drives (graph.Build, graph.Job, graph.BuildWriter), and the
// advisory lock that keeps one watcher per repository. Migrate creates or
// upgrades a shared store's schema (`cairn migrate`). Nothing above this
// package names graph/postgres: the command line's index, worker, watch and
// migrate go through these.
//
// Check verifies the stored parts of an embedded index (embedded.Check) and
// returns the damaged ones as graph.Damage; IsCorrupt tells a database
// error that is damage. A writer opened with Verify checks first and
// rebuilds what is damaged (see graph/embedded, Damage). The shared store
// has no such parts: PostgreSQL checks its own pages.
package store
