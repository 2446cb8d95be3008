package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// searchResults lists a search's answer as the command line publishes it:
// the ranked files first (kind "file", no lines), then the ranked
// definitions and chunks, each in the engine's shape.
func searchResults(res *engine.SearchResult) []engine.SearchHit {
	out := make([]engine.SearchHit, 0, len(res.Files)+len(res.Hits))
	for _, f := range res.Files {
		out = append(out, engine.SearchHit{Citation: engine.Citation{Path: f.Path, Revision: f.Revision, Stale: f.Stale},
			Kind: "file", Score: f.Score, Why: f.Why, Ranks: f.Ranks})
	}
	return append(out, res.Hits...)
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
			snap, done, err := g.snapshot(ctx)
			if err != nil {
				return err
			}
			defer done()
			res, err := snap.Search(ctx, engine.SearchOptions{Query: q, Limit: limit, Files: files, Only: only, Ranks: true, Dump: dump})
			if err != nil {
				return err
			}
			iv := g.indexOf(ctx, snap.Meta, snap.R)
			if dump {
				return writeJSON(g.stdout, map[string]any{"query": firstLine(q), "index": iv, "results": searchResults(res), "generators": res.Generators})
			}
			if g.json {
				return writeJSON(g.stdout, envelope{Query: firstLine(q), Index: iv, Results: searchResults(res)})
			}
			fmt.Fprintln(g.stdout, "files:")
			for i, f := range res.Files {
				fmt.Fprintf(g.stdout, "%2d. %s\t%.4f\t%s%s\n", i+1, f.Path, f.Score, f.Why, staleMark(f.Stale))
			}
			fmt.Fprintln(g.stdout, "code:")
			for i, h := range res.Hits {
				name := h.Symbol
				if name == "" {
					name = "(file)"
				}
				fmt.Fprintf(g.stdout, "%2d. %s:%d-%d\t%s\t%.4f\t%s%s\n", i+1, h.Path, h.StartLine, h.EndLine, name, h.Score, h.Why,
					staleMark(h.Stale))
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
