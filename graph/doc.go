// Package graph holds cairn's shared vocabulary: the facts every other package
// produces or consumes, and the small interfaces through which they are stored
// and read.
//
// # Facts
//
//   - A [SymbolID] is a symbol in SCIP syntax
//     ("<scheme> <manager> <package> <version> <descriptors>"). Precise symbols
//     ingested from SCIP indexes keep the indexer's spelling; heuristic symbols
//     extracted with tree-sitter use the scheme "cairn" and the same descriptor
//     grammar, so export, ingestion and joins treat both alike. [NewSymbolID]
//     builds one, [ParseSymbolID] takes one apart.
//   - A [Range] is a half-open byte range plus the 1-based line and 0-based byte
//     column of both ends. Bytes are the truth; lines are for people. Encodings
//     other than bytes (LSP's UTF-16) are converted at the protocol edge.
//   - A [Symbol] is a definition; an [Occurrence] is a use or definition of a
//     name at a range with a [Role] bit set (read, write, call, import, type use).
//   - An [Edge] is a derived relation between two symbols (calls, references,
//     implements, reads, writes, tests, …) with a [Confidence] saying how it was
//     derived: precise (SCIP), resolved (import- and scope-aware) or name-only.
//   - A [Chunk] is a unit of text for search and context: a function, a method,
//     a class header, or the part of a file outside them.
//   - A [File] records how one file was indexed (language, content hash, parse
//     status); a [Skip] records why a file was not.
//
// All facts of one file travel together as [FileFacts]; stores key them by the
// file's content hash so an unchanged file is never parsed twice.
//
// # Stores
//
// A store publishes generations: a writer builds the next generation aside and
// commits it atomically, readers hold a snapshot of the last committed one.
// The interfaces here are the narrow surface the indexer writes through
// ([Writer]) and the query layers read through ([Reader]); the embedded store
// (graph/embedded) and the PostgreSQL store implement them.
//
// # Views
//
// The published shape of each answer lives here too (view.go), so that
// every layer and surface writes the same JSON: a location is a [Citation]
// (path, start and end line, optional column, revision, stale), a symbol at
// a place is a [SymbolView], a use a [RefView], a symbol reached through the
// graph a [HopView], an edge of a path an [EdgeView]. They are built through
// a [CiteFunc], which the engine supplies per snapshot; schema/views.schema.json
// describes them and TestViewsMatchSchema keeps the two in step.
//
// # Queries
//
// Graph algorithms that only need a [Reader] — definitions by name, the
// references of definitions ([ReferencesTo], the one filtering rule), callers,
// callees and shortest call paths by breadth-first search, centrality by
// PageRank — live here too, so every store answers them the same way.
package graph
