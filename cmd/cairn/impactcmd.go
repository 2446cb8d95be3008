package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
)

func impactCmd(g *globals) *cobra.Command {
	var depth, testDepth, limit int
	var diff, path, kind string
	var staged, working, all bool
	var gf graphFlags
	c := &cobra.Command{
		Use:   "impact (TARGET | --diff REV | --staged | --working)",
		Short: "what breaks if a symbol or a diff changes: dependents, implementations, tests to run, owners, risk",
		Long: `impact lists what depends on a symbol (or on the definitions a diff touches):
transitive dependents with depth and confidence, implementations and overrides,
the tests that reach the change with commands that run exactly them, packages,
CODEOWNERS owners and a short risk summary. TARGET must name one definition
(narrow it with --path or --kind, or pass a symbol id); --all analyses every
definition it names.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := gf.check(); err != nil {
				return err
			}
			if err := atLeast1(cmd, "depth", "test-depth", "limit"); err != nil {
				return err
			}
			ctx := cmd.Context()
			var name string
			if len(args) == 1 {
				name = args[0]
			}
			snap, done, err := g.snapshot(ctx, name)
			if err != nil {
				return err
			}
			defer done()
			res, err := snap.Impact(ctx, engine.ImpactOptions{Name: name, Path: path, Kind: kind, All: all,
				Diff: diff, Staged: staged, Working: working, Depth: depth, TestDepth: testDepth, Limit: limit})
			if err != nil {
				return g.fail(name, nil, err)
			}
			switch {
			case g.json:
				return writeJSON(g.stdout, res)
			case gf.dot:
				return res.WriteDot(g.stdout)
			case gf.mermaid:
				return res.WriteMermaid(g.stdout)
			}
			if err := res.WriteText(g.stdout, 50); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			return nil
		},
	}
	gf.add(c)
	f := c.Flags()
	f.IntVar(&depth, "depth", engine.DefaultImpactDepth, fmt.Sprintf("levels of dependents listed (at most %d)", engine.MaxImpactDepth))
	f.IntVar(&testDepth, "test-depth", engine.DefaultTestDepth, fmt.Sprintf("levels searched for tests that reach the change (at most %d)", engine.MaxTestDepth))
	f.IntVar(&limit, "limit", engine.DefaultImpactLimit, fmt.Sprintf("most symbols visited (at most %d)", engine.MaxImpactLimit))
	f.BoolVar(&all, "all", false, "when TARGET names several definitions, analyse all of them (else they are listed to choose from)")
	f.StringVar(&path, "path", "", "with TARGET: only its definitions in this file or under this directory")
	f.StringVar(&kind, "kind", "", "with TARGET: only its definitions of this kind")
	f.StringVar(&diff, "diff", "", "analyse the changes since this revision")
	f.BoolVar(&staged, "staged", false, "analyse the staged changes")
	f.BoolVar(&working, "working", false, "analyse the working tree's changes against HEAD")
	return c
}
