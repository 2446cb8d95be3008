package mcp

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/engine"
)

// IndexView states which index answered and how fresh it is.
type IndexView struct {
	Generation int64  `json:"generation" jsonschema:"index generation that answered"`
	Revision   string `json:"revision" jsonschema:"git commit the index was built from (empty outside git)"`
	Dirty      bool   `json:"dirty" jsonschema:"the worktree had uncommitted changes when indexed"`
	IndexedAt  string `json:"indexed_at"`
	// WorktreeHead is the commit checked out now.
	WorktreeHead string `json:"worktree_head,omitempty"`
	HeadMoved    bool   `json:"head_moved" jsonschema:"another commit is checked out than was indexed: answers may be outdated until re-indexed"`
	StaleResults int    `json:"stale_results" jsonschema:"results in files changed since indexing (each marked stale)"`
}

func viewIndex(snap *engine.Snapshot) IndexView {
	m := snap.Meta
	v := IndexView{Generation: m.Generation, Revision: m.Revision, Dirty: m.Dirty, IndexedAt: m.IndexedAt.UTC().Format(time.RFC3339)}
	v.WorktreeHead = engine.WorktreeHead(snap.Root)
	v.HeadMoved = v.WorktreeHead != "" && m.Revision != "" && v.WorktreeHead != m.Revision
	return v
}

// Loc cites lines of a file.
type Loc struct {
	Path      string `json:"path" jsonschema:"repository-relative path"`
	StartLine int    `json:"start_line" jsonschema:"first line, 1-based"`
	EndLine   int    `json:"end_line" jsonschema:"last line, inclusive"`
	Revision  string `json:"revision" jsonschema:"revision of the cited content: a commit, commit+content-hash for uncommitted content; read_span accepts it"`
	Stale     bool   `json:"stale,omitempty" jsonschema:"the file changed since it was indexed: lines may have moved"`
}

// citer makes Locs and counts the stale ones.
type citer struct {
	ctx   context.Context
	snap  *engine.Snapshot
	stale int
}

func (c *citer) loc(path string, start, end int) Loc {
	rev, stale := c.snap.Cite(c.ctx, path)
	if stale {
		c.stale++
	}
	return Loc{Path: path, StartLine: start, EndLine: end, Revision: rev, Stale: stale}
}

// SymbolView is a definition.
type SymbolView struct {
	SymbolID graph.SymbolID `json:"symbol_id" jsonschema:"exact id: pass it as symbol to other tools"`
	Name     string         `json:"name" jsonschema:"qualified name"`
	Kind     string         `json:"kind"`
	Language string         `json:"language"`
	Loc
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty" jsonschema:"doc comment (shortened)"`
	Exported  bool   `json:"exported"`
}

const maxDoc = 400

func (c *citer) symbol(s *graph.Symbol) SymbolView {
	doc := s.Doc
	if len(doc) > maxDoc {
		cut := maxDoc
		for cut > 0 && doc[cut]&0xC0 == 0x80 {
			cut--
		}
		doc = doc[:cut] + "…"
	}
	return SymbolView{SymbolID: s.ID, Name: s.QualifiedName(), Kind: s.Kind.String(), Language: s.Lang.String(),
		Loc: c.loc(s.Path, int(s.Range.StartLine), int(s.Range.EndLine)), Signature: s.Signature, Doc: doc, Exported: s.Exported}
}

// Site is a position in a file: a call site, a reference.
type Site struct {
	Path     string `json:"path"`
	Line     int    `json:"line" jsonschema:"1-based"`
	Column   int    `json:"column" jsonschema:"1-based byte column"`
	Revision string `json:"revision"`
	Stale    bool   `json:"stale,omitempty"`
}

func (c *citer) site(path string, line, col uint32) *Site {
	l := c.loc(path, int(line), int(line))
	return &Site{Path: path, Line: int(line), Column: int(col) + 1, Revision: l.Revision, Stale: l.Stale}
}

// HopView is a symbol reached through the call or type graph.
type HopView struct {
	SymbolID graph.SymbolID `json:"symbol_id"`
	Name     string         `json:"name"`
	Kind     string         `json:"kind,omitempty"`
	// Definition is absent for symbols outside the index (libraries).
	Definition *Loc           `json:"definition,omitempty"`
	Depth      int            `json:"depth" jsonschema:"1: direct"`
	Edge       string         `json:"edge" jsonschema:"calls, implements, extends, overrides"`
	CallSite   *Site          `json:"call_site,omitempty" jsonschema:"where the first edge of this hop is written"`
	Sites      int            `json:"sites" jsonschema:"edges between the same pair"`
	Confidence string         `json:"confidence" jsonschema:"precise (compiler-grade), resolved (by cairn's resolver), heuristic, name-only"`
	Ambiguous  bool           `json:"ambiguous,omitempty" jsonschema:"an edge on the way had several possible targets"`
	Via        graph.SymbolID `json:"via" jsonschema:"the symbol one step closer to the root"`
}

func (c *citer) hop(h *graph.Hop) HopView {
	v := HopView{SymbolID: h.Symbol, Depth: h.Depth, Edge: h.Via.Kind.String(), Sites: h.Sites,
		Confidence: h.Confidence.String(), Ambiguous: h.Ambiguous, Via: h.Next}
	if h.Def != nil {
		v.Name, v.Kind = h.Def.QualifiedName(), h.Def.Kind.String()
		l := c.loc(h.Def.Path, int(h.Def.Range.StartLine), int(h.Def.Range.EndLine))
		v.Definition = &l
	} else {
		v.Name = h.Symbol.Display()
		if h.Symbol.IsHeuristic() {
			v.Kind, v.Name = "module", graph.ModuleDisplay(h.Symbol)
		}
	}
	if h.Via.Path != "" {
		v.CallSite = c.site(h.Via.Path, h.Via.Range.StartLine, h.Via.Range.StartCol)
	}
	return v
}
