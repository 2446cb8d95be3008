// Package mcp serves cairn to agents over the Model Context Protocol, built
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk): over
// stdio (ServeStdio) or streamable HTTP (Handler, ServeHTTP).
//
// # Tools
//
// The read tools are the catalogue's (engine/catalog), registered from
// it (register): each is defined once there — name, description, input and
// output types, bounds, paging and trimming — over the engine's one function
// for the question (Snapshot.Definitions, References, Callers, Callees,
// Implementations, Map, Search, Context, Trace, Impact, ReadSpan, Status).
// This package adds what serving needs around every tool in one place
// (add): admission, cancellation, a snapshot, the SDK's validation of the
// arguments against the catalogue's input schema and error categories.
// Options.Tools is the catalogue's profile served: all tools by default,
// the lean profile (catalog.Lean, short descriptions) as `cairn serve mcp`
// serves them unless --tools says otherwise. The graph tools answer in the shapes every surface shares
// (graph.SymbolView, graph.RefView, graph.HopView, each location a
// graph.Citation; schema/views.schema.json), so a definition, a reference
// or a caller reads the same here as from `cairn … --json`. Inputs are typed structs whose JSON Schema
// the SDK infers and validates; outputs are typed too (structuredContent,
// validated against the declared output schema) and repeated as JSON text
// for clients that read only text. Descriptions are short and written for
// models: what the tool answers and when to use it.
//
//	search, definition, references, callers, callees, implementations,
//	trace, impact, build_context, read_span,
//	repo_map, entry_points, package_graph (engine.EntryPoints and
//	engine.PackageGraph: onboarding), index_status
//
// verify_change (served when Options.Verify is set and the profile lists it,
// as the lean one does; `cairn serve mcp`
// sets it) is not a question about the index: it runs the verification
// gate on the repository — a task contract (a repository-relative path,
// or the contract's text) against a commit range or the worktree — through
// evidence.Run, the call `cairn verify` makes, so the two cannot judge a
// change differently. Its result is the report and the evidence bundle's
// summary (schema/evidence.schema.json's $defs report and bundle), its
// text the change description; a contract that does not parse, a
// malformed range or a base that is not a commit is an invalid_argument.
// It is a heavy tool, annotated neither read-only nor closed-world (it
// executes the contract's checks in the sandbox and adds worktrees to the
// repository's git directory), and takes minutes on a cold build cache.
//
// # Results sized for agents
//
// Every list is paginated: a page holds at most limit items and at most
// Options.MaxBytes of JSON (default catalog.MaxBytes, 24 KiB, about 6k
// tokens: well under the 25k tokens at which some clients cut tool output,
// even for clients that count both the structured result and its text copy); next_cursor, when set,
// continues it. A cursor names the tool, the arguments and the index
// generation it was issued for; used with other arguments it is an
// invalid_argument, after a re-index a stale_index error. Every location is
// cited with path, lines and revision (graph.CiteRevision) and marked stale
// when its file changed since it was indexed; every answer states the index
// generation, revision and whether the worktree's HEAD moved since.
//
// trace and impact return one analysis rather than a list: past the cap
// their longest lists are halved (flows and call paths first) and
// "omitted" counts what each lost; every location in them is cited (path,
// lines, revision, stale) like any other.
//
// # Errors
//
// Failures a model can act on are tool errors (isError) whose text starts
// with the category — not_found, ambiguous (with candidates to choose from),
// stale_index, outside_repository, invalid_argument — and whose _meta
// carries {"cairn/error": {"category", "candidates"}} for programs. The
// category is the engine's (engine.Classify maps the libraries' typed
// errors; no error text is matched). They
// carry no structuredContent, so clients that validate it against the
// output schema accept them. No tool reads outside the repository root
// (engine.RepoPath).
//
// # Concurrency and cancellation
//
// Over HTTP the handler is stateless (a fresh protocol session per POST, no
// Mcp-Session-Id), so any number of clients share one engine and a request
// belongs to its HTTP exchange. The SDK lets a closing session wait for its
// running calls, so the handler tags each exchange (a header only the
// server sets) and a tool call's context is cancelled as soon as its
// exchange's context is — when the client goes away — which stops its
// SQLite queries and its wait for a slot. At most Options.MaxConcurrent
// tool calls run at once; the others wait (and give up when cancelled).
package mcp
