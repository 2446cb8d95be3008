package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
)

// nameFlags are the flags that narrow a NAME argument (engine.Resolve).
type nameFlags struct{ path, kind string }

func (f *nameFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.path, "path", "", "only definitions in this file or under this directory")
	c.Flags().StringVar(&f.kind, "kind", "", "only definitions of this kind (function, method, class, struct, interface, field, ...)")
}

func defCmd(g *globals) *cobra.Command {
	var nf nameFlags
	c := &cobra.Command{
		Use:   "def NAME",
		Short: "find the definitions of a name (plain, or qualified: http.ListenAndServe, Server.Serve, or a symbol id)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.ask(cmd.Context(), args[0], func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.Definitions(cmd.Context(), engine.DefinitionsOptions{Name: args[0], Path: nf.path, Kind: nf.kind})
				if err != nil {
					return nil, err
				}
				env.Results = res.Definitions
				return func() error {
					for _, v := range res.Definitions {
						fmt.Fprintf(g.stdout, "%s:%d-%d\t%s\t%s%s\n", v.Path, v.StartLine, v.EndLine, v.Kind, v.QualifiedName, staleMark(v.Stale))
						if v.Signature != "" {
							fmt.Fprintf(g.stdout, "\t%s\n", v.Signature)
						}
					}
					return nil
				}, nil
			})
		},
	}
	nf.add(c)
	return c
}

func refsCmd(g *globals) *cobra.Command {
	var nf nameFlags
	var withDefs bool
	var role string
	c := &cobra.Command{
		Use:   "refs NAME",
		Short: "find the uses of a name's definitions, with their roles (call, read, write, import, type) and confidence",
		Long: `refs lists the uses resolved to the definitions NAME denotes (confidence precise or
resolved) and the unresolved uses spelled like them (name-only); uses resolved to
other definitions are left out. --path, --kind or a symbol id narrow the definitions.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.ask(cmd.Context(), args[0], func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.References(cmd.Context(), engine.ReferencesOptions{Name: args[0], Path: nf.path, Kind: nf.kind,
					Roles: role, IncludeDefinitions: withDefs})
				if err != nil {
					return nil, err
				}
				env.Results = res.References
				env.Definitions = res.Definitions
				g.setUnknown(cmd.Context(), snap.R, env)
				return func() error {
					for _, v := range res.References {
						in := ""
						if v.In != "" {
							in = " in " + v.In
						}
						q := ""
						if v.Qualifier != "" {
							q = v.Qualifier + "."
						}
						fmt.Fprintf(g.stdout, "%s:%d:%d\t%s\t%s%s%s [%s]%s\n", v.Path, v.StartLine, v.Column, v.Role, q, v.Name, in, v.Confidence, staleMark(v.Stale))
					}
					return nil
				}, nil
			})
		},
	}
	nf.add(c)
	c.Flags().BoolVar(&withDefs, "definitions", false, "include the definitions themselves")
	c.Flags().StringVar(&role, "role", "", "only references with this role (call, read, write, import, type, argument: a keyword argument binding a parameter)")
	return c
}

func symbolsCmd(g *globals) *cobra.Command {
	var file, kind string
	c := &cobra.Command{
		Use:   "symbols [--file F] [--kind K]",
		Short: "list definitions, by file and/or kind",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.ask(cmd.Context(), "", func(snap *engine.Snapshot, env *envelope) (func() error, error) {
				res, err := snap.Symbols(cmd.Context(), engine.SymbolsOptions{File: file, Kind: kind})
				if err != nil {
					return nil, err
				}
				env.Results = res.Symbols
				return func() error {
					for _, v := range res.Symbols {
						fmt.Fprintf(g.stdout, "%s:%d-%d\t%s\t%s%s\n", v.Path, v.StartLine, v.EndLine, v.Kind, v.QualifiedName, staleMark(v.Stale))
					}
					return nil
				}, nil
			})
		},
	}
	c.Flags().StringVar(&file, "file", "", "only symbols defined in this repository-relative file")
	c.Flags().StringVar(&kind, "kind", "", "only symbols of this kind (function, method, class, struct, interface, field, ...)")
	return c
}

func staleMark(stale bool) string {
	if stale {
		return " (stale)"
	}
	return ""
}
