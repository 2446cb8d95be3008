package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// hitView is a search result as published.
type hitView struct {
	Path      string         `json:"path"`
	Symbol    string         `json:"symbol,omitempty"` // qualified name, when the hit is a definition
	SymbolID  graph.SymbolID `json:"symbol_id,omitempty"`
	Kind      string         `json:"kind"`
	StartLine uint32         `json:"start_line"`
	EndLine   uint32         `json:"end_line"`
	Score     float64        `json:"score"`
	Why       string         `json:"why"`
	Ranks     map[string]int `json:"ranks"`
	Stale     bool           `json:"stale,omitempty"`
}

func searchCmd(g *globals) *cobra.Command {
	var queryFile string
	var limit int
	var only []string
	var files int
	var dump bool
	c := &cobra.Command{
		Use:   "search (QUERY | --query-file F)",
		Short: "find the code a question or an issue is about (BM25, embeddings, symbols, paths, graph; fused)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var q string
			switch {
			case queryFile != "":
				b, err := os.ReadFile(queryFile)
				if err != nil {
					return usageError("--query-file: %v", err)
				}
				q = string(b)
			case len(args) == 1:
				q = args[0]
			default:
				return usageError("give a QUERY or --query-file")
			}
			if strings.TrimSpace(q) == "" {
				return usageError("empty query")
			}
			eng, closeAll, m, err := g.openSearchEngine(cmd)
			if err != nil {
				return err
			}
			defer closeAll()
			res, err := eng.Search(ctx, q, fuse.Options{Limit: limit, Files: files, Only: only, Dump: dump})
			if err != nil {
				return err
			}
			iv := g.indexOf(ctx, m, eng.R)
			fresh := indexer.NewFreshness(m.Root, eng.R)
			// The ranked files come first (kind "file", no symbol), then the
			// ranked definitions and chunks.
			var views []hitView
			for _, f := range res.Files {
				views = append(views, hitView{Path: f.Path, Kind: "file", Score: f.Score, Why: f.Why, Ranks: f.Ranks,
					Stale: fresh.Stale(ctx, f.Path)})
			}
			for _, h := range res.Hits {
				views = append(views, hitView{Path: h.Path, Symbol: h.Name, SymbolID: h.SymbolID, Kind: h.Kind.String(),
					StartLine: h.StartLine, EndLine: h.EndLine, Score: h.Score, Why: h.Why, Ranks: h.Ranks, Stale: fresh.Stale(ctx, h.Path)})
			}
			if dump {
				return writeJSON(g.stdout, map[string]any{"query": firstLine(q), "index": iv, "results": views, "generators": res.Dump})
			}
			if g.json {
				return writeJSON(g.stdout, envelope{Query: firstLine(q), Index: iv, Results: views})
			}
			fmt.Fprintln(g.stdout, "files:")
			for i, f := range res.Files {
				fmt.Fprintf(g.stdout, "%2d. %s\t%.4f\t%s%s\n", i+1, f.Path, f.Score, f.Why, staleMark(fresh.Stale(ctx, f.Path)))
			}
			fmt.Fprintln(g.stdout, "code:")
			for i, h := range res.Hits {
				name := h.Name
				if name == "" {
					name = "(file)"
				}
				fmt.Fprintf(g.stdout, "%2d. %s:%d-%d\t%s\t%.4f\t%s%s\n", i+1, h.Path, h.StartLine, h.EndLine, name, h.Score, h.Why,
					staleMark(fresh.Stale(ctx, h.Path)))
			}
			return nil
		},
	}
	c.Flags().StringVar(&queryFile, "query-file", "", "read the query from a file (an issue, a stack trace)")
	c.Flags().IntVar(&limit, "limit", 20, "code hits to return")
	c.Flags().IntVar(&files, "files", 10, "files to rank")
	c.Flags().BoolVar(&dump, "dump-generators", false, "add every generator's full ranking to the JSON (for evaluation)")
	c.Flags().MarkHidden("dump-generators")
	c.Flags().StringSliceVar(&only, "only", nil, "run only these generators: "+strings.Join(fuse.AllGenerators, ","))
	return c
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// openSearchEngine opens the store and its side indexes as a search engine.
func (g *globals) openSearchEngine(cmd *cobra.Command) (*fuse.Engine, func(), graph.Meta, error) {
	qe, err := chooseEmbedder(os.Getenv("CAIRN_EMBEDDER"))
	if err != nil {
		return nil, nil, graph.Meta{}, err
	}
	o, err := g.openFuse(cmd.Context(), qe)
	if err != nil {
		return nil, nil, graph.Meta{}, err
	}
	for _, w := range o.Warnings {
		fmt.Fprintln(g.stderr, "cairn: warning:", w)
	}
	return o.Engine, o.Close, o.Meta, nil
}
