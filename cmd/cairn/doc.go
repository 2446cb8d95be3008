// Command cairn indexes a repository and answers questions about it: where
// a symbol is defined, who uses it and how (call, read, write, import, type),
// what the index holds and what it left out.
//
// The command only wires: each subcommand parses flags into an options
// struct, opens the store or the engine, calls one library function
// (indexer.Run; for the graph questions — def, refs, symbols, callers,
// callees, implementations, path, map, and the onboarding questions entries
// (Snapshot.EntryPoints) and packages (Snapshot.PackageGraph) — one engine
// question on a snapshot,
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
// change; a count flag the engine would read as "default" when 0 is checked
// here, flags.go), 3 nothing found (search and context print their empty
// answer, then exit 3; callers with no callers is an answer, 0).
//
// Text answers of traversals are trees, each symbol under the one it was
// reached from (the engine's answer is breadth first, each hop naming its
// via). Graph answers — callers, callees, implementations, path, trace,
// impact with --dot or --mermaid — are drawn by internal/diagram, the one
// writer whose output the tests parse with graphviz's dot and mermaid.
package main
