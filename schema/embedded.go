package schema

import _ "embed"

// EmbeddedFormat is the on-disk format of the embedded store (directory
// layout, SQLite tables, blob encodings). Readers refuse other values.
const EmbeddedFormat = 1

// FeatureVersion identifies what the extractor produces. Indexes written with
// another value are rebuilt from scratch by the next index run.
const FeatureVersion = 8 // 8: "Code generated" and "DO NOT EDIT" on two lines of a header skip the file

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

// ViewsJSONSchema is the JSON Schema of the shapes every answer is made of
// (graph.Citation, graph.SymbolView, graph.RefView, graph.HopView,
// graph.EdgeView): its $defs citation, symbol, reference, hop and edge.
//
//go:embed views.schema.json
var ViewsJSONSchema string
