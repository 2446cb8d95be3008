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
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/watch"
	"github.com/cairn-dev/cairn/internal/repofs"
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
	// embedded store in IndexDir. The engine only reads a shared store:
	// Reindex and Watch are unsupported on it (`cairn index --store` and
	// `cairn watch --store` write it).
	Store string
	// RepoName names the repository in a shared store; default Root
	// (absolute, as given).
	RepoName string
	// StoreCache is where a shared store's side indexes are materialized
	// locally; "" is the user's cache directory.
	StoreCache string
	// ANN chooses when vector search uses a shared store's HNSW index
	// (default: past fuse.ANNThreshold vectors).
	ANN fuse.ANNMode
	// Embedder names the embedder of queries and re-indexing (see
	// ChooseEmbedder); "" is the built-in one.
	Embedder string
	// EmbedHTTP configures the http embedder (Embedding.HTTP).
	EmbedHTTP embed.HTTPOptions
	// HistoryCommits bounds the commit history re-indexing reads
	// (History.MaxCommits: 0 the default, negative none).
	HistoryCommits int
	// SearchSlots is how many searches run at once (fuse.Engine.Slots);
	// 0 is two per core.
	SearchSlots int
	// WorktreeFullScan makes the worktree check (Snapshot.Worktree) ignore
	// the stat snapshot and walk the tree every time
	// (watch.CheckOptions.FullScan).
	WorktreeFullScan bool
	// CheckEvery bounds how often Acquire looks for a newer generation;
	// default 250ms. Reindex makes its generation current at once.
	CheckEvery time.Duration
	// Log receives warnings (side indexes unusable, re-index problems).
	Log *slog.Logger
}

// embedding is the embedder the options choose.
func (o Options) embedding() Embedding { return Embedding{Name: o.Embedder, HTTP: o.EmbedHTTP} }

// Engine serves snapshots of one repository's index.
type Engine struct {
	opts  Options
	root  string
	dir   string
	files *repofs.FS // the repository boundary: every read of a worktree file
	// queries embeds queries for every generation opened (Options.Embedder,
	// chosen once by Open; nil is the built-in embedder)
	queries embed.Embedder

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
	st   store.Store
	o    *fuse.Opened
	r    *cachingReader
	memo memo
	refs int
	dead bool // replaced: close when refs reach zero
}

// Open prepares an engine over the repository at opts.Root. It succeeds
// without an index; Acquire reports that until one is committed.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	opts.RepoName = cmp.Or(opts.RepoName, root)
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
	queries, err := ChooseEmbedder(opts.embedding())
	if err != nil {
		return nil, err
	}
	if opts.Store != "" && !store.IsShared(opts.Store) {
		return nil, Errorf(InvalidArgument, "%v", &store.URLError{URL: opts.Store})
	}
	e := &Engine{opts: opts, root: root, dir: dir, files: repofs.New(root), queries: queries}
	e.mu.Lock()
	e.refreshLocked(ctx, true)
	e.mu.Unlock()
	return e, nil
}

// Root is the repository root (symlinks resolved).
func (e *Engine) Root() string { return e.root }

// IndexDir is the index directory.
func (e *Engine) IndexDir() string { return e.dir }

// Shared reports whether the engine reads a shared (PostgreSQL) store.
func (e *Engine) Shared() bool { return e.opts.Store != "" }

// Where names the index for messages: the index directory, or the shared
// store (without its password) and the repository's name there.
func (e *Engine) Where() string {
	if e.Shared() {
		return store.Redact(e.opts.Store) + " (repository " + e.opts.RepoName + ")"
	}
	return e.dir
}

// refreshLocked opens the current generation if it differs from e.cur.
func (e *Engine) refreshLocked(ctx context.Context, force bool) {
	if !force && e.cur != nil && time.Since(e.lastCheck) < e.opts.CheckEvery {
		return
	}
	if !force && e.cur == nil && e.openErr != nil && time.Since(e.lastCheck) < e.opts.CheckEvery {
		return
	}
	e.lastCheck = time.Now()
	if e.cur != nil {
		// (an error — the shared store unreachable a moment — keeps
		// the generation served)
		if changed, err := e.cur.st.Changed(ctx); err != nil || !changed {
			return
		}
	}
	h, err := e.openHandle(context.WithoutCancel(ctx))
	if err != nil {
		if e.cur == nil {
			e.openErr = err
		} else {
			e.opts.Log.Warn("cannot open the new index generation; serving the previous one", "err", err)
		}
		return
	}
	if old := e.cur; old != nil {
		e.retireLocked(old)
	}
	e.cur, e.openErr = h, nil
}

// openHandle opens the store's current generation with its side indexes.
func (e *Engine) openHandle(ctx context.Context) (*handle, error) {
	st, err := store.Open(ctx, store.Options{Dir: e.dir, URL: e.opts.Store, RepoName: e.opts.RepoName, CacheDir: e.opts.StoreCache})
	if err != nil {
		return nil, e.damaged(ctx, err)
	}
	for _, w := range st.Warnings() {
		e.opts.Log.Warn(w)
	}
	o, err := fuse.Open(ctx, st, fuse.OpenOptions{QueryEmbedder: e.queries, ANN: e.opts.ANN})
	if err != nil {
		st.Close()
		return nil, e.damaged(ctx, err)
	}
	for _, w := range o.Warnings {
		e.opts.Log.Warn(w)
	}
	// Open read the generation; nothing holds it until a request pins it.
	st.Unpin()
	h := &handle{st: st, o: o, r: newCachingReader(st)}
	h.r.meta = &o.Meta
	o.Engine.R = h.r // search and packs read through the cache too
	o.Engine.Slots = e.opts.SearchSlots
	o.Engine.Worktree = e.files
	vf := &valueFinder{r: h.r, root: e.root, files: e.files, limit: valueTraceTime}
	if len(o.Warnings) == 0 {
		vf.texts = o
	}
	o.Engine.Values = vf
	return h, nil
}

// damaged explains an index that failed to open: when a check of its parts
// finds damage, the error names the damaged parts and says to run `cairn
// index`; otherwise err is returned as it is.
func (e *Engine) damaged(ctx context.Context, err error) error {
	var de *graph.DamagedError
	if errors.As(err, &de) || errors.Is(err, graph.ErrNoIndex) || e.Shared() {
		return err
	}
	var fe *graph.FormatError
	if errors.As(err, &fe) {
		return err
	}
	if dmg, cerr := e.Check(ctx); cerr == nil && len(dmg) > 0 {
		return &graph.DamagedError{Damage: dmg}
	}
	return err
}

// Check verifies every stored part of the index (store.Check: the pointer,
// the facts database page by page, each side file against its recorded
// size and checksum) and returns the damaged ones; it reads the whole
// index once.
func (e *Engine) Check(ctx context.Context) ([]graph.Damage, error) {
	return store.Check(ctx, store.Options{Dir: e.dir, URL: e.opts.Store})
}

// retireLocked marks h replaced and closes it once no request holds it.
func (e *Engine) retireLocked(h *handle) {
	h.dead = true
	if h.refs == 0 {
		h.o.Close()
	}
}

// pinLocked takes a reference on the current handle, pinning its
// generation for the first one; when the generation can no longer be read
// (an embedded commit replaced it while no request held it: ErrMoved), it
// opens the current one and pins that.
func (e *Engine) pinLocked(ctx context.Context) (*handle, error) {
	for attempt := 0; ; attempt++ {
		h := e.cur
		if h.refs > 0 {
			h.refs++
			return h, nil
		}
		err := h.st.Pin(ctx)
		if err == nil {
			h.refs++
			return h, nil
		}
		if attempt > 0 {
			return nil, Classify(err)
		}
		// ErrMoved, or the epoch gone with a full re-index: serve the
		// current generation.
		e.refreshLocked(ctx, true)
		if e.cur == h {
			return nil, Classify(err)
		}
	}
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
			run := "cairn index --repo " + e.root
			if e.Shared() {
				run = "cairn index --store … --repo " + e.root + " (or name the repository with --repo-name)"
			}
			return nil, Errorf(StaleIndex, "no index in %s yet: run `%s` (this server picks it up when it is committed)", e.Where(), run)
		}
		return nil, Classify(err)
	}
	h, err := e.pinLocked(ctx)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Meta: h.o.Meta, R: h.r, Root: e.root, Files: e.files, e: e, h: h,
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
	switch {
	case h.refs > 0:
	case h.dead:
		h.o.Close()
	default:
		h.st.Unpin() // idle: hold no read transaction (the writer checkpoints)
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
		e.retireLocked(h)
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
	if e.Shared() {
		return indexer.Result{}, Errorf(Unsupported, "the engine reads the shared store %s: re-index with `cairn index --store …` or keep it fresh with `cairn watch --store …`", e.Where())
	}
	w, err := store.OpenWriter(ctx, store.WriterOptions{Dir: e.dir, Wait: wait})
	if err != nil {
		return indexer.Result{}, err
	}
	exclude := e.excludes()
	sinks, err := SideIndexes(ctx, w, e.dir, e.opts.embedding(), History{Root: e.root, MaxCommits: e.opts.HistoryCommits}, func(msg string) { e.opts.Log.Warn(msg) })
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
	if e.cur != nil {
		// the run's meta is what it committed, without the generation
		// number the store gave it
		res.Meta.Generation = e.cur.o.Meta.Generation
	}
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
	// Files reads the worktree's files through the repository boundary
	// (internal/repofs): every question that reads a file passes it on.
	Files *repofs.FS
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

// fused is the generation's fused search engine (Search and Context ask
// it; its vectors load on the first search that needs them).
func (s *Snapshot) fused() *fuse.Engine { return s.h.o.Engine }

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
