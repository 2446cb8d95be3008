// Command cairn indexes a repository and answers questions about it: where
// a symbol is defined, who uses it and how (call, read, write, import, type),
// what the index holds and what it left out.
//
// The command only wires: each subcommand parses flags into an options
// struct, opens the store or the engine, calls one library function
// (indexer.Run; for the graph questions — def, refs, symbols, callers,
// callees, implementations, path, map — one engine question on a snapshot,
// through globals.ask; search, context, trace, impact and status likewise
// ask Snapshot.Search, Context, Trace, Impact and Status, search through
// globals.ask and the others, whose answers are not lists, through
// globals.snapshot) and formats the result as text or, with --json, as
// an envelope {"query", "index", "results", "unknown"} that states the
// indexed revision (context, trace, impact and status print their own
// answer: a pack, an analysis, the index's state); its results are the
// views every surface shares (graph.SymbolView, graph.RefView,
// graph.HopView, graph.EdgeView; a search hit is a graph.Citation). An
// engine error is, with --json, an "error" object {"category", "message",
// "candidates"}. Exit codes: 0 success, 1 failure, 2 usage error (also
// invalid_argument, outside_repository, and ambiguous: the argument must
// change), 3 nothing found.
package main
