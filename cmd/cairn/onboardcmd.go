package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
)

// pathArg takes a command's optional PATH argument, given once: as PATH
// or as --under.
func pathArg(args []string, under *string) error {
	if len(args) == 1 {
		if *under != "" && *under != args[0] {
			return usageError("give the path once: as PATH or as --under (got %q and %q)", args[0], *under)
		}
		*under = args[0]
	}
	return nil
}

func entriesCmd(g *globals) *cobra.Command {
	var limit int
	var under string
	var kinds []string
	c := &cobra.Command{
		Use:   "entries [PATH] [--kind K]... [--limit N]",
		Short: "the repository's entry points: HTTP routes, mains, CLI commands and jobs",
		Long: `entries lists where execution starts in the repository, or under PATH: HTTP
routes (with where each is registered), mains, CLI commands and jobs, classified
as trace classifies the start of a call path. --kind keeps some kinds (http,
main, cli, job, test, ui, loader; default the first four).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pathArg(args, &under); err != nil {
				return err
			}
			if err := atLeast1(cmd, "limit"); err != nil {
				return err
			}
			return g.ask(cmd.Context(), "", func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.EntryPoints(cmd.Context(), engine.EntryPointsOptions{Under: under, Kinds: kinds, Limit: limit})
				if err != nil {
					return nil, err
				}
				env.Results = res.Entries
				if len(res.EntryPoints) == 0 {
					env.nothing = "no entry points found"
					if under != "" {
						env.nothing += " under " + under
					}
				}
				return func() error {
					for _, e := range res.EntryPoints {
						reg := ""
						if e.Registered != nil {
							reg = fmt.Sprintf("\tregistered at %s:%d", e.Registered.Path, e.Registered.StartLine)
						}
						fmt.Fprintf(g.stdout, "%s\t%s\t%s\t%s:%d%s\n", e.Kind, e.Label, e.Func.Name, e.Func.Path, e.Func.StartLine, reg)
					}
					if res.Truncated {
						fmt.Fprintf(g.stdout, "(the first %d: --limit shows more)\n", len(res.EntryPoints))
					}
					return nil
				}, nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", 500, fmt.Sprintf("how many, 1-%d", engine.MaxEntryPoints))
	c.Flags().StringVar(&under, "under", "", "only entry points in this file or under this directory")
	c.Flags().StringArrayVar(&kinds, "kind", nil, "only entry points of this kind (repeatable)")
	return c
}

func packagesCmd(g *globals) *cobra.Command {
	var limit, depth int
	var under string
	c := &cobra.Command{
		Use:   "packages [PATH] [--depth N] [--limit N]",
		Short: "the dependency graph of the project's own packages (directories of code and the imports between them)",
		Long: `packages draws how the project's own packages, or those under PATH, depend on
each other: a node per directory of code files (tests, vendored code and docs
left out), an edge where one's files import another's; imports of libraries are
counted, not drawn. Directories collapse to their first --depth path elements
(default: the deepest that keeps at most --limit nodes).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pathArg(args, &under); err != nil {
				return err
			}
			if err := atLeast1(cmd, "limit"); err != nil {
				return err
			}
			return g.ask(cmd.Context(), "", func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.PackageGraph(cmd.Context(), engine.PackageGraphOptions{Under: under, Depth: depth, Limit: limit})
				if err != nil {
					return nil, err
				}
				env.Results = res
				if len(res.Packages) == 0 {
					env.nothing = "no code directories"
				}
				return func() error {
					out := map[string][]engine.PackageEdge{}
					for _, e := range res.Imports {
						out[e.From] = append(out[e.From], e)
					}
					for _, p := range res.Packages {
						fmt.Fprintf(g.stdout, "%s/\t%d files\t%d lines\t%v\n", p.Path, p.Files, p.Lines, p.Languages)
						for _, e := range out[p.Path] {
							fmt.Fprintf(g.stdout, "  -> %s/\t(%d imports)\n", e.To, e.Imports)
						}
					}
					if res.Depth > 0 {
						fmt.Fprintf(g.stdout, "(%d directories collapsed to depth %d)\n", res.Directories, res.Depth)
					}
					if res.Omitted > 0 {
						fmt.Fprintf(g.stdout, "(%d more packages left out, with %d imports: --limit shows more)\n", res.Omitted, res.OmittedImports)
					}
					return nil
				}, nil
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", engine.DefaultPackageLimit, fmt.Sprintf("most nodes, 1-%d", engine.MaxPackageLimit))
	c.Flags().IntVar(&depth, "depth", 0, fmt.Sprintf("collapse directories to this many path elements, 1-%d (0: automatic)", engine.MaxPackageDepth))
	c.Flags().StringVar(&under, "under", "", "only directories under this one")
	return c
}
