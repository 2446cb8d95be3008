package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/watch"
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
			iv := g.indexOf(ctx, m, s)
			// The watcher keeps its status in the worktree's local index
			// directory, for the shared store as well.
			stateDir := s.Where()
			if g.shared() {
				stateDir, _ = g.dir()
			}
			wst, watching, werr := watch.ReadStatus(stateDir)
			if g.json {
				out := map[string]any{
					"index_dir": s.Where(), "index": iv, "root": m.Root,
					"watcher": watcherView{Status: wst, Running: watching},
					"files":   m.Files, "symbols": m.Symbols, "chunks": m.Chunks,
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
			fmt.Fprintf(w, "index %s (generation %d, revision %s, indexed %s)\n", s.Where(), m.Generation, revShort(m), m.IndexedAt.Local().Format(time.DateTime))
			fmt.Fprintf(w, "root %s\n", m.Root)
			fmt.Fprintf(w, "%d files, %d symbols, %d chunks\n", m.Files, m.Symbols, m.Chunks)
			printCounts(w, "files by status", m.Status)
			printCounts(w, "files by language", m.Languages)
			printCounts(w, "skipped by reason", m.Skips)
			fmt.Fprintf(w, "watcher: %s\n", describeWatcher(wst, watching, werr))
			fmt.Fprintf(w, "worktree: %s\n", g.worktreeText())
			g.worktree = nil // stated here: not again on stderr
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

// watcherView is the watcher's published status with whether it runs.
type watcherView struct {
	watch.Status
	Running bool `json:"running"`
}

// describeWatcher says in one line whether a watcher keeps the index fresh,
// how well, and what it did last.
func describeWatcher(st watch.Status, running bool, err error) string {
	if err != nil {
		return "unknown: " + err.Error()
	}
	if !running {
		if st.PID == 0 {
			return "not running (start one with `cairn watch`)"
		}
		return fmt.Sprintf("not running (pid %d stopped; %s)", st.PID, cmp.Or(st.LastError, "clean shutdown"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, pid %d since %s, %d %s watched, %d batches (%d committed)",
		st.State, st.PID, st.Started.Local().Format(time.DateTime), st.Watched, plural(st.Watched, "directory", "directories"), st.Batches, st.Commits)
	if st.Pending > 0 {
		fmt.Fprintf(&b, ", %d changes pending", st.Pending)
	}
	if st.Last != nil {
		fmt.Fprintf(&b, "; last: %s at %s in %s", st.Last.Reason, st.Last.Started.Local().Format(time.TimeOnly),
			time.Duration(st.Last.Duration).Round(time.Millisecond))
	}
	if st.Overflows > 0 {
		fmt.Fprintf(&b, "; the kernel dropped events %d times (each followed by a full rescan)", st.Overflows)
	}
	if st.Mode != watch.ModeEvents {
		fmt.Fprintf(&b, "\n  DEGRADED (%s): %s", st.Mode, st.Degraded)
	}
	if st.LastError != "" {
		fmt.Fprintf(&b, "\n  last error: %s", st.LastError)
	}
	return b.String()
}
