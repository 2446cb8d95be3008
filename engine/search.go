package engine

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 1000
	MaxSearchFiles     = 100
)

// SearchOptions ask Search for the code a text is about.
type SearchOptions struct {
	// Query is the question, identifiers, an error message or an issue.
	Query string
	// Limit is how many definitions and chunks are ranked: default
	// DefaultSearchLimit, at most MaxSearchLimit.
	Limit int
	// Files is how many files are ranked: default 10, at most
	// MaxSearchFiles.
	Files int
	// Only runs just these generators (fuse.AllGenerators).
	Only []string
	// Ranks keeps, on every file and hit, the rank each generator gave it.
	Ranks bool
	// Dump returns every generator's full ranking (for evaluation).
	Dump bool
}

// SearchFile is a ranked file (cited as a whole: no lines).
type SearchFile struct {
	Path     string         `json:"path"`
	Revision string         `json:"revision"`
	Stale    bool           `json:"stale"`
	Score    float64        `json:"score"`
	Why      string         `json:"why" jsonschema:"which generators found it"`
	Ranks    map[string]int `json:"ranks,omitempty" jsonschema:"the rank each generator gave it"`
	// Generated lists the generated files made with this one (the index
	// skips them): a change to it usually regenerates them.
	Generated []string `json:"generated,omitempty" jsonschema:"generated files made with this one, not indexed: a change to it usually regenerates them"`
}

// SearchHit is a ranked definition or chunk, cited as every location is.
type SearchHit struct {
	graph.Citation
	Symbol   string         `json:"symbol,omitempty" jsonschema:"qualified name, when the hit is a definition"`
	SymbolID graph.SymbolID `json:"symbol_id,omitempty"`
	Kind     string         `json:"kind"`
	Score    float64        `json:"score"`
	Why      string         `json:"why"`
	Ranks    map[string]int `json:"ranks,omitempty" jsonschema:"the rank each generator gave it"`
}

// NamedChange is a past change a query names by hash or number, with the
// files it changed (the search's strongest first).
type NamedChange = fuse.NamedChange

// SearchResult is a search's answer: ranked files, then ranked
// definitions and chunks.
type SearchResult struct {
	Files      []SearchFile     `json:"files"`
	Hits       []SearchHit      `json:"hits"`
	Generators []fuse.DumpEntry `json:"generators,omitempty"`
	// Unresolved is set when the query is one name that no definition
	// has: the hits hold the name or its parts, none defines it.
	Unresolved string `json:"unresolved,omitempty"`
	// Named are the past changes the query names by hash or number,
	// found in the commit history (none without a history index).
	Named []NamedChange `json:"named,omitempty" jsonschema:"past changes the query names by hash or number (#3165), each with the files it changed"`
}

// Search finds the code a text is about (BM25, embeddings, symbols, paths
// and the graph, fused).
func (s *Snapshot) Search(ctx context.Context, o SearchOptions) (*SearchResult, error) {
	if strings.TrimSpace(o.Query) == "" {
		return nil, Errorf(InvalidArgument, "empty query")
	}
	limit, err := bounded("limit", o.Limit, DefaultSearchLimit, 1, MaxSearchLimit)
	if err != nil {
		return nil, err
	}
	files, err := bounded("files", o.Files, 10, 1, MaxSearchFiles)
	if err != nil {
		return nil, err
	}
	for _, g := range o.Only {
		if !isGenerator(g) {
			return nil, Errorf(InvalidArgument, "unknown generator %q (want %s)", g, strings.Join(fuse.AllGenerators, ", "))
		}
	}
	res, err := s.fused().Search(ctx, o.Query, fuse.Options{Limit: limit, Files: files, Only: o.Only, Dump: o.Dump})
	if err != nil {
		return nil, Classify(err)
	}
	cite := s.CiteFunc(ctx)
	out := &SearchResult{Files: make([]SearchFile, len(res.Files)), Hits: make([]SearchHit, len(res.Hits)), Generators: res.Dump,
		Unresolved: res.Unresolved, Named: res.Named}
	for i, f := range res.Files {
		rev, stale := s.Cite(ctx, f.Path)
		out.Files[i] = SearchFile{Path: f.Path, Revision: rev, Stale: stale, Score: f.Score, Why: f.Why, Generated: f.Generated}
		if o.Ranks {
			out.Files[i].Ranks = f.Ranks
		}
	}
	for i, h := range res.Hits {
		out.Hits[i] = SearchHit{Citation: cite.Lines(h.Path, int(h.StartLine), int(h.EndLine)), Symbol: h.Name,
			SymbolID: h.SymbolID, Kind: h.Kind.String(), Score: h.Score, Why: h.Why}
		if o.Ranks {
			out.Hits[i].Ranks = h.Ranks
		}
	}
	return out, nil
}

func isGenerator(g string) bool {
	for _, a := range fuse.AllGenerators {
		if g == a {
			return true
		}
	}
	return false
}

// bounded checks an optional integer option: 0 means def, else it must be
// within lo..hi.
func bounded(name string, v, def, lo, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, Errorf(InvalidArgument, "%s must be between %d and %d (got %d)", name, lo, hi, v)
	}
	return v, nil
}
