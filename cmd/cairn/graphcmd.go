package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
)

// hopView is one result of callers, callees and implementations.
type hopView struct {
	Symbol     graph.SymbolID `json:"symbol"`
	Name       string         `json:"name"`
	Kind       string         `json:"kind,omitempty"`
	Path       string         `json:"path,omitempty"`
	StartLine  uint32         `json:"start_line,omitempty"`
	EndLine    uint32         `json:"end_line,omitempty"`
	Depth      int            `json:"depth"`
	Confidence string         `json:"confidence"`
	Ambiguous  bool           `json:"ambiguous,omitempty"`
	Edge       string         `json:"edge"`
	Site       *siteView      `json:"call_site,omitempty"`
	Sites      int            `json:"sites"`
	Via        graph.SymbolID `json:"via"`
}

type siteView struct {
	Path string `json:"path"`
	Line uint32 `json:"line"`
	Col  uint32 `json:"col"`
}

func viewHop(h *graph.Hop) hopView {
	v := hopView{Symbol: h.Symbol, Depth: h.Depth, Confidence: h.Confidence.String(), Ambiguous: h.Ambiguous,
		Edge: h.Via.Kind.String(), Sites: h.Sites, Via: h.Next}
	if h.Def != nil {
		v.Name, v.Kind, v.Path = h.Def.QualifiedName(), h.Def.Kind.String(), h.Def.Path
		v.StartLine, v.EndLine = h.Def.Range.StartLine, h.Def.Range.EndLine
	} else {
		v.Name = h.Symbol.Display()
		if h.Symbol.IsHeuristic() {
			v.Kind = "module"
			v.Name = graph.ModuleDisplay(h.Symbol)
		}
	}
	if h.Via.Path != "" {
		v.Site = &siteView{Path: h.Via.Path, Line: h.Via.Range.StartLine, Col: h.Via.Range.StartCol + 1}
	}
	return v
}

// rootsOf resolves a SYMBOL argument: a SCIP symbol, or a plain or qualified
// name (all its definitions are roots).
func rootsOf(ctx context.Context, r graph.Reader, arg string) ([]graph.SymbolID, []graph.Symbol, error) {
	if strings.Contains(arg, " ") {
		defs, err := r.SymbolsByID(ctx, graph.SymbolID(arg))
		if err != nil {
			return nil, nil, err
		}
		return []graph.SymbolID{graph.SymbolID(arg)}, defs, nil
	}
	defs, err := graph.FindDefinitions(ctx, r, arg)
	if err != nil {
		return nil, nil, err
	}
	if len(defs) == 0 {
		return nil, nil, notFound("no definition of %q", arg)
	}
	var ids []graph.SymbolID
	seen := map[graph.SymbolID]bool{}
	for _, d := range defs {
		if !seen[d.ID] {
			seen[d.ID] = true
			ids = append(ids, d.ID)
		}
	}
	return ids, defs, nil
}

type traverseFn func(ctx context.Context, r graph.Reader, roots []graph.SymbolID, depth int) ([]graph.Hop, error)

func hopsCmd(g *globals, use, short string, defaultDepth int, fn traverseFn) *cobra.Command {
	var depth int
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := g.openStore()
			if err != nil {
				return err
			}
			defer s.Close()
			m, err := s.Meta(ctx)
			if err != nil {
				return err
			}
			iv := g.indexOf(ctx, m, s)
			roots, defs, err := rootsOf(ctx, s, args[0])
			if err != nil {
				return err
			}
			hops, err := fn(ctx, s, roots, depth)
			if err != nil {
				return err
			}
			views := make([]hopView, len(hops))
			for i := range hops {
				views[i] = viewHop(&hops[i])
			}
			if g.json {
				rootViews := make([]graph.SymbolView, len(defs))
				for i := range defs {
					rootViews[i] = graph.ViewSymbol(&defs[i], nil)
				}
				return writeJSON(g.stdout, map[string]any{"query": args[0], "index": iv, "roots": rootViews,
					"results": views, "unknown": unanalysed(ctx, s)})
			}
			if len(roots) > 1 {
				fmt.Fprintf(g.stdout, "%q has %d definitions; showing all of them\n", args[0], len(roots))
			}
			for _, v := range views {
				loc := ""
				if v.Path != "" {
					loc = fmt.Sprintf("%s:%d", v.Path, v.StartLine)
				}
				site := ""
				if v.Site != nil {
					site = fmt.Sprintf(" at %s:%d", v.Site.Path, v.Site.Line)
				}
				amb := ""
				if v.Ambiguous {
					amb = ", ambiguous"
				}
				fmt.Fprintf(g.stdout, "%s%s\t%s\t[%s %s%s]%s\n", strings.Repeat("  ", v.Depth-1), v.Name, loc, v.Edge, v.Confidence, amb, site)
			}
			if len(views) == 0 && !g.json {
				fmt.Fprintln(g.stderr, "none found")
			}
			return nil
		},
	}
	c.Flags().IntVar(&depth, "depth", defaultDepth, "levels to follow")
	return c
}

func callersCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "callers SYMBOL", "who calls SYMBOL, transitively up to --depth", 1,
		func(ctx context.Context, r graph.Reader, roots []graph.SymbolID, depth int) ([]graph.Hop, error) {
			return graph.Callers(ctx, r, roots, graph.TraverseOptions{Depth: depth})
		})
}

func calleesCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "callees SYMBOL", "what SYMBOL calls, transitively up to --depth", 1,
		func(ctx context.Context, r graph.Reader, roots []graph.SymbolID, depth int) ([]graph.Hop, error) {
			return graph.Callees(ctx, r, roots, graph.TraverseOptions{Depth: depth})
		})
}

func implementationsCmd(g *globals) *cobra.Command {
	return hopsCmd(g, "implementations SYMBOL", "types implementing or extending SYMBOL, methods overriding it", 5,
		func(ctx context.Context, r graph.Reader, roots []graph.SymbolID, depth int) ([]graph.Hop, error) {
			return graph.Implementations(ctx, r, roots, depth)
		})
}

func pathCmd(g *globals) *cobra.Command {
	var depth, limit int
	c := &cobra.Command{
		Use:   "path FROM TO",
		Short: "shortest call paths from FROM to TO",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := g.openStore()
			if err != nil {
				return err
			}
			defer s.Close()
			m, err := s.Meta(ctx)
			if err != nil {
				return err
			}
			iv := g.indexOf(ctx, m, s)
			from, _, err := rootsOf(ctx, s, args[0])
			if err != nil {
				return err
			}
			to, _, err := rootsOf(ctx, s, args[1])
			if err != nil {
				return err
			}
			paths, err := graph.ShortestPaths(ctx, s, from, to, depth, limit)
			if err != nil {
				return err
			}
			type hop struct {
				From       graph.SymbolID `json:"from"`
				To         graph.SymbolID `json:"to"`
				Path       string         `json:"path"`
				Line       uint32         `json:"line"`
				Confidence string         `json:"confidence"`
				Ambiguous  bool           `json:"ambiguous,omitempty"`
			}
			var out [][]hop
			for _, p := range paths {
				var hs []hop
				for _, e := range p {
					hs = append(hs, hop{From: e.From, To: e.To, Path: e.Path, Line: e.Range.StartLine, Confidence: e.Confidence.String(), Ambiguous: e.Ambiguous})
				}
				out = append(out, hs)
			}
			if g.json {
				return writeJSON(g.stdout, map[string]any{"query": args[0] + " -> " + args[1], "index": iv, "results": out})
			}
			for i, p := range paths {
				fmt.Fprintf(g.stdout, "path %d (%d calls):\n", i+1, len(p))
				for _, e := range p {
					fmt.Fprintf(g.stdout, "  %s -> %s\t%s:%d [%s]\n", e.From.Display(), e.To.Display(), e.Path, e.Range.StartLine, e.Confidence)
				}
			}
			if len(paths) == 0 {
				return notFound("no call path from %s to %s within %d calls", args[0], args[1], depth)
			}
			return nil
		},
	}
	c.Flags().IntVar(&depth, "depth", 8, "longest path to look for")
	c.Flags().IntVar(&limit, "limit", 10, "most paths to print")
	return c
}
