// Package postgres is cairn's shared store: one PostgreSQL database (with
// pgvector) holding the indexes of many repositories, which many processes
// on many machines write and read at once. Selected with
// --store postgres://… (or CAIRN_STORE); the schema lives in
// schema/postgres and is applied by `cairn migrate`.
//
// # Generations and versions of files
//
// Each repository has committed generations; repositories.current_gen names
// the one readers see. A reader fixes the generation when it opens, and
// every query filters by it, so it keeps one consistent snapshot while the
// next generation is written; the next one becomes visible when the
// transaction that swaps current_gen commits.
//
// Facts are not copied per generation. A file version (files, with its
// symbols, chunks and postings) is written once, when a build extracts it;
// a generation's membership (gen_files: path → file version, plus the stat,
// the committed flag and the file's category, which change without
// re-extraction) says which
// versions it has. A build that extends the current generation starts by
// copying the membership (a few thousand small rows), then replaces the
// entries of the files that changed. Resolution results (occurrences and
// the edges derived from a file) change when other files change, so they
// are versioned apart: a resolution (res_id) belongs to a file version, and
// the membership names the resolution in force. Whole-graph results
// (derived edges, ranks) are per generation. Collection (gc.go) drops
// generations superseded more than a grace period ago, then the versions
// and resolutions no generation refers to.
//
// Symbol strings are interned in sids under a 64-bit FNV-1a hash, so that
// writers in different processes agree on ids without a round trip;
// interning happens in short transactions of its own, in id order, so
// writers never wait on each other's long transactions. Chunk, file and
// resolution ids come from sequences in blocks of 1024.
//
// Paths, names and symbol strings use COLLATE "C": ordering and ASCII-only
// case folding match the embedded store (SQLite), so both stores answer in
// the same order.
//
// # Builds and jobs
//
// A build (a generation in state "building") is split by path prefix into
// jobs, planned by the process that starts it while the repository row is
// locked. Any number of processes (`cairn index --store …`, `cairn worker`)
// join the build of the same revision and claim jobs with
// FOR UPDATE SKIP LOCKED. A job's extraction is written in one transaction
// on the connection that claimed it, and the same transaction marks the job
// done: a job is never half written, and its files are indexed by exactly
// one committed attempt. A claim holds while its lease (extended by a
// heartbeat) runs and its connection exists; a crashed or disconnected
// worker's job is taken over at once, a hung one's when its lease ends,
// and a worker that lost its claim finds out at commit and discards its
// work. When every job is done, one process claims finalization the same
// way and, in one transaction, resolves references of the written files,
// recomputes whole-graph edges and ranks, builds the side indexes, and
// swaps the repository's current generation. A run that fails (a dropped
// connection, a killed process) leaves the build with its finished jobs;
// the next `cairn index` of the same revision resumes it.
//
// # Side indexes
//
// The text index stays bleve (package bm25) and vectors keep their int8
// segments (package vector), so that every reader gets the same answers as
// from the embedded store: the finalizer builds them exactly as an embedded
// index run does, from the chunk texts that jobs stored, in a local
// directory, and its commit publishes the files in the database
// (content-addressed blobs, listed per generation). Readers materialize a
// generation's files once per machine in a local cache (side.go) and open
// them read-only. Embeddings are also stored in embeddings as pgvector
// vectors, with a partial HNSW index (cosine) per repository and
// dimension, for approximate nearest-neighbour search in SQL (Nearest).
//
// # Reading
//
// A Store reads one committed generation, which never changes; the rows a
// search asks for over and over — chunk references by id and by file,
// centrality ranks — are kept in memory once read (cache.go, bounded), so
// a long-lived server stops paying a round trip and a plan for each. On
// mono1m under sixteen concurrent searches this took PostgreSQL's share
// of the work from about 19 to 5 ms a search (bench/postgres/RESULTS.md).
// A writer's view reads through: it sees its own rows change.
//
// # Versions
//
// cairn_migrations records the applied migrations. A database behind the
// binary must be migrated; one ahead of it is never written to, and is
// read only when its migrations allow older readers (see package schema).
package postgres
