package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/watch"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// Options configure an Engine.
type Options struct {
	// Root is the repository root.
	Root string
	// IndexDir is the index directory; default <Root>/.cairn.
	IndexDir string
	// Store is a shared PostgreSQL store's URL (postgres://…); "" is the
	// embedded store in IndexDir.
	Store string
	// RepoName names the repository in a shared store; default Root.
	RepoName string
	// Embedder names the embedder of queries and re-indexing (see
	// ChooseEmbedder); "" is the built-in one.
	Embedder string
	// CheckEvery bounds how often Acquire looks for a newer generation;
	// default 250ms. Reindex makes its generation current at once.
	CheckEvery time.Duration
	// Log receives warnings (side indexes unusable, re-index problems).
	Log *slog.Logger
}

// Engine serves snapshots of one repository's index.
type Engine struct {
	opts Options
	root string
	dir  string

	mu        sync.Mutex
	cur       *handle
	lastCheck time.Time
	openErr   error

	reindexMu sync.Mutex
	closed    bool
	watcher   *watch.Watcher
}

// handle is one opened generation.
type handle struct {
	o     *fuse.Opened
	r     *cachingReader
	memo  memo
	epoch string
	gen   int64
	refs  int
	dead  bool // replaced: close when refs reach zero
	// The vectors load when a request first searches (see fused): a
	// one-shot trace, impact or status never pays for them.
	qe      embed.Embedder
	vecOnce sync.Once
}

// Open prepares an engine over the repository at opts.Root. It succeeds
// without an index; Acquire reports that until one is committed.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", opts.Root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("repository %s is not a directory", opts.Root)
	}
	// Symlinked roots are compared resolved (RepoPath).
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	dir := opts.IndexDir
	if dir == "" {
		dir = filepath.Join(root, ".cairn")
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	opts.CheckEvery = cmp.Or(opts.CheckEvery, 250*time.Millisecond)
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if _, err := ChooseEmbedder(opts.Embedder); err != nil {
		return nil, err
	}
	if opts.Store != "" {
		return nil, Errorf(Unsupported, "the engine does not open a shared store yet")
	}
	e := &Engine{opts: opts, root: root, dir: dir}
	e.mu.Lock()
	e.refreshLocked(ctx, true)
	e.mu.Unlock()
	return e, nil
}

// Root is the repository root (symlinks resolved).
func (e *Engine) Root() string { return e.root }

// IndexDir is the index directory.
func (e *Engine) IndexDir() string { return e.dir }

// refreshLocked opens the current generation if it differs from e.cur.
func (e *Engine) refreshLocked(ctx context.Context, force bool) {
	if !force && e.cur != nil && time.Since(e.lastCheck) < e.opts.CheckEvery {
		return
	}
	if !force && e.cur == nil && e.openErr != nil && time.Since(e.lastCheck) < e.opts.CheckEvery {
		return
	}
	e.lastCheck = time.Now()
	epoch, err := embedded.CurrentEpoch(e.dir)
	if err != nil {
		if e.cur == nil {
			e.openErr = err
		}
		return
	}
	if e.cur != nil && e.cur.epoch == epoch {
		gen, err := e.cur.o.Store.Generation(ctx)
		if err == nil && gen == e.cur.gen {
			return
		}
	}
	qe, err := ChooseEmbedder(e.opts.Embedder)
	if err != nil {
		e.openErr = err
		return
	}
	o, err := fuse.OpenEmbeddedText(context.WithoutCancel(ctx), e.dir)
	if err != nil {
		if e.cur == nil {
			e.openErr = err
		} else {
			e.opts.Log.Warn("cannot open the new index generation; serving the previous one", "err", err)
		}
		return
	}
	for _, w := range o.Warnings {
		e.opts.Log.Warn(w)
	}
	h := &handle{o: o, r: newCachingReader(o.Store), epoch: o.Store.Epoch(), gen: o.Meta.Generation, qe: qe}
	o.Engine.R = h.r // search and packs read through the cache too
	if old := e.cur; old != nil {
		old.dead = true
		if old.refs == 0 {
			old.o.Close()
		}
	}
	e.cur, e.openErr = h, nil
}

// Acquire returns a snapshot of the newest committed generation. The caller
// must Release it.
func (e *Engine) Acquire(ctx context.Context) (*Snapshot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, Errorf(Internal, "server is shutting down")
	}
	e.refreshLocked(ctx, false)
	if e.cur == nil {
		err := e.openErr
		if err == nil || errors.Is(err, graph.ErrNoIndex) {
			return nil, Errorf(StaleIndex, "no index in %s yet: run `cairn index --repo %s` (this server picks it up when it is committed)", e.dir, e.root)
		}
		return nil, Classify(err)
	}
	h := e.cur
	h.refs++
	s := &Snapshot{Meta: h.o.Meta, R: h.r, Root: e.root, e: e, h: h,
		Fresh: indexer.NewFreshness(e.root, h.r)}
	if len(h.o.Warnings) == 0 {
		s.Texts = h.o
	}
	return s, nil
}

func (e *Engine) release(h *handle) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h.refs--
	if h.refs == 0 && h.dead {
		h.o.Close()
	}
}

// Close stops the watcher, if any, and releases the current generation
// (after its last request).
func (e *Engine) Close() {
	e.mu.Lock()
	w := e.watcher
	e.watcher = nil
	e.mu.Unlock()
	if w != nil {
		w.Close()
	}
	e.reindexMu.Lock()
	defer e.reindexMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if h := e.cur; h != nil {
		h.dead = true
		if h.refs == 0 {
			h.o.Close()
		}
		e.cur = nil
	}
}

// Reindex re-indexes the given repository-relative paths (all of the
// repository when none) through the incremental indexer and makes the new
// generation current. wait bounds the wait for another writer's lock.
func (e *Engine) Reindex(ctx context.Context, paths []string, wait time.Duration) (indexer.Result, error) {
	e.reindexMu.Lock()
	defer e.reindexMu.Unlock()
	if e.closed {
		return indexer.Result{}, Errorf(Internal, "server is shutting down")
	}
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: e.dir, Wait: wait})
	if err != nil {
		return indexer.Result{}, err
	}
	exclude := e.excludes()
	sinks, err := SideIndexes(ctx, w, e.dir, e.opts.Embedder, func(msg string) { e.opts.Log.Warn(msg) })
	if err != nil {
		w.Abort()
		return indexer.Result{}, err
	}
	res, err := indexer.Run(ctx, w, indexer.Options{Root: e.root, StateDir: e.dir, Sinks: sinks, Paths: paths,
		ExcludeDirs: exclude, Log: e.opts.Log})
	if err != nil {
		return res, err
	}
	e.mu.Lock()
	e.refreshLocked(ctx, true)
	e.mu.Unlock()
	return res, nil
}

// TextFinder lists the files whose text holds any of the terms.
type TextFinder interface {
	FilesWithTerms(ctx context.Context, terms []string) ([]string, error)
}

// Snapshot is one request's view: one committed generation.
type Snapshot struct {
	Meta graph.Meta
	R    graph.Reader
	Root string
	// Fresh tells whether indexed files changed since (memoised for this
	// request only).
	Fresh *indexer.Freshness
	// Texts finds the files whose text holds terms (the text index); nil
	// when the generation has no usable text index.
	Texts  TextFinder
	e      *Engine
	h      *handle
	once   sync.Once
	citeMu sync.Mutex
	cites  map[string]cite
	wtOnce sync.Once
	wt     Worktree
}

// Release returns the snapshot; the snapshot must not be used after.
func (s *Snapshot) Release() { s.once.Do(func() { s.e.release(s.h) }) }

// fused is the generation's fused search engine, its vectors opened on
// the first call (every use of the engine goes through here, so the
// vectors are set before any search reads them).
func (s *Snapshot) fused() *fuse.Engine {
	h := s.h
	h.vecOnce.Do(func() {
		if w := h.o.OpenVectors(h.qe); w != "" {
			s.e.opts.Log.Warn(w)
		}
	})
	return h.o.Engine
}

// Cite returns how a location in path is cited: its revision and whether
// the file changed since it was indexed (memoised for the snapshot).
func (s *Snapshot) Cite(ctx context.Context, path string) (revision string, stale bool) {
	s.citeMu.Lock()
	c, ok := s.cites[path]
	s.citeMu.Unlock()
	if ok {
		return c.rev, c.stale
	}
	f, err := s.R.File(ctx, path)
	if err != nil {
		c = cite{stale: true}
	} else {
		c = cite{rev: graph.CiteRevision(s.Meta, f), stale: s.Fresh.Stale(ctx, path)}
	}
	s.citeMu.Lock()
	if s.cites == nil {
		s.cites = map[string]cite{}
	}
	s.cites[path] = c
	s.citeMu.Unlock()
	return c.rev, c.stale
}

type cite struct {
	rev   string
	stale bool
}
