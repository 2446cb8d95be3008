package embedded

import "github.com/cairn-dev/cairn/graph"

// EncodeFacts serialises the per-file facts of ff (occurrences, imports,
// bindings, SCIP edges) in the compact form of the files.facts column. The
// PostgreSQL store keeps what extraction produced in the same form.
func EncodeFacts(ff *graph.FileFacts) []byte { return encodeFacts(ff) }

// DecodeFacts fills ff's occurrences, imports, bindings and SCIP edges from
// a blob written by EncodeFacts.
func DecodeFacts(b []byte, ff *graph.FileFacts) error { return decodeFacts(b, ff) }
