package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/impact"
)

func impactCmd(g *globals) *cobra.Command {
	var depth, testDepth, limit int
	var diff string
	var staged, working bool
	c := &cobra.Command{
		Use:   "impact (TARGET | --diff REV | --staged | --working)",
		Short: "what breaks if a symbol or a diff changes: dependents, implementations, tests to run, owners, risk",
		Long: `impact lists what depends on a symbol (or on the definitions a diff touches):
transitive dependents with depth and confidence, implementations and overrides,
the tests that reach the change with commands that run exactly them, packages,
CODEOWNERS owners and a short risk summary.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			modes := 0
			for _, on := range []bool{len(args) == 1, diff != "", staged, working} {
				if on {
					modes++
				}
			}
			if modes != 1 {
				return usageError("give one of TARGET, --diff REV, --staged, --working")
			}
			s, err := g.openStore()
			if err != nil {
				return err
			}
			defer s.Close()
			o := impact.Options{Depth: depth, TestDepth: testDepth, Limit: limit}
			var res *impact.Result
			if len(args) == 1 {
				res, err = impact.ForTarget(ctx, s, args[0], o)
				if errors.Is(err, graph.ErrNotFound) {
					return notFound("%v", err)
				}
			} else {
				res, err = impact.ForDiff(ctx, s, impact.Diff{Rev: diff, Staged: staged}, o)
			}
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(g.stdout, res)
			}
			if err := res.WriteText(g.stdout, 50); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&depth, "depth", 3, "levels of dependents listed")
	f.IntVar(&testDepth, "test-depth", 12, "levels searched for tests that reach the change")
	f.IntVar(&limit, "limit", 20000, "most symbols visited")
	f.StringVar(&diff, "diff", "", "analyse the changes since this revision")
	f.BoolVar(&staged, "staged", false, "analyse the staged changes")
	f.BoolVar(&working, "working", false, "analyse the working tree's changes against HEAD")
	return c
}
