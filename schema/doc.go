// Package schema holds cairn's persisted formats: version numbers, the
// embedded store's SQL schema, PostgreSQL migrations and the JSON Schemas of
// cairn's published outputs: contextpack.schema.json (a context pack),
// views.schema.json (the citation, symbol, reference, hop and edge every
// answer is made of; graph's views) and evidence.schema.json (the
// verification gate's evidence bundle, gate/evidence, with the gate's
// report in its $defs), and openapi.json, the OpenAPI 3.1 description of
// `cairn serve http`'s JSON API (generated from the MCP tools' schemas by
// serve/web, whose test keeps this copy current). It imports nothing of cairn's, so every layer
// can depend on it.
//
// Two numbers guard every persisted index, as in zoekt's table of contents:
//
//   - the format version says whether this binary can read the index at all;
//     an index written in another format is refused with an error that asks
//     for a re-index, never misread;
//   - the feature version says whether the facts are current: when the
//     extractor learns something new (a query change, a new fact), the
//     feature version moves and the next `cairn index` rebuilds instead of
//     reusing facts of unchanged files.
//
// The PostgreSQL store's schema is a sequence of migrations,
// postgres/NNN_name.sql, applied in order by `cairn migrate`, each in its own
// transaction, and recorded in the database with a checksum. Its version is
// the number of the last migration; a database behind the binary must be
// migrated, one ahead of it (migrated by a newer cairn) is never written.
// Migrations normally only add (tables, columns, indexes), so an older binary
// can still read a newer schema; a migration that breaks older readers says
// so with a line "-- cairn:min-reader N" (N its own version), and binaries
// older than N then refuse to read as well.
package schema
