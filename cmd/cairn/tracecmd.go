package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
)

func traceCmd(g *globals) *cobra.Command {
	var mermaid, dot bool
	var depth int
	c := &cobra.Command{
		Use:   "trace TARGET",
		Short: "who writes and who reads a field, column, JSON or config key, through which call paths, and where the path breaks",
		Long: `trace follows one value through the code: TARGET is a field (Task.ArtifactURL,
task.artifact_url), a database column (tasks.artifact_url), a JSON or map key
(artifact_url), a config key (config:server.port) or a variable. It lists the
value's representations (carriers), its write and read sites with the call
paths that reach them from entry points (HTTP routes, main, CLI commands, jobs,
tests, UI handlers), the flows in call order, and gaps: a mapper that drops the
field, a value set in memory but never stored, one read where nothing writes it
or written and never read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if mermaid && dot {
				return usageError("--mermaid and --dot are exclusive")
			}
			if err := atLeast1(cmd, "depth"); err != nil {
				return err
			}
			snap, done, err := g.snapshot(ctx, args[0])
			if err != nil {
				return err
			}
			defer done()
			res, err := snap.Trace(ctx, engine.TraceOptions{Target: args[0], Depth: depth})
			if err != nil {
				return g.fail(args[0], nil, err)
			}
			switch {
			case g.json:
				return writeJSON(g.stdout, res)
			case mermaid:
				return res.WriteMermaid(g.stdout)
			case dot:
				return res.WriteDot(g.stdout)
			}
			return res.WriteText(g.stdout)
		},
	}
	f := c.Flags()
	f.BoolVar(&mermaid, "mermaid", false, "print the flows as a Mermaid flowchart")
	f.BoolVar(&dot, "dot", false, "print the flows as a Graphviz digraph")
	f.IntVar(&depth, "depth", engine.DefaultTraceDepth, fmt.Sprintf("longest call path followed (at most %d)", engine.MaxTraceDepth))
	return c
}
