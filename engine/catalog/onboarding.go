package catalog

import "github.com/cairn-dev/cairn/engine"

// The onboarding questions: the repository's most central definitions,
// its entry points, its package dependency graph and the index's state.

// RepoMapIn is the input of repo_map.
type RepoMapIn struct {
	Under  string `json:"under,omitempty" jsonschema:"only definitions under this directory"`
	Limit  int    `json:"limit,omitempty" jsonschema:"definitions per page, 1-100 (default 30); the 1000 most central are listed"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// RepoMapOut is the output of repo_map.
type RepoMapOut struct {
	Index      IndexView         `json:"index"`
	Symbols    []engine.MapEntry `json:"symbols"`
	NextCursor string            `json:"next_cursor,omitempty"`
}

var repoMapTool = tool("repo_map", "Repository map",
	"The repository's most central definitions (PageRank over references), optionally under a directory: an overview of an unfamiliar codebase.",
	"", false, nil, repoMap)

func repoMap(c *call, in RepoMapIn) (RepoMapOut, string, error) {
	limit, err := inRange("limit", in.Limit, 30, 1, 100)
	if err != nil {
		return RepoMapOut{}, "", err
	}
	key := in
	key.Cursor = ""
	off, err := c.offset(in.Cursor, key)
	if err != nil {
		return RepoMapOut{}, "", err
	}
	res, err := c.snap.Map(c.ctx, engine.MapOptions{Under: in.Under, Limit: engine.MaxCentral})
	if err != nil {
		return RepoMapOut{}, "", err
	}
	answer, err := page(c, res.Symbols, off, limit, key, func(p []engine.MapEntry, next string) RepoMapOut {
		stale := 0
		for _, e := range p {
			stale += b2i(e.Stale)
		}
		return RepoMapOut{Index: indexView(c.snap, stale), Symbols: p, NextCursor: next}
	})
	return answer, "", err
}

// EntryPointsIn is the input of entry_points.
type EntryPointsIn struct {
	Under  string   `json:"under,omitempty" jsonschema:"only entry points in this file or under this directory"`
	Kinds  []string `json:"kinds,omitempty" jsonschema:"only these kinds: http, main, cli, job (the default, all four), test, ui, loader"`
	Limit  int      `json:"limit,omitempty" jsonschema:"entry points per page, 1-200 (default 50); the first 5000 are listed"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// EntryPointsOut is the output of entry_points.
type EntryPointsOut struct {
	Index       IndexView           `json:"index"`
	EntryPoints []engine.EntryPoint `json:"entry_points"`
	Counts      map[string]int      `json:"counts" jsonschema:"entry points found, by kind"`
	// Truncated: more entry points exist than were listed (5000).
	Truncated  bool   `json:"truncated,omitempty"`
	NextCursor string `json:"next_cursor,omitempty"`
}

var entryPointsTool = tool("entry_points", "Entry points",
	"Where execution starts: HTTP routes (with method and path, and where each is registered), mains, CLI commands and jobs, classified as trace classifies the start of a call path. Start here to learn how requests and commands enter an unfamiliar codebase.",
	"", false, nil, entryPoints)

func entryPoints(c *call, in EntryPointsIn) (EntryPointsOut, string, error) {
	limit, err := inRange("limit", in.Limit, 50, 1, 200)
	if err != nil {
		return EntryPointsOut{}, "", err
	}
	key := in
	key.Cursor = ""
	off, err := c.offset(in.Cursor, key)
	if err != nil {
		return EntryPointsOut{}, "", err
	}
	res, err := c.snap.EntryPoints(c.ctx, engine.EntryPointsOptions{Under: in.Under, Kinds: in.Kinds, Limit: engine.MaxEntryPoints})
	if err != nil {
		return EntryPointsOut{}, "", err
	}
	answer, err := page(c, res.EntryPoints, off, limit, key, func(p []engine.EntryPoint, next string) EntryPointsOut {
		stale := 0
		for _, e := range p {
			stale += b2i(e.Func.Stale)
		}
		return EntryPointsOut{Index: indexView(c.snap, stale), EntryPoints: p, Counts: res.Counts, Truncated: res.Truncated, NextCursor: next}
	})
	return answer, "", err
}

// PackageGraphIn is the input of package_graph.
type PackageGraphIn struct {
	Under string `json:"under,omitempty" jsonschema:"only the directories under this one"`
	Depth int    `json:"depth,omitempty" jsonschema:"collapse directories to their first N path elements below under, 1-32 (default: the deepest that keeps at most limit nodes)"`
	Limit int    `json:"limit,omitempty" jsonschema:"most nodes, 1-1000 (default 40); past it the smallest are left out and counted"`
}

// PackageGraphOut is the output of package_graph. Its trimming count is
// omitted_to_fit: the engine's answer has an omitted of its own (the
// nodes past limit).
type PackageGraphOut struct {
	Index IndexView `json:"index"`
	engine.PackageGraphResult
	Omitted map[string]int `json:"omitted_to_fit,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

var packageGraphTool = tool("package_graph", "Package dependency graph",
	"How the project's own packages depend on each other: a node per directory of code (files, lines, languages), an edge per import between them; libraries are counted, not drawn. Collapsed by directory depth to stay small on a large tree.",
	"", false, nil, packageGraph)

func packageGraph(c *call, in PackageGraphIn) (PackageGraphOut, string, error) {
	res, err := c.snap.PackageGraph(c.ctx, engine.PackageGraphOptions{Under: in.Under, Depth: in.Depth, Limit: in.Limit})
	if err != nil {
		return PackageGraphOut{}, "", err
	}
	out := PackageGraphOut{Index: ViewIndex(c.snap), PackageGraphResult: *res, Omitted: map[string]int{}}
	r := &out.PackageGraphResult
	err = fit(&out, c.opts.maxBytes(),
		func() bool { return halve(&r.Imports, out.Omitted, "imports", 1) },
		func() bool { return halve(&r.Packages, out.Omitted, "packages", 1) },
	)
	if err != nil {
		return PackageGraphOut{}, "", err
	}
	out.Omitted = noneEmpty(out.Omitted)
	return out, "", nil
}

// StatusIn is the (empty) input of index_status.
type StatusIn struct{}

// StatusOut is the output of index_status.
type StatusOut struct {
	Index IndexView `json:"index"`
	engine.StatusResult
}

var statusTool = tool("index_status", "Index status",
	"What the index holds and how fresh it is: revision, files changed since indexing, languages, files that could not be analysed. Call it when answers look outdated.",
	"", true, nil, indexStatus)

func indexStatus(c *call, _ StatusIn) (StatusOut, string, error) {
	st, err := c.snap.Status(c.ctx, engine.StatusOptions{})
	if err != nil {
		return StatusOut{}, "", err
	}
	return StatusOut{Index: ViewIndex(c.snap), StatusResult: *st}, "", nil
}
