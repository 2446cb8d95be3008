package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
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
			snap, done, err := g.snapshot(ctx, "")
			if err != nil {
				// (a damaged index that cannot even be opened: the error
				// names the damaged parts and says what to run)
				return err
			}
			defer done()
			st, err := snap.Status(ctx, engine.StatusOptions{Skips: explain, SkipWorktree: os.Getenv("CAIRN_WORKTREE_CHECK") == "0"})
			if err != nil {
				return g.fail("", nil, err)
			}
			m := snap.Meta
			iv := viewIndex(m)
			iv.Worktree = &st.Worktree
			if g.json {
				return writeJSON(g.stdout, struct {
					Index indexView `json:"index"`
					*engine.StatusResult
				}{iv, st})
			}
			w := g.stdout
			fmt.Fprintf(w, "index %s (generation %d, revision %s, indexed %s)\n", st.IndexDir, m.Generation, revShort(m), m.IndexedAt.Local().Format(time.DateTime))
			if st.IndexedFrom != "" {
				fmt.Fprintf(w, "root %s (indexed at %s; answers and freshness follow this worktree)\n", st.Root, st.IndexedFrom)
			} else {
				fmt.Fprintf(w, "root %s\n", st.Root)
			}
			fmt.Fprintf(w, "%d files, %d symbols, %d chunks\n", st.Files, st.Symbols, st.Chunks)
			printCounts(w, "files by status", st.Status)
			printCounts(w, "files by language", st.Languages)
			printTiers(w, st.LanguageTiers)
			printCounts(w, "skipped by reason", st.Skipped)
			var werr error
			if st.Watcher.Error != "" {
				werr = errors.New(st.Watcher.Error)
			}
			if st.HistoryOutdated {
				fmt.Fprintf(w, "history: %d commits in an older format, not searched: run `cairn index` to read the history again\n", st.HistoryCommits)
			} else if st.HistoryCommits > 0 {
				fmt.Fprintf(w, "history: %d commits (similar past changes)\n", st.HistoryCommits)
			} else {
				fmt.Fprintln(w, "history: none (not a git checkout, or indexed with --history 0)")
			}
			switch {
			case st.Vectors != "":
				fmt.Fprintf(w, "vectors: %s\n", st.Vectors)
			case st.VectorsUntrained >= 0:
				fmt.Fprintf(w, "vectors: none (too little text to train the built-in model on %d chunks; `cairn index` trains it once the repository has grown)\n", st.VectorsUntrained)
			default:
				fmt.Fprintln(w, "vectors: none (indexed with --embedder none, or the vectors were set aside: `cairn index --full` builds them)")
			}
			fmt.Fprintf(w, "watcher: %s\n", describeWatcher(st.Watcher.Published, st.Watcher.Running, werr))
			g.worktree, g.indexed = &st.Worktree, m
			fmt.Fprintf(w, "worktree: %s\n", g.worktreeText())
			g.worktree = nil // stated here: not again on stderr
			for _, d := range st.Damaged {
				fmt.Fprintf(w, "damaged: %s %s: %s\n", d.Part, d.Path, d.Problem)
			}
			if len(st.Damaged) > 0 {
				fmt.Fprintf(w, "advice: %s\n", st.Advice)
			}
			if st.StaleFiles > 0 {
				fmt.Fprintf(w, "stale: %d indexed %s changed since (%s)\n", st.StaleFiles, plural(st.StaleFiles, "file", "files"), strings.Join(st.StaleExamples, ", "))
			}
			if len(st.Problems) > 0 {
				fmt.Fprintf(w, "not fully analysed (%d):\n", len(st.Problems))
				for _, p := range st.Problems {
					fmt.Fprintf(w, "  %-8s %s: %s\n", p.Status, p.Path, p.Error)
				}
			}
			if explain {
				fmt.Fprintf(w, "skipped paths (%d):\n", len(st.Skips))
				for _, sk := range st.Skips {
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

// printCounts prints counts by name, the largest first.
func printCounts(w interface{ Write([]byte) (int, error) }, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range m {
		list = append(list, kv{k, v})
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

// printTiers lists the indexed languages by tier: "languages by tier:
// first-class: go, ruby; tags: shell (…); text: markdown (…)".
func printTiers(w interface{ Write([]byte) (int, error) }, tiers map[string]string) {
	by := map[string][]string{}
	for lang, tier := range tiers {
		by[tier] = append(by[tier], lang)
	}
	var parts []string
	for _, tier := range []string{"first-class", "tags", "text"} {
		if ls := by[tier]; len(ls) > 0 {
			slices.Sort(ls)
			note := ""
			switch tier {
			case "tags":
				note = " (definitions and name-only references)"
			case "text":
				note = " (no grammar: search and context only)"
			}
			parts = append(parts, tier+": "+strings.Join(ls, ", ")+note)
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "languages by tier: %s\n", strings.Join(parts, "; "))
	}
}
