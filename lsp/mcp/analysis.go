package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/impact"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// trace and impact return one analysis, not a list: when it would exceed
// the cap, its longest lists are halved (flows first, then call paths,
// then sites and dependents) and Omitted says how many items each lost.
// Their locations (path and line) are cited through Revisions.

// TraceIn is the input of trace.
type TraceIn struct {
	Target string `json:"target" jsonschema:"the value to follow: a field (Task.ArtifactURL), a column (tasks.artifact_url), a JSON or map key (artifact_url), a config key (config:server.port) or a variable"`
	Depth  int    `json:"depth,omitempty" jsonschema:"longest call path followed, 1-12 (default 8)"`
}

// TraceOut is the output of trace.
type TraceOut struct {
	Index IndexView `json:"index"`
	trace.Result
	// Revisions cites every path in the answer: path → revision.
	Revisions map[string]string `json:"revisions" jsonschema:"revision of every file the answer cites (path → revision)"`
	Omitted   map[string]int    `json:"omitted,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

func (s *Server) trace(ctx context.Context, snap *engine.Snapshot, in TraceIn) (TraceOut, string, error) {
	var zero TraceOut
	if strings.TrimSpace(in.Target) == "" {
		return zero, "", engine.Errorf(engine.InvalidArgument, "empty target")
	}
	depth, err := inRange("depth", in.Depth, 8, 1, 12)
	if err != nil {
		return zero, "", err
	}
	opts := trace.Options{Depth: depth, Root: snap.Root}
	if snap.Texts != nil {
		opts.Texts = snap.Texts
	}
	res, err := trace.Trace(ctx, snap.R, in.Target, opts)
	if errors.Is(err, trace.ErrNoTarget) {
		return zero, "", engine.Errorf(engine.NotFound, "%v; try search to find how the value is spelled", err)
	}
	if err != nil {
		return zero, "", err
	}
	out := TraceOut{Index: viewIndex(snap), Result: *res, Omitted: map[string]int{}}
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
	}, func() { out.Revisions = s.revisions(ctx, snap, &out) })
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
	Diff    string `json:"diff,omitempty" jsonschema:"instead of symbol: analyse the changes since this git revision"`
	Staged  bool   `json:"staged,omitempty" jsonschema:"instead of symbol: analyse the staged changes"`
	Working bool   `json:"working,omitempty" jsonschema:"instead of symbol: analyse the working tree's changes against HEAD"`
	Depth   int    `json:"depth,omitempty" jsonschema:"levels of dependents listed, 1-6 (default 3)"`
}

// ImpactOut is the output of impact.
type ImpactOut struct {
	Index IndexView `json:"index"`
	impact.Result
	Revisions map[string]string `json:"revisions" jsonschema:"revision of every file the answer cites (path → revision)"`
	Omitted   map[string]int    `json:"omitted,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

var gitRevRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]*$`)

func (s *Server) impact(ctx context.Context, snap *engine.Snapshot, in ImpactIn) (ImpactOut, string, error) {
	var zero ImpactOut
	modes := 0
	for _, on := range []bool{in.Symbol != "", in.Diff != "", in.Staged, in.Working} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return zero, "", engine.Errorf(engine.InvalidArgument, "give exactly one of symbol, diff, staged, working")
	}
	depth, err := inRange("depth", in.Depth, 3, 1, 6)
	if err != nil {
		return zero, "", err
	}
	o := impact.Options{Depth: depth, Root: snap.Root}
	var res *impact.Result
	if in.Symbol != "" {
		defs, err := snap.Resolve(ctx, in.Symbol, in.Path, in.Kind, false)
		if err != nil {
			return zero, "", err
		}
		for i := range defs {
			defs[i].Doc = "named"
		}
		if res, err = impact.Analyze(ctx, snap.R, defs, o); err != nil {
			return zero, "", err
		}
		res.Target = in.Symbol
	} else {
		if in.Diff != "" && (!gitRevRE.MatchString(in.Diff) || strings.Contains(in.Diff, "..")) {
			return zero, "", engine.Errorf(engine.InvalidArgument, "diff %q is not a revision", in.Diff)
		}
		if res, err = impact.ForDiff(ctx, snap.R, impact.Diff{Rev: in.Diff, Staged: in.Staged}, o); err != nil {
			if strings.Contains(err.Error(), "revision") || strings.Contains(err.Error(), "git") {
				return zero, "", engine.Errorf(engine.InvalidArgument, "%v", err)
			}
			return zero, "", err
		}
	}
	out := ImpactOut{Index: viewIndex(snap), Result: *res, Omitted: map[string]int{}}
	r := &out.Result
	s.fit(&out, []func() bool{
		func() bool { return halve(&r.Dependents, out.Omitted, "dependents") },
		func() bool { return halve(&r.Tests, out.Omitted, "tests") },
		func() bool {
			return halve(&r.Implementations, out.Omitted, "implementations") || halve(&r.Risk.Untested, out.Omitted, "untested")
		},
		func() bool { return halve(&r.Changed, out.Omitted, "changed") },
	}, func() { out.Revisions = s.revisions(ctx, snap, &out) })
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

// fit applies trims in order while out's JSON exceeds the cap; cite
// recomputes what depends on the remaining content.
func (s *Server) fit(out any, trims []func() bool, cite func()) {
	cite()
	for i := 0; i < len(trims); {
		b, _ := json.Marshal(out)
		if len(b) <= s.opts.MaxBytes {
			return
		}
		if !trims[i]() {
			i++
		}
		cite()
	}
}

// revisions cites every "path" in v's JSON.
func (s *Server) revisions(ctx context.Context, snap *engine.Snapshot, v any) map[string]string {
	b, _ := json.Marshal(v)
	var tree any
	json.Unmarshal(b, &tree)
	out := map[string]string{}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if p, ok := x["path"].(string); ok && p != "" {
				if _, done := out[p]; !done {
					rev, _ := snap.Cite(ctx, p)
					out[p] = rev
				}
			}
			for k, y := range x {
				if k != "revisions" {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(tree)
	return out
}
