package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

func contextCmd(g *globals) *cobra.Command {
	var queryFile, format, diff, tokenizer string
	var budget int
	var fullShare float64
	var focus []string
	c := &cobra.Command{
		Use:   "context (TASK | --query-file F) --budget TOKENS",
		Short: "the spans a model should read for a task, within a token budget, each cited and labelled",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var task string
			switch {
			case queryFile != "":
				b, err := os.ReadFile(queryFile)
				if err != nil {
					return usageError("--query-file: %v", err)
				}
				task = string(b)
			case len(args) == 1:
				task = args[0]
			default:
				return usageError("give a TASK or --query-file")
			}
			if err := atLeast1(cmd, "budget", "full-share"); err != nil {
				return err
			}
			if g.json {
				format = "json"
			}
			snap, done, err := g.snapshot(ctx, firstLine(task))
			if err != nil {
				return err
			}
			defer done()
			wt := g.indexOf(ctx, snap).Worktree
			pack, err := snap.Context(ctx, engine.ContextOptions{Task: task, Budget: budget, Focus: focus, Diff: diff,
				Format: format, Tokenizer: tokenizer, FullShare: fullShare, Worktree: wt})
			if err != nil {
				return g.fail(firstLine(task), nil, err)
			}
			if pack.Format == "json" {
				_, err = g.stdout.Write(pack.JSON())
			} else {
				_, err = fmt.Fprint(g.stdout, pack.Markdown())
			}
			switch {
			case err != nil:
				return err
			case len(pack.Items) == 0 && pack.OmittedTotal > 0:
				return notFound("no item fits the budget of %d tokens (%d candidates left out): raise --budget", pack.Budget, pack.OmittedTotal)
			case len(pack.Items) == 0:
				return notFound("nothing in the index matches the task: try other words, --focus a symbol or file, or check `cairn status`")
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&queryFile, "query-file", "", "read the task from a file")
	f.IntVar(&budget, "budget", engine.DefaultBudget, fmt.Sprintf("token budget of the rendered pack (%d-%d)", engine.MinBudget, engine.MaxBudget))
	f.StringArrayVar(&focus, "focus", nil, "a symbol or file the pack must start from (repeatable)")
	f.StringVar(&diff, "diff", "", "make the lines changed since this git revision the focus")
	f.StringVar(&format, "format", "markdown", "json or markdown (--json implies json)")
	f.StringVar(&tokenizer, "tokenizer", "cl100k_base", "token counting: cl100k_base or o200k_base")
	f.Float64Var(&fullShare, "full-share", contextpack.DefaultFullShare, "share of the budget whole items may fill; past it, candidates come as signature and doc (1: whole while they fit)")
	return c
}
