package catalog

import (
	"context"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
)

// The graph questions: definitions, references, callers, callees and
// implementations of a symbol, in the views every surface shares
// (graph.SymbolView, graph.RefView, graph.HopView; schema/views.schema.json).

// SymbolIn names a symbol.
type SymbolIn struct {
	Symbol string `json:"symbol" jsonschema:"a name (Serve), a qualified name (Server.Serve, http.ListenAndServe) or a symbol_id from an earlier answer"`
	Path   string `json:"path,omitempty" jsonschema:"only definitions in this file or under this directory"`
	Kind   string `json:"kind,omitempty" jsonschema:"only definitions of this kind: function, method, class, struct, interface, type, field, variable, constant, ..."`
}

// DefinitionIn is the input of definition.
type DefinitionIn struct {
	SymbolIn
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// DefinitionOut is the output of definition.
type DefinitionOut struct {
	Index       IndexView          `json:"index"`
	Definitions []graph.SymbolView `json:"definitions"`
	Total       int                `json:"total"`
	NextCursor  string             `json:"next_cursor,omitempty"`
}

var definitionTool = tool("definition", "Go to definition",
	"Where a name is defined: plain (Serve), qualified (Server.Serve, http.ListenAndServe) or a symbol_id from an earlier answer. Lists every matching definition with signature and doc.",
	"Where a name is defined, with signature and doc.",
	false, nil, definition)

func definition(c *call, in DefinitionIn) (DefinitionOut, string, error) {
	off, err := c.offset(in.Cursor, in.SymbolIn)
	if err != nil {
		return DefinitionOut{}, "", err
	}
	res, err := c.snap.Definitions(c.ctx, engine.DefinitionsOptions{Name: in.Symbol, Path: in.Path, Kind: in.Kind})
	if err != nil {
		return DefinitionOut{}, "", err
	}
	answer, err := page(c, res.Definitions, off, 20, in.SymbolIn, func(p []graph.SymbolView, next string) DefinitionOut {
		return DefinitionOut{Index: indexView(c.snap, staleSymbols(p)), Definitions: p, Total: len(res.Definitions), NextCursor: next}
	})
	return answer, "", err
}

// ReferencesIn is the input of references.
type ReferencesIn struct {
	SymbolIn
	Role               string `json:"role,omitempty" jsonschema:"only references with this role: call, read, write, import, type, argument (a keyword argument binding a parameter)"`
	IncludeDefinitions bool   `json:"include_definitions,omitempty" jsonschema:"also list the definitions themselves"`
	Limit              int    `json:"limit,omitempty" jsonschema:"references per page, 1-200 (default 50)"`
	Cursor             string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// ReferencesOut is the output of references.
type ReferencesOut struct {
	Index IndexView `json:"index"`
	// Definitions are the definitions the symbol denotes (the first
	// engine.MaxCandidates of DefinitionsTotal).
	Definitions      []graph.SymbolView `json:"definitions" jsonschema:"the definitions the symbol denotes (none: defined outside the repository)"`
	DefinitionsTotal int                `json:"definitions_total"`
	References       []graph.RefView    `json:"references"`
	Total            int                `json:"total"`
	NextCursor       string             `json:"next_cursor,omitempty"`
}

var referencesTool = tool("references", "Find references",
	"Every use of a symbol with its role (call, read, write, import, type) and how sure the match is: uses resolved to its definitions, plus unresolved ones spelled alike (name-only); uses of other definitions are left out. Use before changing a symbol's signature or behaviour.",
	"Every use of a symbol, with its role (call, read, write, import, type) and confidence.",
	false, nil, references)

func references(c *call, in ReferencesIn) (ReferencesOut, string, error) {
	limit, err := inRange("limit", in.Limit, 50, 1, 200)
	if err != nil {
		return ReferencesOut{}, "", err
	}
	key := in
	key.Cursor = ""
	off, err := c.offset(in.Cursor, key)
	if err != nil {
		return ReferencesOut{}, "", err
	}
	res, err := c.snap.References(c.ctx, engine.ReferencesOptions{Name: in.Symbol, Path: in.Path, Kind: in.Kind, Roles: in.Role,
		IncludeDefinitions: in.IncludeDefinitions})
	if err != nil {
		return ReferencesOut{}, "", err
	}
	defs := res.Definitions[:min(len(res.Definitions), engine.MaxCandidates)]
	answer, err := page(c, res.References, off, limit, key, func(p []graph.RefView, next string) ReferencesOut {
		stale := 0
		for _, r := range p {
			stale += b2i(r.Stale)
		}
		return ReferencesOut{Index: indexView(c.snap, stale), Definitions: defs, DefinitionsTotal: len(res.Definitions),
			References: p, Total: len(res.References), NextCursor: next}
	})
	return answer, "", err
}

// HopsIn is the input of callers and callees.
type HopsIn struct {
	SymbolIn
	Depth  int    `json:"depth,omitempty" jsonschema:"levels to follow, 1-4 (default 1: direct only)"`
	All    bool   `json:"all,omitempty" jsonschema:"when the name denotes several definitions, follow all of them instead of asking which"`
	Limit  int    `json:"limit,omitempty" jsonschema:"results per page, 1-200 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// HopsOut is the output of callers, callees and implementations.
type HopsOut struct {
	Index      IndexView          `json:"index"`
	Roots      []graph.SymbolView `json:"roots" jsonschema:"the definitions the symbol denotes"`
	Results    []graph.HopView    `json:"results"`
	Total      int                `json:"total"`
	Truncated  bool               `json:"truncated,omitempty" jsonschema:"the traversal stopped at its cap: narrow the question"`
	NextCursor string             `json:"next_cursor,omitempty"`
}

var callersTool = tool("callers", "Callers",
	"Who calls a function or method, directly (depth 1) or transitively, with call sites. The symbol must denote one definition: an ambiguous name returns candidates to choose from.",
	"Who calls a function or method (depth 1-4), with call sites.",
	false, nil, hops((*engine.Snapshot).Callers))

var calleesTool = tool("callees", "Callees",
	"What a function or method calls, directly or transitively, with call sites. The symbol must denote one definition.",
	"",
	false, nil, hops((*engine.Snapshot).Callees))

func hops(ask func(*engine.Snapshot, context.Context, engine.HopsOptions) (*engine.HopsResult, error)) func(*call, HopsIn) (HopsOut, string, error) {
	return func(c *call, in HopsIn) (HopsOut, string, error) {
		depth, err := inRange("depth", in.Depth, 1, 1, 4)
		if err != nil {
			return HopsOut{}, "", err
		}
		return traverse(c, in, func(o engine.HopsOptions) (*engine.HopsResult, error) {
			o.Depth = depth
			return ask(c.snap, c.ctx, o)
		})
	}
}

// ImplementationsIn is the input of implementations.
type ImplementationsIn struct {
	SymbolIn
	All    bool   `json:"all,omitempty" jsonschema:"when the name denotes several definitions, follow all of them instead of asking which"`
	Limit  int    `json:"limit,omitempty" jsonschema:"results per page, 1-200 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

var implementationsTool = tool("implementations", "Implementations",
	"Types implementing an interface or extending a class, and methods overriding a method, transitively. The symbol must denote one definition.",
	"", false, nil, implementations)

func implementations(c *call, in ImplementationsIn) (HopsOut, string, error) {
	return traverse(c, HopsIn{SymbolIn: in.SymbolIn, All: in.All, Limit: in.Limit, Cursor: in.Cursor},
		func(o engine.HopsOptions) (*engine.HopsResult, error) {
			o.Depth = engine.DefaultImplementationsDepth
			return c.snap.Implementations(c.ctx, o)
		})
}

// traverse pages the answer of one traversal question.
func traverse(c *call, in HopsIn, ask func(engine.HopsOptions) (*engine.HopsResult, error)) (HopsOut, string, error) {
	limit, err := inRange("limit", in.Limit, 50, 1, 200)
	if err != nil {
		return HopsOut{}, "", err
	}
	key := in
	key.Cursor = ""
	off, err := c.offset(in.Cursor, key)
	if err != nil {
		return HopsOut{}, "", err
	}
	res, err := ask(engine.HopsOptions{Name: in.Symbol, Path: in.Path, Kind: in.Kind, All: in.All})
	if err != nil {
		return HopsOut{}, "", err
	}
	answer, err := page(c, res.Results, off, limit, key, func(p []graph.HopView, next string) HopsOut {
		stale := staleSymbols(res.Roots)
		for _, h := range p {
			if h.Definition != nil && h.Definition.Stale || h.CallSite != nil && h.CallSite.Stale {
				stale++
			}
		}
		return HopsOut{Index: indexView(c.snap, stale), Roots: res.Roots, Results: p, Total: len(res.Results), Truncated: res.Truncated, NextCursor: next}
	})
	return answer, "", err
}
