// Package schema holds cairn's persisted formats: version numbers, the
// embedded store's SQL schema, PostgreSQL migrations and the JSON Schemas of
// cairn's published outputs. It imports nothing of cairn's, so every layer
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
package schema
