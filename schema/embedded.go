package schema

import _ "embed"

// EmbeddedFormat is the on-disk format of the embedded store (directory
// layout, SQLite tables, blob encodings). Readers refuse other values.
//
//	1: the first format
//	2: files.category (graph.FileCategory); a format-1 index lacks the column
const EmbeddedFormat = 2

// FeatureVersion identifies what the extractor produces. Indexes written with
// another value are rebuilt from scratch by the next index run.
//
// History:
//
//	1: the first extractor (embedded store, tree-sitter for Go, Python, TS/TSX/JS, Java, Rust, C, C++)
//	2: resolution with confidence, edges, Go structural implementations, PageRank
//	3: SCIP ingestion, precise edges; more receivers resolved
//	4: the resolver's imports cache; BM25's last batch persisted
//	5: separate fused file and chunk rankings
//	6: whole-file BM25 documents for the file generator
//	7: supertypes written on one line
//	8: "Code generated" and "DO NOT EDIT" on two lines of a header skip the file
//	9: each file's category (test, vendored, docs) decided by the indexer and stored
//	10: secrets redacted in the signatures and docs of symbols (internal/redact)
//	11: Python keyword arguments are role argument, not write (a write only of a called class's field);
//	    Go package members exclude methods; uses resolved outside the index (Occurrence.Outside)
//	12: text search and the embedder cut words at a change of script and index Chinese and
//	    Japanese text as pairs of characters (retrieval/tokens)
//	13: Kotlin, Scala and Swift are first-class languages; a tags tier extracts
//	    definitions and name-only references from shell, protobuf, Lua, Elixir,
//	    OCaml, Groovy, HCL, Dockerfile, CUE and Elm; .graphql files are graphql
//	    (text), no longer proto (issue 54)
const FeatureVersion = 13

// EmbeddedSQL creates the tables of one embedded-store generation.
//
//go:embed embedded.sql
var EmbeddedSQL string

// EmbeddedIndexesSQL creates the secondary indexes; a cold build runs it after
// loading, which is faster than maintaining them row by row, and an
// incremental run again (every statement is IF NOT EXISTS), which adds an
// index a generation written before it existed lacks.
//
//go:embed embedded_indexes.sql
var EmbeddedIndexesSQL string

// ContextPackJSONSchema is the JSON Schema of context packs.
//
//go:embed contextpack.schema.json
var ContextPackJSONSchema string

// ViewsJSONSchema is the JSON Schema of the shapes every answer is made of
// (graph.Citation, graph.SymbolView, graph.RefView, graph.HopView,
// graph.EdgeView): its $defs citation, symbol, reference, hop and edge.
//
//go:embed views.schema.json
var ViewsJSONSchema string

// EvidenceJSONSchema is the JSON Schema of an evidence bundle
// (gate/evidence.Bundle, evidence.json); its $defs report is the gate's
// report (gate/verify.Report) as `cairn verify --json` prints it.
//
//go:embed evidence.schema.json
var EvidenceJSONSchema string
