package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/scip"
	"github.com/cairn-dev/cairn/indexer/walk"
)

type indexOptions struct {
	full         bool
	workers      int
	parseTimeout time.Duration
	maxFileSize  int64
	wait         time.Duration
	scip         []string
	noDiscovery  bool
	embedder     string
	jobs         int // shared store: jobs to split the build into (0: by size)
	history      int // commits of history to index (--history; 0: none)
}

// historyEnv is CAIRN_HISTORY, the commits of history to index (0: none):
// engine.DefaultHistoryCommits when unset, none when not a count.
func historyEnv() int {
	v := os.Getenv("CAIRN_HISTORY")
	if v == "" {
		return engine.DefaultHistoryCommits
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return n
	}
	return 0
}

// maxCommits is a --history count as engine.History.MaxCommits has it.
func maxCommits(n int) int {
	if n > 0 {
		return n
	}
	return -1
}

func indexCmd(g *globals) *cobra.Command {
	var o indexOptions
	c := &cobra.Command{
		Use:   "index [DIR]",
		Short: "index a repository (incrementally: only what changed is re-read)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notNegative(cmd, "workers", "parse-timeout", "max-file-size", "wait", "jobs"); err != nil {
				return err
			}
			if o.history < 0 {
				return usageError("--history must not be negative (got %d; 0 indexes no history)", o.history)
			}
			if len(args) == 1 {
				g.repo = args[0]
			}
			return runIndex(cmd, g, o)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.full, "full", false, "rebuild from scratch instead of incrementally")
	f.IntVar(&o.workers, "workers", 0, "parallel parsers (default: number of CPUs)")
	f.DurationVar(&o.parseTimeout, "parse-timeout", 0, "time limit for parsing one file (default 10s)")
	f.Int64Var(&o.maxFileSize, "max-file-size", 0, "skip files larger than this many bytes (default 2 MiB)")
	f.DurationVar(&o.wait, "wait", 30*time.Second, "how long to wait for another indexer holding the lock")
	f.StringArrayVar(&o.scip, "scip", nil, "merge a SCIP index: FILE or FILE:SUBDIR (paths in it are relative to SUBDIR); repeatable")
	f.BoolVar(&o.noDiscovery, "no-scip-discovery", false, "do not merge index.scip files found in the repository")
	f.StringVar(&o.embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "chunk embeddings: builtin (default), http (CAIRN_EMBED_URL/MODEL/KEY), onnx:DIR, none")
	f.IntVar(&o.history, "history", historyEnv(), "commits of git history to index, newest first, for similar past changes (0: none; CAIRN_HISTORY)")
	f.IntVar(&o.jobs, "jobs", 0, "with --store postgres://…: jobs to split a new build into, for other processes to share (default: by size, ~16 MiB of files each)")
	return c
}

func runIndex(cmd *cobra.Command, g *globals, o indexOptions) error {
	ctx := cmd.Context()
	indexGC()
	if g.shared() {
		return runIndexShared(cmd, g, o, false)
	}
	root, err := g.repoRoot()
	if err != nil {
		return err
	}
	dir, err := g.dir()
	if err != nil {
		return err
	}
	// Verify: a damaged part of the index is rebuilt (a fresh epoch)
	// instead of extended.
	w, err := store.OpenWriter(ctx, store.WriterOptions{Dir: dir, Full: o.full, Wait: o.wait, Verify: true})
	if err != nil {
		return err
	}
	var repaired []graph.Damage
	if r, ok := w.(interface{ Repaired() []graph.Damage }); ok {
		repaired = r.Repaired()
	}
	if r, ok := w.(interface{ SideRepair() []graph.Damage }); ok && len(r.SideRepair()) > 0 {
		// Only side indexes are damaged: rebuild them from the stored
		// facts (a generation of its own), then index what changed.
		var text, vectors bool
		var hist engine.History
		for _, d := range r.SideRepair() {
			switch {
			case strings.HasPrefix(d.Part, "text index"):
				text = true
			case strings.HasPrefix(d.Part, "commit history"):
				hist = engine.History{Root: root, MaxCommits: maxCommits(o.history)}
			default:
				vectors = true
			}
		}
		full := false
		if err := engine.RebuildSideIndexes(ctx, w, root, dir, embedding(o.embedder), text, vectors, hist, func(msg string) {
			if !g.quiet {
				fmt.Fprintln(g.stderr, "cairn: warning:", msg)
			}
		}); err != nil {
			if !g.quiet {
				fmt.Fprintf(g.stderr, "cairn: warning: %v; rebuilding the whole index instead\n", err)
			}
			full = true
		}
		if w, err = store.OpenWriter(ctx, store.WriterOptions{Dir: dir, Full: full, Wait: o.wait}); err != nil {
			return err
		}
	}
	exclude := indexExcludes(root, dir)
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
	sinks, err := sideIndexes(ctx, g, w, dir, o.embedder, engine.History{Root: root, MaxCommits: maxCommits(o.history)})
	if err != nil {
		w.Abort()
		return err
	}
	mp := newMemProfiler() // CAIRN_MEMPROFILE
	res, err := indexer.Run(ctx, w, indexer.Options{
		SCIP: specs, NoSCIPDiscovery: o.noDiscovery, Sinks: sinks,
		Root: root, StateDir: dir, Workers: o.workers, ParseTimeout: o.parseTimeout,
		MaxFileSize: o.maxFileSize, ExcludeDirs: exclude, Progress: mp.wrap(newProgress(g)),
		Log: slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: logLevel})),
	})
	mp.finish()
	if err != nil {
		return fmt.Errorf("index %s: %w (the previous index, if any, is unchanged)", root, err)
	}
	trainVectors(ctx, g, root, dir, o, res.Meta)
	primeSnapshot(ctx, dir, root, exclude)
	if g.json {
		return writeJSON(g.stdout, map[string]any{
			"root": root, "index_dir": dir, "fresh": res.Fresh, "why": res.Why,
			"files": res.Walked, "parsed": res.Parsed, "unchanged": res.Unchanged,
			"deleted": res.Deleted, "skipped": res.Skipped, "problems": len(res.Problems),
			"revision": res.Meta.Revision, "dirty": res.Meta.Dirty, "seconds": res.Duration.Seconds(),
			"resolved": res.Resolved, "edges": res.Edges, "scip": res.SCIP, "repaired": repaired,
		})
	}
	if !g.quiet {
		mode := "incremental"
		if res.Fresh {
			mode = "full (" + res.Why + ")"
		}
		fmt.Fprintf(g.stdout, "indexed %s: %d files (%d parsed, %d unchanged, %d deleted), %d skipped, %d not fully analysed, %s, %s\n",
			root, res.Walked, res.Parsed, res.Unchanged, res.Deleted, res.Skipped, len(res.Problems), mode,
			res.Duration.Round(time.Millisecond))
		for _, d := range repaired {
			fmt.Fprintf(g.stdout, "repaired: %s %s (%s): rebuilt\n", d.Part, d.Path, d.Problem)
		}
		if len(res.SCIP.Indexes) > 0 {
			fmt.Fprintf(g.stdout, "scip: %d indexes, %d documents, %d files merged, %d stale, %d documents outside the project skipped\n",
				len(res.SCIP.Indexes), res.SCIP.Docs, res.SCIP.Merged, len(res.SCIP.Stale), res.SCIP.Escaped)
			for _, s := range res.SCIP.Stale {
				fmt.Fprintf(g.stdout, "  stale: %s\n", s)
			}
		}
	}
	return nil
}

// sideIndexes are the indexes built with every generation: BM25 text and
// chunk vectors (engine.SideIndexes, shared with the servers).
func sideIndexes(ctx context.Context, g *globals, w engine.SideWriter, dir, embedder string, hist engine.History) ([]indexer.Sink, error) {
	sinks, err := engine.SideIndexes(ctx, w, dir, embedding(embedder), hist, func(msg string) {
		if !g.quiet { // --quiet: errors only (status shows what side indexes a generation has)
			fmt.Fprintln(g.stderr, "cairn: warning:", msg)
		}
	})
	if ee := (*engine.Error)(nil); errors.As(err, &ee) && ee.Category == engine.InvalidArgument {
		return nil, usageError("--embedder: %s", ee.Message)
	}
	return sinks, err
}

// trainVectors trains the built-in embedding model that could not be
// trained before (too little text) once the repository has grown enough
// (engine.VectorsDue): the vectors are rebuilt from the stored facts as a
// generation of their own. An incremental run alone never would: it does
// not read the whole repository. Best effort: a failure is a warning, the
// index just committed stays.
func trainVectors(ctx context.Context, g *globals, root, dir string, o indexOptions, m graph.Meta) {
	emb := embedding(o.embedder)
	if !engine.VectorsDue(m, math.MaxInt, emb) {
		return // the common case: no store opened again
	}
	warn := func(msg string) {
		if !g.quiet {
			fmt.Fprintln(g.stderr, "cairn: warning:", msg)
		}
	}
	w, err := store.OpenWriter(ctx, store.WriterOptions{Dir: dir, Wait: o.wait})
	if err != nil {
		warn(fmt.Sprintf("vectors not trained: %v", err))
		return
	}
	now, err := w.View().Meta(ctx)
	if err != nil || !engine.VectorsDue(m, now.Chunks, emb) {
		w.Abort()
		if err != nil {
			warn(fmt.Sprintf("vectors not trained: %v", err))
		}
		return
	}
	if !g.quiet {
		fmt.Fprintf(g.stderr, "cairn: training the embedding model: the repository has grown to %d chunks\n", now.Chunks)
	}
	if err := engine.RebuildSideIndexes(ctx, w, root, dir, emb, false, true, engine.History{}, warn); err != nil {
		warn(fmt.Sprintf("vectors not trained: %v", err))
	}
}

// primeSnapshot runs the freshness check once against the generation just
// committed, without a time budget, so that it leaves the stat snapshot
// (indexer.CachedChanges) the next one-shot answer starts from: that
// answer's check is then one lstat per directory and file, not a full scan
// that a loaded machine may not finish within its budget. Best effort.
func primeSnapshot(ctx context.Context, dir, root string, exclude []string) {
	if os.Getenv("CAIRN_WORKTREE_CHECK") == "0" {
		return
	}
	s, err := store.Open(ctx, store.Options{Dir: dir})
	if err != nil {
		return
	}
	defer s.Close()
	m, err := s.Meta(ctx)
	if err != nil {
		return
	}
	indexer.CachedChanges(ctx, s, m, walk.Options{Root: m.Root, ExcludeDirs: exclude}, 0, filepath.Join(dir, indexer.SnapshotFile))
}
