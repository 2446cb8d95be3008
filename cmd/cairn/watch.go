package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/watch"
)

func watchCmd(g *globals) *cobra.Command {
	var (
		workers  int
		wait     time.Duration
		embedder string
		debounce time.Duration
		rescan   time.Duration
	)
	c := &cobra.Command{
		Use:   "watch [DIR]",
		Short: "keep the index fresh while files change: re-index what changed within moments (stop with Ctrl-C)",
		Long: `watch follows the worktree with inotify and re-indexes each change set through
the same incremental path as 'cairn index': symbols, graph edges, text and
vectors are committed together as one new generation. A branch switch or a
mass edit is one batch; a rescan catches events the kernel dropped. Only one
watcher runs per index; 'cairn status' shows its state.

With --store postgres://… each batch builds the repository's next generation
in the shared store from the change set (as 'cairn index --store …' would,
restricted to the changed paths); one watcher per repository may run, on any
machine (an advisory lock in the database). The watcher's lock and status
stay in the worktree's local index directory.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notNegative(cmd, "workers", "wait", "debounce", "max-file-size"); err != nil {
				return err
			}
			if len(args) == 1 {
				g.repo = args[0]
			}
			ctx := cmd.Context()
			// Batches allocate like index runs (a checkout re-parses
			// thousands of files): the same GC settings, which leave an
			// idle watcher small (GOGC / GOMEMLIMIT win).
			indexGC()
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			dir, err := g.dir()
			if err != nil {
				return err
			}
			// Batches are reported on stdout; the log adds problems (and,
			// with CAIRN_LOG=info or debug, the watcher's own account).
			level := slog.LevelWarn
			switch os.Getenv("CAIRN_LOG") {
			case "debug":
				level = slog.LevelDebug
			case "info":
				level = slog.LevelInfo
			}
			log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: level}))
			begin := func(ctx context.Context) (graph.Writer, []indexer.Sink, error) {
				w, err := store.OpenWriter(ctx, store.WriterOptions{Dir: dir, Wait: wait})
				if err != nil {
					return nil, nil, err
				}
				sinks, err := sideIndexes(ctx, g, w, dir, embedder, engine.History{Root: root, MaxCommits: maxCommits(historyEnv())})
				if err != nil {
					w.Abort()
					return nil, nil, err
				}
				return w, sinks, nil
			}
			opts := watch.Options{
				Root: root, StateDir: dir, Begin: begin, Log: log, Debounce: debounce, Rescan: rescan,
				Index: indexer.Options{Workers: workers, ExcludeDirs: indexExcludes(root, dir), Log: log},
				OnBatch: func(b watch.Batch) {
					if !b.Committed {
						return
					}
					if g.json {
						writeJSONLine(g.stdout, b)
						return
					}
					fmt.Fprintf(g.stdout, "%s indexed %s: %d parsed, %d deleted in %s (%s after the change), revision %s\n",
						time.Now().Format(time.TimeOnly), b.Reason, b.Parsed, b.Deleted, time.Duration(b.Duration).Round(time.Millisecond),
						time.Since(b.FirstSeen).Round(time.Millisecond), revShort(graph.Meta{Revision: b.Revision, Dirty: b.Dirty}))
				},
			}
			where := dir
			if g.shared() {
				// The shared store: each batch is a build of the next
				// generation restricted to the change set; one watcher per
				// repository, on any machine. Lock and status stay in dir.
				run, release, err := sharedRunner(ctx, g, wait, embedder)
				if err != nil {
					return err
				}
				defer release()
				opts.Run, opts.Begin = run, nil
				where = store.Redact(g.store)
			}
			w, err := watch.Start(ctx, opts)
			if err != nil {
				return err
			}
			st := w.Status()
			if !g.quiet && !g.json {
				fmt.Fprintf(g.stderr, "cairn: watching %s (%d %s), index %s; stop with Ctrl-C\n", root, st.Watched, plural(st.Watched, "directory", "directories"), where)
			}
			<-w.Done()
			err = w.Close()
			if !g.shared() {
				// Leave the stat snapshot of the last generation (as
				// `cairn index` does): one-shot answers after the watcher
				// check the worktree from it, not by a full scan that a
				// large repository's may not finish within its budget.
				pctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				primeSnapshot(pctx, dir, root, indexExcludes(root, dir))
				cancel()
			}
			return err
		},
	}
	f := c.Flags()
	f.IntVar(&workers, "workers", 0, "parallel parsers (default: number of CPUs)")
	f.DurationVar(&wait, "wait", 30*time.Second, "how long a batch waits for another indexer holding the lock")
	f.StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "chunk embeddings, as for cairn index")
	f.DurationVar(&debounce, "debounce", 0, "quiet time after the last change before re-indexing (default 15ms)")
	f.DurationVar(&rescan, "rescan", 0, "period of full rescans that catch lost events (default 10m; negative: never)")
	return c
}

// indexExcludes keeps the index directory out of the walk when it lives
// inside the repository.
func indexExcludes(root, dir string) []string {
	if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		return []string{filepath.ToSlash(rel)}
	}
	return nil
}

// writeJSONLine writes v as one line of JSON (a stream of events).
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
