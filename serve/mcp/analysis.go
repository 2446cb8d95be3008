package mcp

import (
	"context"
	"encoding/json"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// trace and impact return one analysis, not a list: when it would exceed
// the cap, its longest lists are halved (flows first, then call paths,
// then sites and dependents) and Omitted says how many items each lost.
// Their locations are cited inline, as every location is.

// TraceIn is the input of trace.
type TraceIn struct {
	Target string `json:"target" jsonschema:"the value to follow: a field (Task.ArtifactURL), a column (tasks.artifact_url), a JSON or map key (artifact_url), a config key (config:server.port) or a variable"`
	Depth  int    `json:"depth,omitempty" jsonschema:"longest call path followed, 1-12 (default 8)"`
}

// TraceOut is the output of trace.
type TraceOut struct {
	Index IndexView `json:"index"`
	engine.TraceResult
	Omitted map[string]int `json:"omitted,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

func (s *Server) trace(ctx context.Context, snap *engine.Snapshot, in TraceIn) (TraceOut, string, error) {
	res, err := snap.Trace(ctx, engine.TraceOptions{Target: in.Target, Depth: in.Depth})
	if err != nil {
		return TraceOut{}, "", err
	}
	out := TraceOut{Index: viewIndex(snap), TraceResult: *res, Omitted: map[string]int{}}
	r := &out.Result
	s.fit(&out, []func() bool{
		// flows and call paths restate the sites: they go first, entirely
		func() bool { return halveTo(&r.Flows, out.Omitted, "flows", 0) },
		func() bool {
			cut := false
			for _, sites := range [][]trace.Site{r.Writes, r.Reads} {
				for i := range sites {
					cut = halveTo(&sites[i].Paths, out.Omitted, "call_paths", 0) || cut
				}
			}
			return cut
		},
		func() bool { return halve(&r.Reads, out.Omitted, "reads") || halve(&r.Writes, out.Omitted, "writes") },
		func() bool { return halve(&r.Carriers, out.Omitted, "carriers") || halve(&r.Gaps, out.Omitted, "gaps") },
	})
	if len(out.Omitted) == 0 {
		out.Omitted = nil
	}
	return out, "", nil
}

// ImpactIn is the input of impact.
type ImpactIn struct {
	Symbol  string `json:"symbol,omitempty" jsonschema:"the symbol to change: a name, a qualified name or a symbol_id"`
	Path    string `json:"path,omitempty" jsonschema:"with symbol: only definitions in this file or under this directory"`
	Kind    string `json:"kind,omitempty" jsonschema:"with symbol: only definitions of this kind"`
	All     bool   `json:"all,omitempty" jsonschema:"with symbol: when it denotes several definitions, analyse all of them instead of asking which"`
	Diff    string `json:"diff,omitempty" jsonschema:"instead of symbol: analyse the changes since this git revision"`
	Staged  bool   `json:"staged,omitempty" jsonschema:"instead of symbol: analyse the staged changes"`
	Working bool   `json:"working,omitempty" jsonschema:"instead of symbol: analyse the working tree's changes against HEAD"`
	Depth   int    `json:"depth,omitempty" jsonschema:"levels of dependents listed, 1-6 (default 3)"`
}

// ImpactOut is the output of impact.
type ImpactOut struct {
	Index IndexView `json:"index"`
	engine.ImpactResult
	Omitted map[string]int `json:"omitted,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

func (s *Server) impact(ctx context.Context, snap *engine.Snapshot, in ImpactIn) (ImpactOut, string, error) {
	res, err := snap.Impact(ctx, engine.ImpactOptions{Name: in.Symbol, Path: in.Path, Kind: in.Kind, All: in.All,
		Diff: in.Diff, Staged: in.Staged, Working: in.Working, Depth: in.Depth})
	if err != nil {
		return ImpactOut{}, "", err
	}
	out := ImpactOut{Index: viewIndex(snap), ImpactResult: *res, Omitted: map[string]int{}}
	r := &out.Result
	s.fit(&out, []func() bool{
		func() bool { return halve(&r.Dependents, out.Omitted, "dependents") },
		func() bool { return halve(&r.Tests, out.Omitted, "tests") },
		func() bool {
			return halve(&r.Implementations, out.Omitted, "implementations") || halve(&r.Risk.Untested, out.Omitted, "untested")
		},
		func() bool { return halve(&r.Changed, out.Omitted, "changed") },
	})
	if len(out.Omitted) == 0 {
		out.Omitted = nil
	}
	return out, "", nil
}

// halve drops the second half of a list (keeping at least one item).
func halve[T any](list *[]T, omitted map[string]int, name string) bool {
	return halveTo(list, omitted, name, 1)
}

// halveTo drops the second half of a list, keeping at least least items.
func halveTo[T any](list *[]T, omitted map[string]int, name string, least int) bool {
	n := len(*list)
	if n <= least {
		return false
	}
	keep := max(least, n/2)
	omitted[name] += n - keep
	*list = (*list)[:keep]
	return true
}

// fit applies trims in order while out's JSON exceeds the cap.
func (s *Server) fit(out any, trims []func() bool) {
	for i := 0; i < len(trims); {
		b, _ := json.Marshal(out)
		if len(b) <= s.opts.MaxBytes {
			return
		}
		if !trims[i]() {
			i++
		}
	}
}
