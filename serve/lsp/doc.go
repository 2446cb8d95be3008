// Package lsp serves cairn to editors over the Language Server Protocol
// (JSON-RPC 2.0 with Content-Length framing, on stdio): go to definition,
// references, hover (signature, doc, callers count, owners), document and
// workspace symbols, call hierarchy (prepare, incoming, outgoing) and
// implementations, all answered from the index through the same engine
// the MCP server uses (engine); its subpackage mcp serves agents.
//
// # Design
//
// The protocol layer is small and owned here (jsonrpc.go): a reader
// goroutine decodes frames; initialize and shutdown run in order, every
// other request on its own goroutine with a context that $/cancelRequest
// or the end of the session cancels; notifications (didOpen, didChange,
// didSave, didClose) are applied in order. Each request takes an engine
// snapshot, finds what the identifier under the cursor denotes (the
// indexed occurrence there: its resolved symbol id, else its qualified
// spelling, else the word under the cursor), asks the engine the one
// question the method is (Snapshot.Definitions, References, Symbols, Map,
// Callers, Callees, Implementations) with that name — the same question,
// and so the same answer, as `cairn refs NAME` or the MCP references tool
// — and converts the byte ranges of the answer's facts to UTF-16; the text
// it shows (signatures and docs in hover, document symbols and call
// hierarchy items) comes from the answer's views, as the other surfaces
// show it. A
// not_found answer is an empty list, as editors expect; implementations of
// an identifier that denotes several definitions follows all of them (the
// protocol cannot ask which), while the call hierarchy names one
// definition per item.
//
// # Positions
//
// LSP columns are UTF-16 code units, the index's are bytes: byteCol and
// utf16Col in position.go are the only conversions, applied to the line as
// the editor has it (the open buffer) or as it is on disk.
//
// # Edits
//
// With Options.Watch (the default of `cairn serve lsp`) an embedded watcher
// (engine.Watch) indexes every change on disk, from the editor or not.
// didOpen and didSave also queue the file for re-indexing; after a quiet
// period (Options.Debounce) the queued paths go through the incremental
// indexer (engine.Reindex, i.e. indexer.Run with Paths) and the new
// generation answers the next requests; the server then sends a
// cairn/indexed notification naming the paths, the generation committed
// and the files parsed.
//
// Answers follow the open buffers (buffer.go). The indexer reads files from
// disk, so an unsaved buffer (didChange) is extracted in memory instead
// (engine.Snapshot.Buffer: the facts an index run would store for that
// content, references unresolved), once per content and generation, when
// it differs from what the generation indexed: the identifier under the
// cursor is the buffer's occurrence there; a definition in an edited file
// is the buffer's definition of the same symbol (by id, else name, kind and
// container), or gone when the buffer deleted it; a name only the buffer
// defines (typed, not saved) is found there; references and document
// symbols in an edited file are the buffer's. Edits in one buffer do not
// re-resolve other files: a call elsewhere to a function renamed in the
// buffer is found once the file is saved and re-indexed. didClose drops
// the buffer, and answers come from the index again.
//
// workspace/symbol matches partial names as editors send them while the
// user types (engine.SymbolsOptions.Fuzzy): the name itself, a prefix,
// camel/snake word humps, a subsequence, in that order.
//
// Over a shared store (Options.Engine.Store, `cairn serve lsp --store postgres://…`)
// the server is one reader of the team's index: it neither watches nor
// re-indexes edits (one `cairn watch --store …` per repository does), and
// picks up each generation committed there.
//
// Errors carry the engine's category in data ({"category": ...}).
package lsp
