package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

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
			if strings.TrimSpace(task) == "" && len(focus) == 0 && diff == "" {
				return usageError("empty task")
			}
			if budget <= 0 {
				return usageError("--budget must be a positive number of tokens")
			}
			if fullShare <= 0 || fullShare > 1 {
				return usageError("--full-share must be in (0, 1]")
			}
			if g.json {
				format = "json"
			}
			if format != "json" && format != "markdown" {
				return usageError("--format: want json or markdown")
			}
			qe, err := chooseEmbedder(os.Getenv("CAIRN_EMBEDDER"))
			if err != nil {
				return err
			}
			// the BPE tables load (a tenth of a second) while the index opens
			type loaded struct {
				tok contextpack.Tokenizer
				err error
			}
			tc := make(chan loaded, 1)
			go func() {
				tok, err := contextpack.NewTokenizer(tokenizer)
				tc <- loaded{tok, err}
			}()
			o, err := g.openFuse(ctx, qe)
			if err != nil {
				return err
			}
			defer o.Close()
			l := <-tc
			if l.err != nil {
				return l.err
			}
			tok := l.tok
			b := &contextpack.Builder{Engine: o.Engine, Root: o.Meta.Root, Meta: o.Meta, Tokenizer: tok}
			if wt := g.indexOf(ctx, o.Meta, o.R).Worktree; wt.Unindexed != nil {
				b.Unindexed = wt.Unindexed
				if wt.HeadMoved {
					b.Head = wt.Head
				}
			}
			pack, err := b.Build(ctx, contextpack.Request{Task: task, Budget: budget, Focus: focus, Diff: diff, Format: format, FullShare: fullShare})
			if err != nil {
				return err
			}
			if format == "json" {
				_, err = g.stdout.Write(pack.JSON())
			} else {
				_, err = fmt.Fprint(g.stdout, pack.Markdown())
			}
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&queryFile, "query-file", "", "read the task from a file")
	f.IntVar(&budget, "budget", 8000, "token budget of the rendered pack")
	f.StringArrayVar(&focus, "focus", nil, "a symbol or file the pack must start from (repeatable)")
	f.StringVar(&diff, "diff", "", "make the lines changed since this git revision the focus")
	f.StringVar(&format, "format", "markdown", "json or markdown (--json implies json)")
	f.StringVar(&tokenizer, "tokenizer", "cl100k_base", "token counting: cl100k_base or o200k_base")
	f.Float64Var(&fullShare, "full-share", contextpack.DefaultFullShare, "share of the budget whole items may fill; past it, candidates come as signature and doc (1: whole while they fit)")
	return c
}
