package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/watch"
)

// Watch runs the watch loop (indexer/watch, as `cairn watch` does) inside
// the server: every change to the worktree is indexed through the
// incremental path and the new generation made current as soon as it is
// committed. It fails when another watcher already keeps this index fresh
// (which is as good) or the tree cannot be watched; Close stops it.
func (e *Engine) Watch(ctx context.Context) error {
	e.mu.Lock()
	if e.watcher != nil || e.closed {
		e.mu.Unlock()
		return nil
	}
	e.mu.Unlock()
	if e.Shared() {
		// A server reads a shared store; one `cairn watch --store …` per
		// repository writes it (its lock is in the database).
		return Errorf(Unsupported, "a server does not watch the shared store %s: run `cairn watch --store …` beside the worktree", e.Where())
	}
	begin := func(ctx context.Context) (graph.Writer, []indexer.Sink, error) {
		w, err := store.OpenWriter(ctx, store.WriterOptions{Dir: e.dir, Wait: 30 * time.Second})
		if err != nil {
			return nil, nil, err
		}
		sinks, err := SideIndexes(ctx, w, e.dir, e.opts.embedding(), History{Root: e.root, MaxCommits: e.opts.HistoryCommits}, func(msg string) { e.opts.Log.Warn(msg) })
		if err != nil {
			w.Abort()
			return nil, nil, err
		}
		return w, sinks, nil
	}
	w, err := watch.Start(context.WithoutCancel(ctx), watch.Options{
		Root: e.root, StateDir: e.dir, Begin: begin, Log: e.opts.Log,
		Index: indexer.Options{ExcludeDirs: e.excludes(), Log: e.opts.Log},
		OnBatch: func(b watch.Batch) {
			if b.Committed {
				e.mu.Lock()
				e.refreshLocked(context.Background(), true)
				e.mu.Unlock()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("not watching %s: %w", e.root, err)
	}
	e.mu.Lock()
	e.watcher = w
	e.mu.Unlock()
	return nil
}

// Watching reports whether this engine runs a watcher.
func (e *Engine) Watching() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.watcher != nil
}

// Excludes are the repository-relative directories index runs leave out:
// the index directory when it lives inside the repository.
func (e *Engine) Excludes() []string { return e.excludes() }

func (e *Engine) excludes() []string {
	if rel, err := filepath.Rel(e.root, e.dir); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		return []string{filepath.ToSlash(rel)}
	}
	return nil
}
