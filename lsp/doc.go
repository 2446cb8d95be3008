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
// didOpen, didChange and didSave also queue the file for re-indexing; after a
// quiet period (Options.Debounce) the queued paths go through the
// incremental indexer (engine.Reindex, i.e. indexer.Run with Paths) and
// the new generation answers the next requests; the server then sends a
// cairn/indexed notification. The indexer reads files from disk, so an
// unsaved buffer is reflected once saved (didSave); until then answers
// come from the last indexed content and positions in an edited buffer may
// be off by the edit.
//
// Over a shared store (Options.Store, `cairn serve lsp --store postgres://…`)
// the server is one reader of the team's index: it neither watches nor
// re-indexes edits (one `cairn watch --store …` per repository does), and
// picks up each generation committed there.
//
// Errors carry the engine's category in data ({"category": ...}).
package lsp
