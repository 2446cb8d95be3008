package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
)

func defCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "def NAME",
		Short: "find the definitions of a name (plain, or qualified: http.ListenAndServe, Server.Serve)",
		Args:  cobra.ExactArgs(1),
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
			defs, err := graph.FindDefinitions(ctx, s, args[0])
			if err != nil {
				return err
			}
			fresh := indexer.NewFreshness(m.Root, s)
			views := make([]graph.SymbolView, len(defs))
			for i := range defs {
				views[i] = graph.ViewSymbol(&defs[i], func(p string) (string, bool) { return "", fresh.Stale(ctx, p) })
			}
			if g.json {
				env := envelope{Query: args[0], Index: iv, Results: views}
				if len(defs) == 0 {
					env.Unknown = unanalysed(ctx, s)
				}
				if err := writeJSON(g.stdout, env); err != nil {
					return err
				}
			} else {
				for _, v := range views {
					fmt.Fprintf(g.stdout, "%s:%d-%d\t%s\t%s%s\n", v.Path, v.StartLine, v.EndLine, v.Kind, qualified(v.Container, v.Name), staleMark(v.Stale))
					if v.Signature != "" {
						fmt.Fprintf(g.stdout, "\t%s\n", v.Signature)
					}
				}
			}
			if len(defs) == 0 {
				return notFound("no definition of %q", args[0])
			}
			return nil
		},
	}
}

func refsCmd(g *globals) *cobra.Command {
	var withDefs bool
	var role string
	c := &cobra.Command{
		Use:   "refs NAME",
		Short: "find the references to a name, with their roles (call, read, write, import, type)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var roles graph.Role
			if role != "" {
				r, err := graph.ParseRole(role)
				if err != nil {
					return usageError("--role: %v", err)
				}
				roles = r
			}
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
			_, refs, err := graph.FindReferences(ctx, s, args[0], graph.RefOptions{IncludeDefinitions: withDefs, Roles: roles})
			if err != nil {
				return err
			}
			fresh := indexer.NewFreshness(m.Root, s)
			views := make([]graph.RefView, len(refs))
			for i := range refs {
				views[i] = graph.ViewRef(&refs[i], func(p string) (string, bool) { return "", fresh.Stale(ctx, p) })
			}
			if g.json {
				env := envelope{Query: args[0], Index: iv, Results: views, Unknown: unanalysed(ctx, s)}
				if err := writeJSON(g.stdout, env); err != nil {
					return err
				}
			} else {
				for _, v := range views {
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
			}
			if len(refs) == 0 {
				return notFound("no references to %q", args[0])
			}
			return nil
		},
	}
	c.Flags().BoolVar(&withDefs, "definitions", false, "include the definitions themselves")
	c.Flags().StringVar(&role, "role", "", "only references with this role (call, read, write, import, type)")
	return c
}

func symbolsCmd(g *globals) *cobra.Command {
	var file, kind string
	c := &cobra.Command{
		Use:   "symbols [--file F] [--kind K]",
		Short: "list definitions, by file and/or kind",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var k graph.SymbolKind
			if kind != "" {
				var err error
				if k, err = graph.ParseSymbolKind(kind); err != nil {
					return usageError("--kind: %v", err)
				}
			}
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
			var syms []graph.Symbol
			if file != "" {
				file = strings.TrimPrefix(file, "./")
				if _, err := s.File(ctx, file); err != nil {
					return notFound("%s is not indexed (see `cairn status --explain-skips`)", file)
				}
				syms, err = s.SymbolsInFile(ctx, file)
			} else {
				err = s.AllSymbols(ctx, func(sym graph.Symbol) error {
					if k == 0 || sym.Kind == k {
						syms = append(syms, sym)
					}
					return nil
				})
			}
			if err != nil {
				return err
			}
			fresh := indexer.NewFreshness(m.Root, s)
			var views []graph.SymbolView
			for i := range syms {
				if k != 0 && syms[i].Kind != k {
					continue
				}
				v := graph.ViewSymbol(&syms[i], func(p string) (string, bool) { return "", fresh.Stale(ctx, p) })
				views = append(views, v)
			}
			if g.json {
				return writeJSON(g.stdout, envelope{Index: iv, Results: views})
			}
			for _, v := range views {
				fmt.Fprintf(g.stdout, "%s:%d-%d\t%s\t%s%s\n", v.Path, v.StartLine, v.EndLine, v.Kind, qualified(v.Container, v.Name), staleMark(v.Stale))
			}
			return nil
		},
	}
	c.Flags().StringVar(&file, "file", "", "only symbols defined in this repository-relative file")
	c.Flags().StringVar(&kind, "kind", "", "only symbols of this kind (function, method, class, struct, interface, field, ...)")
	return c
}

func qualified(container, name string) string {
	if container == "" {
		return name
	}
	return container + "." + name
}

func staleMark(stale bool) string {
	if stale {
		return " (stale)"
	}
	return ""
}
