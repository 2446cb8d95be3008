package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/fleet"
	"github.com/cairn-dev/cairn/indexer/scip"
	"github.com/cairn-dev/cairn/indexer/watch"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// The shared store: --store postgres://… (or CAIRN_STORE) on every command.

func (g *globals) shared() bool { return g.store != "" }

// repoKey is the repository's name in a shared store.
func (g *globals) repoKey() (string, error) {
	if g.repoName != "" {
		return g.repoName, nil
	}
	return g.repoRoot()
}

func (g *globals) checkStore() error {
	if !store.IsShared(g.store) {
		return usageError("%v", &store.URLError{URL: g.store})
	}
	return nil
}

// connect opens the shared store's write side (builds, the watcher lock).
func (g *globals) connect(ctx context.Context) (store.Shared, error) {
	if err := g.checkStore(); err != nil {
		return nil, err
	}
	return store.OpenShared(ctx, g.store, store.SharedOptions{})
}

// annMode reads CAIRN_PG_ANN: 1 searches a shared store's vectors through
// its HNSW index always, 0 never; otherwise past fuse.ANNThreshold vectors.
func annMode() fuse.ANNMode {
	switch os.Getenv("CAIRN_PG_ANN") {
	case "1":
		return fuse.ANNAlways
	case "0":
		return fuse.ANNNever
	}
	return fuse.ANNAuto
}

// runIndexShared indexes into the shared store as one process of a build
// (fleet.Run); joinOnly is `cairn worker`.
func runIndexShared(cmd *cobra.Command, g *globals, o indexOptions, joinOnly bool) error {
	ctx := cmd.Context()
	root, err := g.repoRoot()
	if err != nil {
		return err
	}
	name, err := g.repoKey()
	if err != nil {
		return err
	}
	db, err := g.connect(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	logLevel := slog.LevelWarn
	if g.quiet {
		logLevel = slog.LevelError
	}
	if os.Getenv("CAIRN_LOG") == "debug" {
		logLevel = slog.LevelDebug
	}
	var specs []scip.Spec
	for _, sp := range o.scip {
		specs = append(specs, scip.ParseSpec(sp))
	}
	fo := fleet.Options{
		Index: indexer.Options{Root: root, Workers: o.workers, ParseTimeout: o.parseTimeout, MaxFileSize: o.maxFileSize,
			SCIP: specs, NoSCIPDiscovery: o.noDiscovery, Progress: newProgress(g),
			Log: slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: logLevel}))},
		Repo: name, Full: o.full, JoinOnly: joinOnly, Wait: o.wait, Jobs: o.jobs,
		Sinks: func(ctx context.Context, w graph.BuildWriter) ([]indexer.Sink, error) {
			return sideIndexes(ctx, g, w, w.StateDir(), o.embedder, engine.History{})
		},
		Note: func(msg string) {
			if !g.quiet && !g.json {
				fmt.Fprintln(g.stderr, "cairn:", msg)
			}
		},
	}
	res, err := fleet.Run(ctx, db, fo)
	if err != nil {
		return fmt.Errorf("index %s into %s: %w", root, db.Where(), err)
	}
	if g.json {
		return writeJSON(g.stdout, map[string]any{
			"root": root, "store": db.Where(), "repository": name, "generation": res.Generation,
			"fresh": res.Fresh, "why": res.Why, "joined": res.Joined, "jobs": res.Jobs, "jobs_done": res.JobsDone,
			"finalized": res.Finalized, "files": res.Walked, "parsed": res.Parsed, "unchanged": res.Unchanged,
			"deleted": res.Deleted, "skipped": res.Skipped, "problems": len(res.Problems),
			"revision": res.Meta.Revision, "dirty": res.Meta.Dirty, "seconds": res.Duration.Seconds(),
			"resolved": res.Resolved, "edges": res.Edges,
		})
	}
	if !g.quiet {
		mode := "incremental"
		if res.Fresh {
			mode = "full (" + res.Why + ")"
		}
		who := fmt.Sprintf("%d of %d jobs here", res.JobsDone, res.Jobs)
		if res.Finalized {
			who += ", finalized here"
		}
		fmt.Fprintf(g.stdout, "indexed %s into %s as generation %d of %s: %d files (%d parsed, %d unchanged, %d deleted), %d skipped, %d not fully analysed, %s, %s (%s)\n",
			root, db.Where(), res.Generation, name, res.Walked, res.Parsed, res.Unchanged, res.Deleted, res.Skipped,
			len(res.Problems), mode, who, res.Duration.Round(time.Millisecond))
	}
	return nil
}

func migrateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate --store postgres://…",
		Short: "create or upgrade the schema of a shared PostgreSQL store",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !g.shared() {
				return usageError("migrate needs --store postgres://… (or CAIRN_STORE)")
			}
			if err := g.checkStore(); err != nil {
				return err
			}
			res, err := store.Migrate(cmd.Context(), g.store)
			if err != nil {
				return err
			}
			var applied []string
			for _, m := range res.Applied {
				applied = append(applied, fmt.Sprintf("%03d_%s", m.Version, m.Name))
			}
			if g.json {
				return writeJSON(g.stdout, map[string]any{"store": res.Where, "from": res.From, "to": res.To, "applied": applied, "ahead": res.Ahead})
			}
			switch {
			case res.Ahead:
				fmt.Fprintf(g.stdout, "%s: schema version %d is newer than this cairn's; nothing to do (this cairn reads but does not write it)\n", res.Where, res.To)
			case len(applied) == 0:
				fmt.Fprintf(g.stdout, "%s: schema is up to date (version %d)\n", res.Where, res.To)
			default:
				fmt.Fprintf(g.stdout, "%s: schema migrated from version %d to %d (%v)\n", res.Where, res.From, res.To, applied)
			}
			return nil
		},
	}
}

func workerCmd(g *globals) *cobra.Command {
	var o indexOptions
	var follow bool
	c := &cobra.Command{
		Use:   "worker [DIR] --store postgres://…",
		Short: "help index builds of a repository in a shared store (jobs are claimed from the database)",
		Long: `worker joins the build of the repository's next generation that a ` + "`cairn index --store …`" + ` started
(waiting up to --wait for one), takes jobs until none is left, finalizes the build if it
is the last one working, and exits once the build is committed. The worktree must be at
the revision being built. With --follow it then waits for the next build.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				g.repo = args[0]
			}
			if !g.shared() {
				return usageError("worker needs --store postgres://… (or CAIRN_STORE)")
			}
			if err := notNegative(cmd, "workers", "parse-timeout", "max-file-size", "wait"); err != nil {
				return err
			}
			indexGC()
			for {
				err := runIndexShared(cmd, g, o, true)
				if !follow || cmd.Context().Err() != nil {
					return err
				}
				if err != nil && !errors.Is(err, graph.ErrNoBuild) {
					fmt.Fprintln(g.stderr, "cairn:", err)
				}
			}
		},
	}
	f := c.Flags()
	f.IntVar(&o.workers, "workers", 0, "parallel parsers (default: number of CPUs)")
	f.DurationVar(&o.parseTimeout, "parse-timeout", 0, "time limit for parsing one file (default 10s)")
	f.Int64Var(&o.maxFileSize, "max-file-size", 0, "skip files larger than this many bytes (default 2 MiB)")
	f.DurationVar(&o.wait, "wait", time.Minute, "how long to wait for a build to join")
	f.StringVar(&o.embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "chunk embeddings, should this worker finalize: builtin (default), http, onnx:DIR, none")
	f.BoolVar(&follow, "follow", false, "keep waiting for the next build")
	return c
}

// sharedRunner connects to the shared store, takes the repository's
// watcher lock and returns the watcher's batch runner: a fleet build of
// the next generation restricted to the batch's paths, skipped when
// nothing changed. release gives the lock and the connections back.
func sharedRunner(ctx context.Context, g *globals, wait time.Duration, embedder string) (run watch.Runner, release func(), err error) {
	name, err := g.repoKey()
	if err != nil {
		return nil, nil, err
	}
	db, err := g.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	host, _ := os.Hostname()
	unlock, err := db.LockWatcher(ctx, name, fmt.Sprintf("cairn watch %s/%d", host, os.Getpid()))
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	run = func(ctx context.Context, io indexer.Options) (indexer.Result, error) {
		fo := fleet.Options{Index: io, Repo: name, Paths: io.Paths, SkipUnchanged: io.SkipUnchanged, Wait: wait,
			Sinks: func(ctx context.Context, w graph.BuildWriter) ([]indexer.Sink, error) {
				return sideIndexes(ctx, g, w, w.StateDir(), embedder, engine.History{})
			}}
		fo.Index.Paths, fo.Index.SkipUnchanged = nil, false
		r, err := fleet.Run(ctx, db, fo)
		if err != nil {
			return r.Result, fmt.Errorf("index into %s: %w", db.Where(), err)
		}
		return r.Result, nil
	}
	return run, func() { unlock(); db.Close() }, nil
}
