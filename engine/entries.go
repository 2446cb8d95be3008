package engine

import (
	"context"
	"slices"

	"github.com/cairn-dev/cairn/retrieval/trace"
)

// MaxEntryPoints bounds EntryPointsOptions.Limit.
const MaxEntryPoints = 5000

// EntryPointsOptions ask which entry points the repository has.
type EntryPointsOptions struct {
	// Under keeps entry points in this file or under this directory; one
	// the index holds no file under is not_found.
	Under string
	// Kinds keeps these kinds: http, main, cli, job (the default, all
	// four), test, ui, loader.
	Kinds []string
	// Limit is the most listed, 1 to MaxEntryPoints (default 500).
	Limit int
}

// EntryPointsResult lists entry points (trace.Entries: each a trace.Entry,
// the kind and label a trace gives the function its paths start from, the
// function cited through the snapshot and, for a route or command bound by
// a call, where it is bound).
type EntryPointsResult struct {
	trace.Entries
}

// entryKinds are the kinds a trace gives entry points.
var entryKinds = []string{"http", "main", "cli", "job", "test", "ui", "loader"}

// EntryPoints lists the repository's entry points — HTTP routes, mains,
// CLI commands and jobs — by the rules a trace classifies the start of a
// call path with (trace.EntryPoints says where it looks).
func (s *Snapshot) EntryPoints(ctx context.Context, o EntryPointsOptions) (*EntryPointsResult, error) {
	limit, err := bounded("limit", o.Limit, 500, 1, MaxEntryPoints)
	if err != nil {
		return nil, err
	}
	for _, k := range o.Kinds {
		if !slices.Contains(entryKinds, k) {
			return nil, Errorf(InvalidArgument, "kind %s: entry points are of kind %v", Quote(k), entryKinds)
		}
	}
	under, err := cleanUnder(o.Under)
	if err != nil {
		return nil, err
	}
	if under != "" {
		if err := s.indexedUnder(ctx, under); err != nil {
			return nil, err
		}
	}
	eo := trace.EntryOptions{Under: under, Kinds: o.Kinds, Limit: limit, Root: s.Root, Cite: s.CiteFunc(ctx)}
	if s.Files != nil {
		eo.Files = s.Files
	}
	res, err := trace.EntryPoints(ctx, s.R, eo)
	if err != nil {
		return nil, Classify(err)
	}
	return &EntryPointsResult{Entries: *res}, nil
}
