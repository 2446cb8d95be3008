package catalog

import (
	"strings"

	"github.com/cairn-dev/cairn/engine"
)

// trace, impact and package_graph return one analysis, not a list: when it
// would exceed the budget, its lists are halved in the tool's order (for
// trace: flows, then call paths, then sites, then carriers and gaps; for
// impact: dependents, tests, implementations and untested callers, changed
// symbols) and Omitted says how many items each lost. Their locations are
// cited inline, as every location is.

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

var traceTool = tool("trace", "Trace a value",
	"Follow one value through the code: who writes and who reads a field, column, JSON or config key, through which call paths from which entry points (HTTP routes, main, CLI, jobs, tests), and where its path breaks (dropped by a mapper, never persisted, never written, never read).",
	"Who writes and who reads a field, column or config key, through which call paths, and where its path breaks.",
	true, nil, traceValue)

func traceValue(c *call, in TraceIn) (TraceOut, string, error) {
	if strings.TrimSpace(in.Target) == "" {
		return TraceOut{}, "", engine.Errorf(engine.InvalidArgument, "trace needs a target, such as Task.ArtifactURL")
	}
	res, err := c.snap.Trace(c.ctx, engine.TraceOptions{Target: in.Target, Depth: in.Depth})
	if err != nil {
		return TraceOut{}, "", err
	}
	out := TraceOut{Index: ViewIndex(c.snap), TraceResult: *res, Omitted: map[string]int{}}
	r := &out.Result
	err = fit(&out, c.opts.maxBytes(),
		// flows and call paths restate the sites: they go first, entirely
		func() bool { return halve(&r.Flows, out.Omitted, "flows", 0) },
		func() bool {
			cut := false
			for _, sites := range [][]engine.TraceSite{r.Writes, r.Reads} {
				for i := range sites {
					cut = halve(&sites[i].Paths, out.Omitted, "call_paths", 0) || cut
				}
			}
			return cut
		},
		func() bool {
			return halve(&r.Reads, out.Omitted, "reads", 1) || halve(&r.Writes, out.Omitted, "writes", 1)
		},
		func() bool {
			return halve(&r.Carriers, out.Omitted, "carriers", 1) || halve(&r.Gaps, out.Omitted, "gaps", 1)
		},
	)
	if err != nil {
		return TraceOut{}, "", err
	}
	out.Omitted = noneEmpty(out.Omitted)
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
	Working bool   `json:"working,omitempty" jsonschema:"instead of symbol: analyse the working tree's changes (against HEAD; in an agent's workspace, since the task's base)"`
	Depth   int    `json:"depth,omitempty" jsonschema:"levels of dependents listed, 1-6 (default 3)"`
}

// ImpactOut is the output of impact.
type ImpactOut struct {
	Index IndexView `json:"index"`
	engine.ImpactResult
	Omitted map[string]int `json:"omitted,omitempty" jsonschema:"items left out to fit the size cap, by list"`
}

var impactTool = tool("impact", "Impact of a change",
	"What changing a symbol (or the current diff) affects: transitive dependents, implementations, the tests that reach it with commands to run exactly them, owners and a risk summary. Use before editing shared code.",
	"What changing a symbol or the current diff affects: dependents, tests to run, owners, risk.",
	true, nil, impact)

func impact(c *call, in ImpactIn) (ImpactOut, string, error) {
	o := engine.ImpactOptions{Name: in.Symbol, Path: in.Path, Kind: in.Kind, All: in.All,
		Diff: in.Diff, Staged: in.Staged, Working: in.Working, Depth: in.Depth}
	if o.Working && c.opts.Base != "" {
		// the agent's work is checkpointed as commits: its changes are
		// those since the task's base
		o.Working, o.Diff = false, c.opts.Base
		if in.Diff != "" {
			o.Working = true // still two modes: the engine refuses
		}
	}
	res, err := c.snap.Impact(c.ctx, o)
	if err != nil {
		return ImpactOut{}, "", err
	}
	out := ImpactOut{Index: ViewIndex(c.snap), ImpactResult: *res, Omitted: map[string]int{}}
	r := &out.Result
	err = fit(&out, c.opts.maxBytes(),
		func() bool { return halve(&r.Dependents, out.Omitted, "dependents", 1) },
		func() bool { return halve(&r.Tests, out.Omitted, "tests", 1) },
		func() bool {
			return halve(&r.Implementations, out.Omitted, "implementations", 1) || halve(&r.Risk.Untested, out.Omitted, "untested", 1)
		},
		func() bool { return halve(&r.Changed, out.Omitted, "changed", 1) },
	)
	if err != nil {
		return ImpactOut{}, "", err
	}
	out.Omitted = noneEmpty(out.Omitted)
	return out, "", nil
}
