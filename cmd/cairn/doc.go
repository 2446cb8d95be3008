// Command cairn indexes a repository and answers questions about it: where
// a symbol is defined, who uses it and how (call, read, write, import, type),
// what the index holds and what it left out.
//
// The command only wires: each subcommand parses flags into an options
// struct, opens the store, calls one library function (indexer.Run,
// graph.FindDefinitions, graph.FindReferences, …) and formats the result as
// text or, with --json, as an envelope {"query", "index", "results",
// "unknown"} that states the indexed revision. Exit codes: 0 success,
// 1 failure, 2 usage error, 3 nothing found.
package main
