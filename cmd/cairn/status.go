package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
)

func statusCmd(g *globals) *cobra.Command {
	var explain bool
	c := &cobra.Command{
		Use:   "status",
		Short: "show what the index holds, what was skipped and why, and what could not be analysed",
		Args:  cobra.NoArgs,
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
			files, err := s.Files(ctx)
			if err != nil {
				return err
			}
			var problems []map[string]string
			for _, f := range files {
				if f.Status != graph.ParseOK && f.Status != graph.ParseTextOnly {
					problems = append(problems, map[string]string{"path": f.Path, "status": f.Status.String(), "error": f.Error})
				}
			}
			var skips []graph.Skip
			if explain {
				if skips, err = s.Skips(ctx); err != nil {
					return err
				}
			}
			if g.json {
				out := map[string]any{
					"index_dir": s.Dir(), "index": viewIndex(m), "root": m.Root,
					"files": m.Files, "symbols": m.Symbols, "chunks": m.Chunks,
					"status": namedCounts(m.Status), "languages": namedCounts(m.Languages),
					"skipped": namedCounts(m.Skips), "problems": problems,
				}
				if explain {
					var list []map[string]any
					for _, sk := range skips {
						list = append(list, map[string]any{"path": sk.Path, "reason": sk.Reason.String(), "detail": sk.Detail, "dir": sk.Dir})
					}
					out["skips"] = list
				}
				return writeJSON(g.stdout, out)
			}
			w := g.stdout
			fmt.Fprintf(w, "index %s (generation %d, revision %s, indexed %s)\n", s.Dir(), m.Generation, revShort(m), m.IndexedAt.Local().Format(time.DateTime))
			fmt.Fprintf(w, "root %s\n", m.Root)
			fmt.Fprintf(w, "%d files, %d symbols, %d chunks\n", m.Files, m.Symbols, m.Chunks)
			printCounts(w, "files by status", m.Status)
			printCounts(w, "files by language", m.Languages)
			printCounts(w, "skipped by reason", m.Skips)
			if len(problems) > 0 {
				fmt.Fprintf(w, "not fully analysed (%d):\n", len(problems))
				for _, p := range problems {
					fmt.Fprintf(w, "  %-8s %s: %s\n", p["status"], p["path"], p["error"])
				}
			}
			if explain {
				fmt.Fprintf(w, "skipped paths (%d):\n", len(skips))
				for _, sk := range skips {
					d := ""
					if sk.Dir {
						d = "/"
					}
					detail := ""
					if sk.Detail != "" {
						detail = " (" + sk.Detail + ")"
					}
					fmt.Fprintf(w, "  %-20s %s%s%s\n", sk.Reason, sk.Path, d, detail)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&explain, "explain-skips", false, "list every skipped path with its reason")
	return c
}

func namedCounts[K interface {
	comparable
	fmt.Stringer
}](m map[K]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k.String()] = v
	}
	return out
}

func printCounts[K interface {
	comparable
	fmt.Stringer
}](w interface{ Write([]byte) (int, error) }, title string, m map[K]int) {
	if len(m) == 0 {
		return
	}
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range m {
		list = append(list, kv{k.String(), v})
	}
	slices.SortFunc(list, func(a, b kv) int {
		if a.v != b.v {
			return b.v - a.v
		}
		if a.k < b.k {
			return -1
		}
		return 1
	})
	fmt.Fprintf(w, "%s:", title)
	for _, e := range list {
		fmt.Fprintf(w, " %s=%d", e.k, e.v)
	}
	fmt.Fprintln(w)
}
