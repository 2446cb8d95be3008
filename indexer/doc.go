// Package indexer turns a repository into facts in a store: it walks the
// tree (package walk), reads what changed, extracts facts with tree-sitter
// (package treesitter) on a pool of workers, and writes them serially
// through a graph.Writer together with any side indexes (Sinks), committing
// one generation at the end. Options.Progress hears every phase as it
// starts (walk, parse, resolve, each side index that is a PhasedSink —
// text, vectors — and commit), so no stretch of a run is silent.
//
// # Incremental runs
//
// Every file's content hash is its git blob SHA-1. A file whose size and
// modification time equal what the index recorded is not read at all — unless
// its mtime is within two seconds of the run's start, where an edit in the
// same clock tick could hide (git's "racily clean" problem). A file that is
// read but hashes the same is only re-stamped. Everything else is
// re-extracted; paths that disappeared are deleted, so deleted and renamed
// files vanish from every answer. With Options.Paths a run visits only the
// given paths (a watcher's change set): it walks just them (walk.WalkPaths),
// leaves the facts of everything else as they were, and still brings the
// whole generation's revision up to date — every file's committed flag and
// the dirty flag are recomputed against HEAD from the stored hashes, and Go
// imports resolve through all go.mod files, not only those in the paths.
// HEAD's tree is cached per process, since a long-running caller indexes at
// one revision many times.
//
// # Categories
//
// Each file written carries its category (walk.Category), decided with the
// set of files the generation is expected to hold. When a file that other
// files' categories depend on (a package's __init__.py, walk.VendoredBy)
// is added, removed or skipped, or a shared build's jobs each decided
// knowing only their own paths (Finalize), every file's category is decided
// again over the generation's files and the changed ones are recorded
// (Writer.SetCategory).
//
// # Failure
//
// Nothing is visible until the writer commits; any error aborts the
// generation and the previous one stays current. Per-file problems (syntax
// errors, time limits, recovered panics) are not errors: the file is indexed
// as far as possible with a status that says how far. A crash inside a C
// grammar is handled by the journal (journal.go).
//
// # Revisions
//
// After the run, each file is compared with its blob at HEAD (gitrepo.ReadTree):
// equal files are cited by the commit, others by their content hash, and the
// generation records whether the worktree was dirty (an indexed file differs
// from its blob; files skipped for their content have no hash and do not
// count).
package indexer
