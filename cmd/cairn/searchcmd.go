package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// rankedEntry is one entry of search's results list: a file (kind "file",
// no lines) or a hit, in the one search shape's fields.
type rankedEntry struct {
	engine.SearchHit
	Generated []string `json:"generated,omitempty"`
}

// rankedList is the one search shape's files, then its hits, as one list:
// the envelope's results, which every command's --json answer has and
// which the localization scorers (../shared/bench/localization/score.py,
// and anyone's that reads one ranked list) read — the file ranking is the
// order paths first appear in it, the function ranking the order of the
// hits that name a symbol. files and hits stay beside it, as on every
// other surface.
func rankedList(s catalog.Search) []rankedEntry {
	out := make([]rankedEntry, 0, len(s.Files)+len(s.Hits))
	for _, f := range s.Files {
		out = append(out, rankedEntry{SearchHit: engine.SearchHit{Citation: graph.Citation{Path: f.Path, Revision: f.Revision, Stale: f.Stale},
			Kind: "file", Score: f.Score, Why: f.Why, Ranks: f.Ranks}, Generated: f.Generated})
	}
	for _, h := range s.Hits {
		out = append(out, rankedEntry{SearchHit: h})
	}
	return out
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
			if err := atLeast1(cmd, "limit", "files"); err != nil {
				return err
			}
			if dump {
				g.json = true // the JSON answer, with every generator's ranking
			}
			return g.ask(ctx, firstLine(q), func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.Search(ctx, engine.SearchOptions{Query: q, Limit: limit, Files: files, Only: only, Ranks: true, Dump: dump})
				if err != nil {
					return nil, err
				}
				shaped := catalog.ShapeSearch(res)
				env.Search = &shaped
				env.Results = rankedList(shaped)
				if len(res.Hits) == 0 && len(res.Files) == 0 {
					env.nothing = "nothing in the index matches the query: try other words, or check `cairn status`"
				}
				if dump {
					env.Generators = res.Generators
				}
				return func() error {
					if res.Unresolved != "" {
						fmt.Fprintf(g.stdout, "note: %s\n", res.Unresolved)
					}
					if len(res.Named) > 0 {
						fmt.Fprintln(g.stdout, "named changes:")
						for _, c := range res.Named {
							fmt.Fprintf(g.stdout, "  %s\t%s %q\t%s\n", c.Ref, c.Hash[:min(12, len(c.Hash))], c.Subject, c.FileList(8))
						}
					}
					fmt.Fprintln(g.stdout, "files:")
					for i, f := range res.Files {
						fmt.Fprintf(g.stdout, "%2d. %s\t%.4f\t%s%s\n", i+1, f.Path, f.Score, f.Why, staleMark(f.Stale))
						if len(f.Generated) > 0 {
							fmt.Fprintf(g.stdout, "    generated with it (not indexed): %s\n", strings.Join(f.Generated, ", "))
						}
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
				}, nil
			})
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
