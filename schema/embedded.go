package schema

import _ "embed"

// EmbeddedFormat is the on-disk format of the embedded store (directory
// layout, SQLite tables, blob encodings). Readers refuse other values.
const EmbeddedFormat = 1

// FeatureVersion identifies what the extractor produces. Indexes written with
// another value are rebuilt from scratch by the next index run.
//
// History:
//
//	1: the embedded store, tree-sitter symbols, references and chunks
//	2: the code graph (edges with confidence, implementations, ranks)
//	3: SCIP ingestion (precise edges)
//	4: bm25's last batch persisted, the resolver's imports cache
//	5: separate file and chunk rankings
//	6: bm25 whole-file documents
//	7: supertypes written on one line
//	8: "Code generated" and "DO NOT EDIT" on two lines of a header skip the file
//	9: secrets redacted in the signatures and docs of symbols (graph/redact)
const FeatureVersion = 9

// EmbeddedSQL creates the tables of one embedded-store generation.
//
//go:embed embedded.sql
var EmbeddedSQL string

// EmbeddedIndexesSQL creates the secondary indexes; a cold build runs it after
// loading, which is faster than maintaining them row by row.
//
//go:embed embedded_indexes.sql
var EmbeddedIndexesSQL string

// ContextPackJSONSchema is the JSON Schema of context packs.
//
//go:embed contextpack.schema.json
var ContextPackJSONSchema string
