// Package watch keeps an index fresh while the worktree changes: `cairn
// watch` runs it, and a long-running server embeds the same loop.
//
// # Events
//
// An inotify watch (github.com/fsnotify/fsnotify) is set on every directory
// the walker would enter — the ignore files, the default-ignored directories
// and the index directory leave the same holes as in an index run — plus the
// git directory, whose HEAD and refs say when the checked-out revision
// moved. A directory that appears is walked at once and watched (files
// written into it before its watch existed are covered, since the directory
// itself joins the change set); a directory removed or moved away loses its
// watches and everything below it, because inotify would otherwise go on
// reporting the moved subtree under its old names. A change to a .gitignore
// or .cairnignore re-walks the directory it governs: paths may become
// indexable or ignored, and watches follow.
//
// # Change sets and batches
//
// Events are reduced to repository-relative paths in a set. A batch starts
// when no event has come for Debounce (StormDebounce once the set is large,
// or when HEAD moved, so a checkout or a formatter run is taken as one batch),
// or at the latest MaxDelay after the set's first event. A batch is one
// incremental index run restricted to the set (indexer.Options.Paths) — the
// same code path as `cairn index` — through the writer and side indexes that
// Options.Begin opens, so symbols, edges, text segments and vectors are
// committed together as one generation. A set larger than FullAt paths, a
// moved HEAD, an event-queue overflow and the periodic rescan run the
// indexer over the whole tree instead: it stats every file and re-reads only
// those whose size or modification time changed. While a batch runs, events
// collect into the next set; one batch runs at a time. A failed batch keeps
// its paths for the next one, after a back-off.
//
// # Lost events
//
// The kernel drops events when its queue overflows, and refuses watches
// beyond fs.inotify.max_user_watches. An overflow schedules a full rescan at
// once; watches that cannot be added leave the watcher degraded: it says so
// in the log and in its status (cairn status), and rescans every
// DegradedRescan instead of every Rescan. Without inotify at all it polls
// the same way. Rescans use indexer.Options.SkipUnchanged, so one that finds
// nothing costs no generation.
//
// # Lifecycle
//
// Start takes an exclusive lock (flock on <state>/WATCH) so a second
// watcher on the same index refuses to start; index runs by others
// (`cairn index`, a server's re-index) are serialised with the watcher's
// batches by the store's own writer lock. The watches are set up before the
// first batch, a full catch-up run, so any change made while no watcher ran
// is found by that run and any change made after it by an event: stopping,
// restarting or killing the watcher loses no update. A batch killed midway
// commits nothing (the store's transaction, the side indexes' unpublished
// segments) and the next start catches up.
//
// # Freshness
//
// The watcher publishes its state in <state>/watch.json (ReadStatus), so
// one-shot commands can tell whether the index is being kept fresh and
// whether changes are pending. Check combines that with HEAD and, when no
// healthy watcher runs, a stat-only comparison of the worktree with the
// index: the "worktree" block of every answer. The comparison is
// indexer.CachedChanges: a full scan (every directory read, every ignore
// file parsed, the index's file list loaded) leaves a stat snapshot in the
// state directory, and later checks answer from one lstat per directory
// and file until a directory or an ignore file changes (see
// indexer/snapshot.go for why that is exact). On mono1m that is ~15 ms of
// CPU instead of ~120 ms.
//
// # Stores
//
// The watcher knows the store only through Options.Begin, which opens a
// graph.Writer and the side-index sinks for each batch (the embedded
// store), or Options.Run, which runs a batch itself: the shared PostgreSQL
// store builds a generation as a fleet build (indexer/fleet) restricted to
// the change set, planned against the current generation, and skipped
// when nothing changed. Its state directory (lock, status, journal) is the
// worktree's local one either way; one watcher per repository of the
// shared store is enforced by the command, with an advisory lock in the
// database. Check takes any graph.Reader.
package watch
