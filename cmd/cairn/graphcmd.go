package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
)

type hopsQuestion func(snap *engine.Snapshot, ctx context.Context, o engine.HopsOptions) (*engine.HopsResult, error)

func hopsCmd(g *globals, use, short string, defaultDepth int, ask hopsQuestion) *cobra.Command {
	var nf nameFlags
	var depth int
	var all bool
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.
SYMBOL must denote one definition: a name denoting several is an ambiguous error
listing them (pick one by its symbol id, narrow with --path or --kind, or pass --all).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return g.ask(ctx, args[0], func(snap *engine.Snapshot, env *envelope) (func(), error) {
				res, err := ask(snap, ctx, engine.HopsOptions{Name: args[0], Path: nf.path, Kind: nf.kind, Depth: depth, All: all})
				if err != nil {
					return nil, err
				}
				env.Results, env.Roots, env.Truncated = res.Results, res.Roots, res.Truncated
				env.Unknown = unanalysed(ctx, snap.R)
				return func() {
					if len(res.Roots) > 1 {
						fmt.Fprintf(g.stdout, "%q has %d definitions; showing all of them\n", args[0], len(res.Roots))
					}
					for _, v := range res.Results {
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
						fmt.Fprintf(g.stdout, "%s%s\t%s\t[%s %s%s]%s\n", strings.Repeat("  ", v.Depth-1), v.Name, loc, v.Edge, v.Confidence, amb, site)
					}
					if len(res.Results) == 0 {
						fmt.Fprintln(g.stderr, "none found")
					}
					if res.Truncated {
						fmt.Fprintf(g.stderr, "stopped at %d symbols: narrow the question (--depth)\n", len(res.Results))
					}
				}, nil
			})
		},
	}
	nf.add(c)
	c.Flags().IntVar(&depth, "depth", defaultDepth, fmt.Sprintf("levels to follow, 1-%d", engine.MaxHopDepth))
	c.Flags().BoolVar(&all, "all", false, "when SYMBOL denotes several definitions, follow all of them")
	return c
}

func callersCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "callers SYMBOL", "who calls SYMBOL, transitively up to --depth", 1, (*engine.Snapshot).Callers)
}

func calleesCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "callees SYMBOL", "what SYMBOL calls, transitively up to --depth", 1, (*engine.Snapshot).Callees)
}

func implementationsCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "implementations SYMBOL", "types implementing or extending SYMBOL, methods overriding it",
		engine.DefaultImplementationsDepth, (*engine.Snapshot).Implementations)
}

func pathCmd(g *globals) *cobra.Command {
	var depth, limit int
	c := &cobra.Command{
		Use:   "path FROM TO",
		Short: "shortest call paths from FROM to TO (every definition of either name takes part)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return g.ask(ctx, args[0]+" -> "+args[1], func(snap *engine.Snapshot, env *envelope) (func(), error) {
				res, err := snap.Paths(ctx, engine.PathsOptions{From: args[0], To: args[1], MaxDepth: depth, Limit: limit})
				if err != nil {
					return nil, err
				}
				if len(res.Paths) == 0 {
					return nil, engine.Errorf(engine.NotFound, "no call or dependency path from %s to %s within %d edges", args[0], args[1], depth)
				}
				env.Results = res.Paths
				return func() {
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
				}, nil
			})
		},
	}
	c.Flags().IntVar(&depth, "depth", engine.DefaultTestDepth, fmt.Sprintf("longest path to look for, 1-%d (impact looks for tests as far by default)", engine.MaxPathDepth))
	c.Flags().IntVar(&limit, "limit", 10, fmt.Sprintf("most paths to print, 1-%d", engine.MaxPaths))
	return c
}
