// Package facts is the compact binary form of a file's per-file facts
// (occurrences, imports, bindings and SCIP edges) that both stores keep:
// the embedded store in its files.facts column, the PostgreSQL store in
// its facts column. It lives outside either store so that neither store
// imports the other. The layout, with its version byte, is documented in
// codec.go, the file that reads and writes it; FuzzDecode checks that no
// input makes Decode panic and that what it accepts round-trips.
package facts
