// Package embedded is cairn's default store: everything under one directory
// (<repo>/.cairn by default), no server.
//
// # Layout
//
//	<dir>/CURRENT          {"format": N, "epoch": "epoch-000003"}, replaced atomically
//	<dir>/LOCK             flock(2)ed by the one writer at a time
//	<dir>/VERIFIED         when the database was last verified (see Damage)
//	<dir>/.gitignore       "*": an index inside a checkout is never committed
//	<dir>/epoch-000003/    one self-contained index: index.db (SQLite, WAL
//	                       mode) and the side indexes written beside it
//
// The facts live in SQLite (schema.EmbeddedSQL): files, skips, symbols,
// name postings, chunks and edges as tables; per-file occurrences, imports
// and bindings as one compact blob per file (package graph/facts), since they are read
// file by file. SQLite gives the properties the store must have: many
// readers in several processes at once, one writer, atomic commits, and a
// crash at any point rolling back to the last commit.
//
// # Generations
//
// Every commit is a generation (meta key "generation", counting up), and
// stores its row counts (meta key "counts": files by status and language,
// skips by reason, symbols, chunks) so that Meta is a read of the meta
// table, not a count of every table. An
// incremental run writes its generation into the current epoch in a single
// transaction; readers keep seeing the previous one until it commits. A full
// run (first index, format or feature change, --full) builds a new epoch
// directory with journaling off and indexes created after the load, which is
// several times faster, then publishes it by renaming a new CURRENT over the
// old; earlier epochs are deleted once no longer current (open readers keep
// their file handles on Linux). A run killed before the rename leaves a
// half-built epoch that nothing points to; the next writer removes it.
//
// An epoch's name is its sequence number in the directory, so a directory
// removed and indexed again reuses it; its identity is the meta key
// "epoch_id" (random, written by the writer that creates the epoch, kept
// by every generation after). What a process remembers of the epochs it
// committed — the file states of its last generation, the symbol ids it
// saw interned (known.go) — is keyed by that identity, never by the name.
//
// # Readers
//
// A Store from Open reads whatever its epoch's database has committed at
// each query. One from OpenPinned reads one generation for its whole life
// (pin.go): its queries go through read transactions that began on that
// generation — WAL readers see the database as of their start — one
// transaction per query in flight, given back when the rows close, so that
// a cancelled query interrupts no other. Pin and Unpin bracket the periods
// it is used in; unpinned it holds no transaction, so that a long-lived
// idle reader never holds the writer's checkpoints back, and the next Pin
// fails with ErrMoved if a commit replaced the generation meanwhile.
// Changed is the cheap check (CURRENT and the generation) of whether one
// did. An incremental commit folds the WAL into the database and empties
// it when no reader is mid-query (Writer.truncateWAL): the first process to
// open a database reads all of its WAL, so one left at a gigabyte by a
// watch session slowed every one-shot command.
//
// # Damage
//
// Every commit records a manifest (meta key "files"): each file the side
// indexes wrote in the epoch directory, with its size and CRC-32C. Side
// files are written once, so an incremental commit keeps the entries of
// the files nothing rewrote since its writer opened — a file damaged
// before the run stays detectably damaged — and sums only the new ones.
// Check verifies the pointer (CURRENT), the database (SQLite's
// quick_check: every page and record well formed) and each manifest file,
// and names what is damaged as a graph.Damage. quick_check reads every
// page (about 2 s for a 190 MB database), so <dir>/VERIFIED notes the
// database files' size, mtime and inode when last verified, or committed
// by a writer that opened them verified; while they are unchanged the pages
// are not read again (Check on this repository's index: 3 ms; the side
// files' checksums: 70 ms for 71 MB). A writer with Verify (what
// `cairn index` opens) runs it first, so that `cairn index` repairs a
// damaged index without --full: a damaged pointer or database makes it
// build a fresh epoch (any writer does when it cannot read them); damaged
// side indexes only leave the facts as they are, and SideRepair names what
// the caller is to rebuild from them (engine.RebuildSideIndexes: no file
// is parsed again). Watchers do not verify.
//
// # Versions
//
// CURRENT names the format; Open refuses any other format with a
// graph.FormatError before touching the database, and the database's meta
// table repeats it. The feature version (schema.FeatureVersion) does not stop
// reading; it tells the next index run to rebuild.
package embedded
