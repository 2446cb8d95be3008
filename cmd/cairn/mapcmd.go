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
		Use:   "map [PATH] [--limit N]",
		Short: "the repository's most central definitions (PageRank over the reference graph), or those under PATH",
		Long: `map lists the most central definitions of the repository's own code, or of the
file or directory PATH (also --under PATH): ranked by PageRank over the reference
graph, with tests, generated code and type parameters after the code they serve.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if under != "" && under != args[0] {
					return usageError("give the path once: as PATH or as --under (got %q and %q)", args[0], under)
				}
				under = args[0]
			}
			if err := atLeast1(cmd, "limit"); err != nil {
				return err
			}
			return g.ask(cmd.Context(), "", func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.Map(cmd.Context(), engine.MapOptions{Under: under, Limit: limit})
				if err != nil {
					return nil, err
				}
				env.Results = res.Symbols
				if len(res.Symbols) == 0 {
					env.nothing = "no definitions to rank"
					if under != "" {
						env.nothing += " under " + under
					}
				}
				return func() error {
					for _, r := range res.Symbols {
						fmt.Fprintf(g.stdout, "%8.1f  %s\t%s\t%s:%d\n", r.Rank, r.Kind, r.QualifiedName, r.Path, r.StartLine)
					}
					return nil
				}, nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", 30, fmt.Sprintf("how many, 1-%d", engine.MaxCentral))
	c.Flags().StringVar(&under, "under", "", "only definitions in this file or under this directory")
	return c
}
