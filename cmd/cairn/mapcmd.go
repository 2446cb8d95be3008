package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
)

func mapCmd(g *globals) *cobra.Command {
	var limit int
	var prefix string
	c := &cobra.Command{
		Use:   "map [--under DIR] [--limit N]",
		Short: "the repository's most central definitions (PageRank over the reference graph)",
		Args:  cobra.NoArgs,
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
			syms, ranks, err := graph.Central(ctx, s, prefix, limit)
			if err != nil {
				return err
			}
			type row struct {
				graph.SymbolView
				Rank float64 `json:"rank"`
			}
			rows := make([]row, len(syms))
			for i := range syms {
				rows[i] = row{graph.ViewSymbol(&syms[i], nil), ranks[syms[i].ID]}
			}
			if g.json {
				return writeJSON(g.stdout, envelope{Index: iv, Results: rows})
			}
			for _, r := range rows {
				fmt.Fprintf(g.stdout, "%8.1f  %s\t%s\t%s:%d\n", r.Rank, r.Kind, qualified(r.Container, r.Name), r.Path, r.StartLine)
			}
			return nil
		},
	}
	c.Flags().IntVar(&limit, "limit", 30, "how many")
	c.Flags().StringVar(&prefix, "under", "", "only definitions under this path prefix")
	return c
}
