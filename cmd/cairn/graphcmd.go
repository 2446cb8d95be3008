package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/diagram"
)

type hopsQuestion func(snap *engine.Snapshot, ctx context.Context, o engine.HopsOptions) (*engine.HopsResult, error)

// hopsCmd is callers, callees or implementations; up says that a hop
// points at the symbol it was reached from (a caller calls it, an
// implementation implements it), for the drawn graph's arrows.
func hopsCmd(g *globals, use, short string, defaultDepth int, up bool, ask hopsQuestion) *cobra.Command {
	var nf nameFlags
	var gf graphFlags
	var depth int
	var all bool
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.
SYMBOL must denote one definition: a name denoting several is an ambiguous error
listing them (pick one by its symbol id, narrow with --path or --kind, or pass --all).
The text answer is a tree: each symbol under the one it was reached from.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := gf.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			return g.ask(ctx, args[0], func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := ask(snap, ctx, engine.HopsOptions{Name: args[0], Path: nf.path, Kind: nf.kind, Depth: depth, All: all})
				if err != nil {
					return nil, err
				}
				env.Results, env.Roots, env.Truncated = res.Results, res.Roots, res.Truncated
				g.setUnknown(ctx, snap.R, env)
				return func() error {
					if gf.drawn() {
						return gf.write(g.stdout, hopsDiagram(res, up))
					}
					writeHopsTree(g.stdout, args[0], res)
					if len(res.Results) == 0 {
						// an answer (nothing calls it), not a failure: exit 0
						fmt.Fprintln(g.stderr, "none found")
					}
					if res.Truncated {
						fmt.Fprintf(g.stderr, "stopped at %d symbols: narrow the question (--depth)\n", len(res.Results))
					}
					return nil
				}, nil
			})
		},
	}
	nf.add(c)
	gf.add(c)
	c.Flags().IntVar(&depth, "depth", defaultDepth, fmt.Sprintf("levels to follow, 1-%d", engine.MaxHopDepth))
	c.Flags().BoolVar(&all, "all", false, "when SYMBOL denotes several definitions, follow all of them")
	return c
}

// writeHopsTree prints a traversal as a tree, depth first: each symbol on
// its own line under the one it was reached from (its via), indented by
// its depth. The engine's results are breadth first; printing them in
// that order put a deeper symbol under whichever line came last.
func writeHopsTree(w io.Writer, name string, res *engine.HopsResult) {
	children := map[graph.SymbolID][]int{}
	for i, v := range res.Results {
		children[v.Via] = append(children[v.Via], i)
	}
	printed := make([]bool, len(res.Results))
	var walk func(id graph.SymbolID)
	walk = func(id graph.SymbolID) {
		for _, i := range children[id] {
			if printed[i] {
				continue
			}
			printed[i] = true
			writeHop(w, res.Results[i])
			walk(res.Results[i].SymbolID)
		}
	}
	for _, r := range res.Roots {
		if len(res.Roots) > 1 {
			fmt.Fprintf(w, "%s\t%s:%d\t[root: one of %d definitions of %q]\n", r.QualifiedName, r.Path, r.StartLine, len(res.Roots), name)
		}
		walk(r.SymbolID)
	}
	for i, v := range res.Results { // reached from none of the roots: never expected, never dropped
		if !printed[i] {
			printed[i] = true
			writeHop(w, v)
			walk(v.SymbolID)
		}
	}
}

func writeHop(w io.Writer, v graph.HopView) {
	loc := ""
	if v.Definition != nil {
		loc = fmt.Sprintf("%s:%d", v.Definition.Path, v.Definition.StartLine)
	}
	site := ""
	if v.CallSite != nil {
		site = fmt.Sprintf(" at %s:%d", v.CallSite.Path, v.CallSite.StartLine)
	}
	amb := ""
	if v.Ambiguous {
		amb = ", ambiguous"
	}
	fmt.Fprintf(w, "%s%s\t%s\t[%s %s%s]%s\n", strings.Repeat("  ", max(v.Depth-1, 0)), v.Name, loc, v.Edge, v.Confidence, amb, site)
}

// hopsDiagram draws a traversal: the roots (ovals) and every symbol
// reached, each joined to the one it was reached from.
func hopsDiagram(res *engine.HopsResult, up bool) *diagram.Graph {
	d := diagram.New()
	for _, r := range res.Roots {
		d.Node(string(r.SymbolID), r.QualifiedName+"\n"+fmt.Sprintf("%s:%d", r.Path, r.StartLine), diagram.Oval)
	}
	for _, v := range res.Results {
		label := v.Name
		if v.Definition != nil {
			label += fmt.Sprintf("\n%s:%d", v.Definition.Path, v.Definition.StartLine)
		}
		d.Node(string(v.SymbolID), label, diagram.Box)
	}
	for _, v := range res.Results {
		if !d.Has(string(v.Via)) {
			continue
		}
		label := v.Edge
		if v.Confidence != "" {
			label += " (" + v.Confidence + ")"
		}
		if up {
			d.Edge(string(v.SymbolID), string(v.Via), label)
		} else {
			d.Edge(string(v.Via), string(v.SymbolID), label)
		}
	}
	return d
}

func callersCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "callers SYMBOL", "who calls SYMBOL, transitively up to --depth", 1, true, (*engine.Snapshot).Callers)
}

func calleesCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "callees SYMBOL", "what SYMBOL calls, transitively up to --depth", 1, false, (*engine.Snapshot).Callees)
}

func implementationsCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "implementations SYMBOL", "types implementing or extending SYMBOL, methods overriding it",
		engine.DefaultImplementationsDepth, true, (*engine.Snapshot).Implementations)
}

func pathCmd(g *globals) *cobra.Command {
	var depth, limit int
	var gf graphFlags
	c := &cobra.Command{
		Use:   "path FROM TO",
		Short: "shortest call paths from FROM to TO (every definition of either name takes part)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := gf.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			return g.ask(ctx, args[0]+" -> "+args[1], func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.Paths(ctx, engine.PathsOptions{From: args[0], To: args[1], MaxDepth: depth, Limit: limit})
				if err != nil {
					return nil, err
				}
				if len(res.Paths) == 0 {
					return nil, engine.Errorf(engine.NotFound, "no call or dependency path from %s to %s within %d edges", args[0], args[1], depth)
				}
				env.Results = res.Paths
				return func() error {
					if gf.drawn() {
						return gf.write(g.stdout, pathsDiagram(res))
					}
					for i, p := range res.Paths {
						if res.Dependency {
							fmt.Fprintf(g.stdout, "path %d (%d edges; no call path: the dependency chain impact follows):\n", i+1, len(p))
						} else {
							fmt.Fprintf(g.stdout, "path %d (%d calls):\n", i+1, len(p))
						}
						for _, e := range p {
							kind := ""
							if e.Kind != "calls" {
								kind = e.Kind + ", "
							}
							fmt.Fprintf(g.stdout, "  %s -> %s\t%s:%d [%s%s]\n", e.FromName, e.ToName, e.Site.Path, e.Site.StartLine, kind, e.Confidence)
						}
					}
					return nil
				}, nil
			})
		},
	}
	gf.add(c)
	c.Flags().IntVar(&depth, "depth", engine.DefaultTestDepth, fmt.Sprintf("longest path to look for, 1-%d (impact looks for tests as far by default)", engine.MaxPathDepth))
	c.Flags().IntVar(&limit, "limit", 10, fmt.Sprintf("most paths to print, 1-%d", engine.MaxPaths))
	return c
}

// pathsDiagram draws call paths: each symbol once, each call once, labelled
// with its site; the paths' ends are ovals.
func pathsDiagram(res *engine.PathsResult) *diagram.Graph {
	d := diagram.New()
	d.LeftToRight = true
	for _, p := range res.Paths {
		for i, e := range p {
			shape := diagram.Box
			if i == 0 {
				shape = diagram.Oval
			}
			d.Node(string(e.From), e.FromName, shape)
			shape = diagram.Box
			if i == len(p)-1 {
				shape = diagram.Oval
			}
			d.Node(string(e.To), e.ToName, shape)
		}
	}
	for _, p := range res.Paths {
		for _, e := range p {
			d.Edge(string(e.From), string(e.To), fmt.Sprintf("%s:%d (%s)", e.Site.Path, e.Site.StartLine, e.Confidence))
		}
	}
	return d
}
