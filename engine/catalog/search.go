package catalog

import (
	"strings"

	"github.com/cairn-dev/cairn/engine"
)

// SearchIn is the input of search.
type SearchIn struct {
	Query  string `json:"query" jsonschema:"what to find: words, identifiers, an error message or an issue text"`
	Limit  int    `json:"limit,omitempty" jsonschema:"code hits per page, 1-50 (default 10)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// Search is a search's answer in the one shape every surface publishes
// (schema/views.schema.json's $defs/search): the ranked files, apart
// from the ranked definitions and chunks, scores rounded to 4 decimals.
// `cairn search --json` answers it as its results; MCP, the HTTP API and
// the agent's search tool as SearchOut.
type Search struct {
	Files      []engine.SearchFile  `json:"files,omitempty" jsonschema:"ranked files (first page only)"`
	Hits       []engine.SearchHit   `json:"hits"`
	Unresolved string               `json:"unresolved,omitempty" jsonschema:"set when the query is one name no definition has: the hits hold the name or its parts"`
	Named      []engine.NamedChange `json:"named,omitempty" jsonschema:"past changes the query names by hash or number (#3165), each with the files it changed (first page only)"`
}

// ShapeSearch is res in the one search shape.
func ShapeSearch(res *engine.SearchResult) Search {
	out := Search{Hits: make([]engine.SearchHit, len(res.Hits)), Unresolved: res.Unresolved, Named: res.Named}
	for _, f := range res.Files {
		f.Score = round(f.Score)
		out.Files = append(out.Files, f)
	}
	for i, h := range res.Hits {
		h.Score = round(h.Score)
		out.Hits[i] = h
	}
	return out
}

// SearchOut is the output of search.
type SearchOut struct {
	Index IndexView `json:"index"`
	Search
	NextCursor string `json:"next_cursor,omitempty"`
}

// maxSearchDepth is how far pages reach down the ranking.
const maxSearchDepth = 200

var searchTool = tool("search", "Search code",
	"Find the code a question, identifier, error message or issue text is about (BM25, embeddings, symbols, paths and the graph, fused). Returns ranked files, then ranked definitions and chunks with cited lines. Start here when you do not know where something is.",
	"Find code by words, identifiers, an error or an issue text: ranked files, then cited definitions and chunks.",
	false, nil, search)

func search(c *call, in SearchIn) (SearchOut, string, error) {
	if strings.TrimSpace(in.Query) == "" {
		return SearchOut{}, "", engine.Errorf(engine.InvalidArgument, "search needs a query: words, identifiers or an error message")
	}
	limit, err := inRange("limit", in.Limit, 10, 1, 50)
	if err != nil {
		return SearchOut{}, "", err
	}
	key := SearchIn{Query: in.Query, Limit: in.Limit}
	off, err := c.offset(in.Cursor, key)
	if err != nil {
		return SearchOut{}, "", err
	}
	want := min(off+limit, maxSearchDepth)
	files := 10
	if off > 0 {
		files = 1 // shown on the first page only
	}
	res, err := c.snap.Search(c.ctx, engine.SearchOptions{Query: in.Query, Limit: want, Files: files})
	if err != nil {
		return SearchOut{}, "", err
	}
	all := ShapeSearch(res)
	answer, err := page(c, all.Hits, off, limit, key, func(p []engine.SearchHit, next string) SearchOut {
		o := SearchOut{Search: Search{Hits: p, Unresolved: all.Unresolved}, NextCursor: next}
		if off == 0 {
			o.Files, o.Named = all.Files, all.Named
		}
		stale := 0
		for _, h := range p {
			stale += b2i(h.Stale)
		}
		o.Index = indexView(c.snap, stale)
		if next == "" && len(res.Hits) >= want && want < maxSearchDepth {
			// more may exist beyond what was ranked
			o.NextCursor = c.cursorAt(key, off+len(p))
		}
		return o
	})
	return answer, "", err
}

func round(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }
