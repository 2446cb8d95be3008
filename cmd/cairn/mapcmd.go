package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
)

func mapCmd(g *globals) *cobra.Command {
	var limit int
	var under string
	c := &cobra.Command{
		Use:   "map [--under PATH] [--limit N]",
		Short: "the repository's most central definitions (PageRank over the reference graph)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.ask(cmd.Context(), "", func(snap *engine.Snapshot, env *envelope) (func(), error) {
				res, err := snap.Map(cmd.Context(), engine.MapOptions{Under: under, Limit: limit})
				if err != nil {
					return nil, err
				}
				env.Results = res.Symbols
				return func() {
					for _, r := range res.Symbols {
						fmt.Fprintf(g.stdout, "%8.1f  %s\t%s\t%s:%d\n", r.Rank, r.Kind, r.QualifiedName, r.Path, r.StartLine)
					}
				}, nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", 30, fmt.Sprintf("how many, 1-%d", engine.MaxCentral))
	c.Flags().StringVar(&under, "under", "", "only definitions in this file or under this directory")
	return c
}
