package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

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
// a call, where it is bound). The list is found once per generation and
// kind set (Memo); its citations are made for each request.
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
	// the list is a function of the generation: found once (Memo), cited
	// for each request
	v, err := s.Memo("entries\x00"+under+"\x00"+strings.Join(o.Kinds, "+"), func() (any, error) {
		eo := trace.EntryOptions{Under: under, Kinds: o.Kinds, Limit: MaxEntryPoints, Root: s.Root}
		if s.Files != nil {
			eo.Files = s.Files
		}
		return trace.EntryPoints(ctx, s.R, eo)
	})
	if err != nil {
		return nil, Classify(err)
	}
	all := v.(*trace.Entries)
	res := &EntryPointsResult{Entries: trace.Entries{EntryPoints: slices.Clone(all.EntryPoints), Counts: maps.Clone(all.Counts), Truncated: all.Truncated}}
	if len(res.EntryPoints) > limit {
		res.EntryPoints, res.Truncated = res.EntryPoints[:limit], true
	}
	for i := range res.EntryPoints {
		e := &res.EntryPoints[i]
		e.Func.Revision, e.Func.Stale = s.Cite(ctx, e.Func.Path)
		if e.Registered != nil {
			reg := *e.Registered
			reg.Revision, reg.Stale = s.Cite(ctx, reg.Path)
			e.Registered = &reg
		}
	}
	return res, nil
}
