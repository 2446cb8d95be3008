// Package engine is the core cairn's surfaces (the MCP server in serve/mcp,
// the LSP server in lsp, the command line) share: it opens an index once —
// either store, through graph/store's Open, and the fused search engine over
// its text and vector side indexes — and hands each request a Snapshot of
// one committed generation.
//
// # Stores
//
// Options.Store names a shared PostgreSQL store (postgres://…, with
// Options.RepoName, default the root); "" is the embedded store in
// Options.IndexDir. graph/store decides which, and nothing here names a
// concrete store. The engine only reads a shared store: Reindex and Watch
// fail with an unsupported error there, since the shared index is written
// by builds (`cairn index --store`, `cairn worker`) and kept fresh by one
// `cairn watch --store …` per repository, not by every server.
//
// # Snapshots
//
// A server keeps one open handle per generation. Acquire returns the current
// one with a reference held; a request works on it from start to end and
// Releases it. At most every Options.CheckEvery, Acquire asks the store
// whether another generation is current (store.Store.Changed: the embedded
// store's CURRENT epoch and generation, the shared store's current
// generation id); when an index run (cairn index, a watcher, the LSP
// server's own re-index after an edit) committed since, it opens a handle
// on the new generation, makes it current, and closes the old one when its
// last request releases it.
//
// A snapshot is immutable: every row it reads comes from its generation,
// whatever commits meanwhile. The shared store names its generation in
// every query. The embedded store commits an incremental generation into
// the same SQLite database, so its handle reads through read transactions
// that began on the handle's generation (embedded.OpenPinned; in WAL mode a
// transaction sees the database as of its start): the first request on a
// handle pins it (store.Store.Pin), the last to release it unpins it, so
// that an idle server holds no transaction and the writer's checkpoints can
// empty the WAL. A pin that finds its generation replaced while unpinned
// (ErrMoved) makes Acquire open the current generation instead. Concurrent
// requests on one handle share its caches; each query takes a transaction
// of its own (cancelling one query interrupts its connection only).
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
// # Questions
//
// Every question has one method on Snapshot, one options struct and one
// result type; the CLI, the MCP server and the LSP server call only these,
// so the same question gets the same answer in the same shape everywhere.
// The graph questions (graphq.go): Definitions, References, Symbols,
// Callers, Callees, Implementations, Paths and Map. Their results are made
// of the views of package graph — graph.SymbolView for a symbol at a place,
// graph.RefView, graph.HopView, graph.EdgeView — each location a
// graph.Citation (path, lines, revision, stale) cited through the snapshot
// (CiteFunc); schema/views.schema.json describes them. The facts the views
// were made from travel beside them, not in JSON, for adapters that need
// exact ranges.
//
// A name is resolved once, by Resolve: a symbol_id picks one definition; a
// plain or qualified name is looked up (exact case first); Path (a file or
// directory, never outside the root) and Kind narrow it.
//
// References follow one rule: the uses resolved to the chosen definitions
// (confidence precise or resolved), plus the unresolved uses spelled like
// them (name-only: they may be theirs); uses resolved to any other
// definition are left out. A name with no definition in the index (a
// library's) lists its uses by spelling (a qualified one, reflect.PtrTo,
// those selected from that qualifier); a narrowed name (symbol_id, path or
// kind) that denotes nothing is not_found.
//
// Callers, Callees and Implementations follow one definition: a name
// denoting several is an ambiguous error whose candidates (SymbolViews) say
// how to pick one, unless HopsOptions.All asks for all of them. Depth is
// explicit: outside 1..MaxHopDepth it is invalid_argument, never silently
// 1. (The LSP asks implementations of an unresolved identifier with All,
// as its protocol cannot ask back; its call hierarchy names one definition
// per item.) Paths take every definition of both names: each path shows
// which it joins. Paths follow calls; when no call path joins them, the one
// path is the chain of dependency edges Impact walks (impact.Chain:
// dispatch through interfaces, function values, name-only calls), marked
// Dependency — so every test Impact selects has a path, the one its Chain
// gives.
//
// Two questions are for people onboarding onto a repository:
// EntryPoints (entries.go) lists its HTTP routes, mains, CLI commands and
// jobs, each classified by the rules a trace applies to the start of a
// call path (trace.EntryPoints: the functions referenced on a line that
// registers a route, command or job — mux.HandleFunc, r.GET, app.get,
// RunE:, Action:, set_defaults(func=…), c.AddFunc, add_job, schedule —
// the functions whose decorators or annotations bind one — @app.route,
// @router.get, @GetMapping, @click.command, @shared_task, @Scheduled — Go
// functions taking an http.ResponseWriter or a framework's context, and
// top-level mains; test and vendored files left out). PackageGraph
// (packages.go) is the dependency graph of the project's own packages: a
// node per directory of code files (tests, vendored code and docs left
// out; sized by files and lines), an edge where one's files import another's, each import mapped to
// directories by the resolver's own rules (resolve.Index.ImportedDirs: Go
// through the repository's go.mod files, Python modules, relative
// JavaScript/TypeScript specifiers and monorepo packages, Java packages,
// C includes); imports of libraries are counted, not drawn. On a large
// tree it collapses directories to their first Depth path elements (by
// default the deepest depth that keeps at most Limit nodes) and leaves out
// the nodes with the fewest files past Limit, counting them. The
// uncollapsed graph is computed once per generation (Memo), from the
// imports alone where the store reads them apart (graph.ImportReader).
//
// The analysis questions (search.go, context.go, trace.go, impact.go,
// status.go) check their own arguments (bounds, paths, revisions) too:
// Search (fused search; hits are Citations), Context (a budgeted pack:
// budget, focus paths, format and tokenizer are checked here only), Trace
// (follow a value), Impact (what a change affects; a name must denote one
// definition unless ImpactOptions.All), ReadSpan and Status (what the index
// holds and how fresh it is). Impact's symbols are graph.SymbolViews and
// a trace's locations trace.Locs (the shape of graph.Citation), all cited
// through the snapshot.
//
// Freshness is checked by the snapshot, for every surface: each citation
// says whether its file changed since it was indexed (Snapshot.Cite, per
// file), and Snapshot.Worktree says, once per snapshot, whether the
// worktree holds changes the generation does not (the watcher's word, else
// a stat-only scan bounded in time; Options.WorktreeFullScan ignores the
// stat snapshot). Status states it; the CLI states it beside every answer.
//
// Buffer extracts an editor's unsaved buffer in memory (indexer.ExtractBuffer:
// the facts an index run would store for that content, nothing stored), so
// that the LSP server's answers follow open buffers; Symbols with Fuzzy
// matches partial names as an editor's symbol search does (fuzzy.go).
//
// The tokenizer's tables load while a pack's candidates are searched (the
// vectors, on the first search: package vector).
//
// # Errors
//
// Every failure a client can act on is an *Error with a Category
// (not_found, ambiguous with candidates, stale_index, outside_repository,
// invalid_argument, unsupported); the servers map categories to their
// protocol (MCP tool errors, LSP response errors) and the CLI to exit
// codes. Classify is the one place the libraries' typed errors
// (graph.ErrNotFound, trace.ErrNoTarget, impact.ErrDiff,
// contextpack.ErrInvalidRequest and ErrBudgetTooSmall, …) become
// categories; no error text is matched. Anything else is internal.
//
// # The repository boundary, redaction and bounded errors
//
// Every read of a worktree file goes through one reader, Snapshot.Files
// (internal/repofs), which the engine hands to every question that reads
// files (packs, trace, impact, the message scan of search): it refuses
// absolute paths, paths that climb out with "..", paths inside .git, and
// files that resolve through a symlink to somewhere outside the root —
// checking what it opened, so a file swapped for a link after a check is
// refused too. RepoPath is the same check for a path a client names.
// ReadSpan reads only files the index holds and is pinned to a revision:
// the worktree content when it is the content cited, else the committed
// blob (git show) for a commit, else a stale_index error.
//
// Every text that leaves the engine passes one redactor (internal/redact):
// signatures and docs are redacted when the indexer extracts them, spans,
// packs and trace snippets when they are read, error messages when they
// are made. Errorf quotes an argument at most MaxQuoted (200) bytes and
// every message is at most MaxMessage bytes (BoundMessage), so a 5 MB
// argument gets a short error; the servers pass their own errors through
// BoundMessage too.
//
// # A moved or copied checkout
//
// Facts are stored relative to the root, so an index read from another
// root than it was built at (a checkout copied with its .cairn, or moved)
// follows the root it is opened at: files, citations and freshness are the
// new worktree's, and Status names both (Root, IndexedFrom) until the next
// index run records the new root.
//
// # Damage
//
// Check verifies every stored part of the index (graph/store.Check); Status
// lists what it finds (Damaged), and an index that fails to open is
// checked, so that the error names the damaged parts and says to run
// `cairn index` (which rebuilds them): a *graph.DamagedError, classified
// stale_index like a SQLite corruption error met during a query.
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
//
// # What the adapters name
//
// The adapters (serve, clients) ask the engine and its catalogue
// (engine/catalog: each read-only tool defined once over these functions)
// and never import indexer or retrieval (cmd/cairn's layering test):
// reexport.go aliases the retrieval types the engine's answers and options
// are made of (Pack, Trace, TraceSite, EntryPoint, ANNMode,
// EmbedHTTPOptions).
package engine
