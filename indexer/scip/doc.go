// Package scip ingests SCIP indexes (scip-go, scip-typescript, scip-python
// and any other indexer writing the format) and merges their precise facts
// into the facts tree-sitter extracted.
//
// # Reading
//
// Load streams each index with the maintained bindings'
// (github.com/scip-code/scip/bindings/go/scip) IndexVisitor, one document
// at a time, and keeps a compact copy of what cairn merges: occurrence
// ranges, symbols and roles, and per-symbol kind, documentation and
// implementation relationships. Positions come from Occurrence.SourceRange,
// which reads both the legacy `range` field and the newer typed ranges that
// scip-go v0.2.9 writes exclusively. A spec FILE:SUBDIR prefixes every
// document path with SUBDIR, for indexes of one project of a monorepo.
// Documents whose paths escape the project (scip-go's generated test mains
// in the Go build cache) are skipped and counted, never written anywhere.
// Malformed or truncated input fails the load with an error naming the index
// and the document; the index run then aborts and the previous generation
// stays current.
//
// # Merging
//
// tree-sitter still supplies what SCIP lacks: chunks, kinds, signatures,
// and the roles of references (a SCIP index says read for every reference;
// calls and writes come from the syntax). Merge therefore keeps the
// tree-sitter facts of a file and rewrites their identities:
//
//   - a definition at the same position takes the SCIP symbol;
//   - a reference at the same position takes the SCIP symbol, with
//     confidence precise;
//   - SCIP occurrences tree-sitter did not see are added, with the role
//     SCIP gives them;
//   - implementation relationships become precise implements edges.
//
// # Stale indexes
//
// Before merging, every occurrence of a named symbol is checked against the
// current file: the text at its range must spell the symbol's name. An
// index made for another revision of the file fails that check; the
// document is then reported and not merged, and the file keeps its
// heuristic facts.
package scip
