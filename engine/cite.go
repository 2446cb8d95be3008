package engine

import "context"

// Citation cites lines of a file as an answer found them: every location
// the engine's answers give is one.
//
// It is the engine's one citation type until graph defines the shared one
// (issue 16, "one citation type"): then Citation becomes an alias of it,
// and its JSON (path, start_line, end_line, revision, stale) stays.
type Citation struct {
	Path      string `json:"path" jsonschema:"repository-relative path"`
	StartLine int    `json:"start_line" jsonschema:"first line, 1-based"`
	EndLine   int    `json:"end_line" jsonschema:"last line, inclusive"`
	Revision  string `json:"revision" jsonschema:"revision of the cited content: a commit, commit+content-hash for uncommitted content; read_span accepts it"`
	Stale     bool   `json:"stale,omitempty" jsonschema:"the file changed since it was indexed: lines may have moved"`
}

// Citation cites lines start..end of path (see Cite).
func (s *Snapshot) Citation(ctx context.Context, path string, start, end int) Citation {
	rev, stale := s.Cite(ctx, path)
	return Citation{Path: path, StartLine: start, EndLine: end, Revision: rev, Stale: stale}
}
