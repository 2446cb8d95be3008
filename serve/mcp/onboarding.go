package mcp

import (
	"context"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// The onboarding questions: a repository's entry points and its package
// dependency graph (engine.EntryPoints, engine.PackageGraph).

// EntryPointsIn is the input of entry_points.
type EntryPointsIn struct {
	Under  string   `json:"under,omitempty" jsonschema:"only entry points in this file or under this directory"`
	Kinds  []string `json:"kinds,omitempty" jsonschema:"only these kinds: http, main, cli, job (the default, all four), test, ui, loader"`
	Limit  int      `json:"limit,omitempty" jsonschema:"entry points per page, 1-200 (default 50); the first 5000 are listed"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// EntryPointsOut is the output of entry_points.
type EntryPointsOut struct {
	Index       IndexView      `json:"index"`
	EntryPoints []trace.Entry  `json:"entry_points"`
	Counts      map[string]int `json:"counts" jsonschema:"entry points found, by kind"`
	// Truncated: more entry points exist than were listed (5000).
	Truncated  bool   `json:"truncated,omitempty"`
	NextCursor string `json:"next_cursor,omitempty"`
}

func (s *Server) entryPoints(ctx context.Context, snap *engine.Snapshot, in EntryPointsIn) (EntryPointsOut, string, error) {
	limit, err := inRange("limit", in.Limit, 50, 1, 200)
	if err != nil {
		return EntryPointsOut{}, "", err
	}
	key := in
	key.Cursor = ""
	off, err := offsetOf(in.Cursor, "entry_points", key, snap.Meta.Generation)
	if err != nil {
		return EntryPointsOut{}, "", err
	}
	res, err := snap.EntryPoints(ctx, engine.EntryPointsOptions{Under: in.Under, Kinds: in.Kinds, Limit: engine.MaxEntryPoints})
	if err != nil {
		return EntryPointsOut{}, "", err
	}
	return page(s, res.EntryPoints, off, limit, "entry_points", key, snap.Meta.Generation, func(p []trace.Entry, next string) EntryPointsOut {
		stale := 0
		for _, e := range p {
			stale += b2i(e.Func.Stale)
		}
		return EntryPointsOut{Index: indexView(snap, stale), EntryPoints: p, Counts: res.Counts, Truncated: res.Truncated, NextCursor: next}
	}), "", nil
}

// PackageGraphIn is the input of package_graph.
type PackageGraphIn struct {
	Under string `json:"under,omitempty" jsonschema:"only the directories under this one"`
	Depth int    `json:"depth,omitempty" jsonschema:"collapse directories to their first N path elements below under, 1-32 (default: the deepest that keeps at most limit nodes)"`
	Limit int    `json:"limit,omitempty" jsonschema:"most nodes, 1-1000 (default 40); past it the smallest are left out and counted"`
}

// PackageGraphOut is the output of package_graph.
type PackageGraphOut struct {
	Index IndexView `json:"index"`
	engine.PackageGraphResult
	Omitted map[string]int `json:"omitted_to_fit,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

func (s *Server) packageGraph(ctx context.Context, snap *engine.Snapshot, in PackageGraphIn) (PackageGraphOut, string, error) {
	res, err := snap.PackageGraph(ctx, engine.PackageGraphOptions{Under: in.Under, Depth: in.Depth, Limit: in.Limit})
	if err != nil {
		return PackageGraphOut{}, "", err
	}
	out := PackageGraphOut{Index: viewIndex(snap), PackageGraphResult: *res, Omitted: map[string]int{}}
	r := &out.PackageGraphResult
	s.fit(&out, []func() bool{
		func() bool { return halve(&r.Imports, out.Omitted, "imports") },
		func() bool { return halve(&r.Packages, out.Omitted, "packages") },
	})
	if len(out.Omitted) == 0 {
		out.Omitted = nil
	}
	return out, "", nil
}
