// Package engine is the façade cairn's servers (the MCP server in lsp/mcp,
// the LSP server in lsp) share: it opens an index once — the store, the
// fused search engine over its text and vector side indexes — and hands each
// request a Snapshot of one committed generation.
//
// # Snapshots
//
// A server keeps one open handle per generation. Acquire returns the current
// one with a reference held; a request works on it from start to end and
// Releases it. At most every Options.CheckEvery, Acquire asks the store for
// its generation and the CURRENT pointer for its epoch (two cheap reads);
// when an index run (cairn index, a watcher, the LSP server's own re-index
// after an edit) committed since, it opens a handle on the new generation,
// makes it current, and closes the old one when its last request releases
// it. Requests already running finish on the handle they started with, so
// a response never mixes the answers of two side-index generations. (The
// embedded store commits an incremental generation into the same SQLite
// database; rows a request reads after such a commit come from the newer
// generation, which the response's index block does not claim.)
//
// A server may start before any index exists: Acquire then fails with a
// stale_index error saying to run `cairn index`, and the server picks the
// index up as soon as one is committed.
//
// # Caches
//
// What every request would otherwise recompute is kept per generation, on
// the handle: the file list and single files (cachingReader: every search
// and pack reads the list whole, every citation a file), definitions by id
// (every hop of a traversal), the centrality ranking (Central) and any
// value a server memoises (Memo). Token counts, a pure function of text and
// encoding, are shared across generations. All are bounded and return
// copies; freshness (stale) is never cached beyond one request.
//
// # Errors
//
// Every failure a client can act on is an *Error with a Category
// (not_found, ambiguous with candidates, stale_index, outside_repository,
// invalid_argument); both servers map categories to their protocol (MCP
// tool errors, LSP response errors). Anything else is internal.
//
// # The repository boundary, redaction and bounded errors
//
// Every read of a worktree file goes through one reader, Snapshot.Files
// (graph/repofs), which the engine hands to every question that reads
// files (packs, trace, impact, the message scan of search): it refuses
// absolute paths, paths that climb out with "..", paths inside .git, and
// files that resolve through a symlink to somewhere outside the root —
// checking what it opened, so a file swapped for a link after a check is
// refused too. RepoPath is the same check for a path a client names.
// ReadSpan reads only files the index holds and is pinned to a revision:
// the worktree content when it is the content cited, else the committed
// blob (git show) for a commit, else a stale_index error.
//
// Every text that leaves the engine passes one redactor (graph/redact):
// signatures and docs are redacted when the indexer extracts them, spans,
// packs and trace snippets when they are read, error messages when they
// are made. Errorf quotes an argument at most MaxQuoted (200) bytes and
// every message is at most MaxMessage bytes (BoundMessage), so a 5 MB
// argument gets a short error; the servers pass their own errors through
// BoundMessage too.
//
// # Re-indexing and watching
//
// Watch runs the watch loop of indexer/watch inside the server (the same
// loop as `cairn watch`, with the same side indexes), so the index follows
// the worktree while the server runs; each committed batch makes its
// generation current at once. When another watcher holds the index's watch
// lock, Watch fails and the server relies on that one (Acquire still notices
// its generations within CheckEvery).
//
// Reindex runs the incremental indexer (indexer.Run with Options.Paths) on
// a set of files, with the same side indexes as `cairn index`
// (SideIndexes), serialised with other writers by the store's lock, and
// makes the new generation current before it returns.
package engine
