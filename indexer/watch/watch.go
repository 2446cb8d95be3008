package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// Begin opens the next generation of the watched index: a writer and the
// side indexes that commit with it. It may wait for another writer.
type Begin func(ctx context.Context) (graph.Writer, []indexer.Sink, error)

// Runner runs one batch's index run itself, for a store whose builds are
// not one writer's (the shared store's, indexer/fleet). o is the batch's
// run: Options.Index with Root, StateDir, Paths and SkipUnchanged set.
type Runner func(ctx context.Context, o indexer.Options) (indexer.Result, error)

// Options configure a Watcher. Zero durations and counts take the defaults.
type Options struct {
	// Root is the repository to watch.
	Root string
	// StateDir holds the watcher's lock and status file and the indexer's
	// crash journal (the index directory of an embedded store).
	StateDir string
	// Begin opens each batch's writer and sinks; or else Run runs each
	// batch (one of them is needed).
	Begin Begin
	Run   Runner
	// Index is the template of every batch's index run (workers, limits,
	// excluded directories, SCIP, log); Root, StateDir, Paths and Sinks are
	// set per batch.
	Index indexer.Options
	// Debounce is the quiet time after the last event before a batch
	// starts (default 15ms).
	Debounce time.Duration
	// StormDebounce replaces Debounce once StormAt paths are pending, HEAD
	// moved or a full rescan is due (default 250ms): a checkout or a
	// formatter run becomes one batch.
	StormDebounce time.Duration
	StormAt       int // default 64
	// MaxDelay bounds how long a change waits while events keep coming
	// (default 3s).
	MaxDelay time.Duration
	// FullAt is the size of a change set that is indexed as a full rescan
	// instead (default 2000).
	FullAt int
	// Rescan is the period of full rescans that catch events the OS lost
	// (default 10m; negative: never). DegradedRescan replaces it while
	// some directories cannot be watched (default 30s).
	Rescan         time.Duration
	DegradedRescan time.Duration
	// Log receives what the watcher does (batches at Info, problems at
	// Warn); nil discards it.
	Log *slog.Logger
	// TrimAfter is how long the watcher stays idle before it returns the
	// memory of its batches to the OS (default 3s).
	TrimAfter time.Duration
	// OnBatch is called after every batch, committed or not, from the
	// watcher's goroutine (a server refreshes its snapshot here).
	OnBatch func(Batch)

	// testing hooks
	addWatch   func(w *fsnotify.Watcher, dir string) error
	beforeRead chan struct{}
}

func (o *Options) defaults() {
	o.Debounce = cmp.Or(o.Debounce, 15*time.Millisecond)
	o.StormDebounce = cmp.Or(o.StormDebounce, 250*time.Millisecond)
	o.StormAt = cmp.Or(o.StormAt, 64)
	o.MaxDelay = cmp.Or(o.MaxDelay, 3*time.Second)
	o.FullAt = cmp.Or(o.FullAt, 2000)
	o.Rescan = cmp.Or(o.Rescan, 10*time.Minute)
	o.DegradedRescan = cmp.Or(o.DegradedRescan, 30*time.Second)
	o.TrimAfter = cmp.Or(o.TrimAfter, 3*time.Second)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.addWatch == nil {
		o.addWatch = func(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }
	}
}

// Batch describes one index run of the watcher.
type Batch struct {
	Reason    string         `json:"reason"`
	Paths     int            `json:"paths"` // size of the change set (0: full rescan)
	Full      bool           `json:"full"`
	Parsed    int            `json:"parsed"`
	Deleted   int            `json:"deleted"`
	Committed bool           `json:"committed"` // false: nothing changed, or it failed
	Revision  string         `json:"revision,omitempty"`
	Dirty     bool           `json:"dirty,omitempty"`
	FirstSeen time.Time      `json:"first_event"` // the oldest change it includes
	Started   time.Time      `json:"started"`
	Duration  Millis         `json:"duration_ms"`
	Error     string         `json:"error,omitempty"`
	Result    indexer.Result `json:"-"`
}

// Millis is a duration that encodes as milliseconds.
type Millis time.Duration

// MarshalJSON implements json.Marshaler.
func (d Millis) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, "%.1f", float64(time.Duration(d).Microseconds())/1000), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Millis) UnmarshalJSON(b []byte) error {
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*d = Millis(time.Duration(ms * float64(time.Millisecond)))
	return nil
}

// Watcher keeps one index fresh. Start one with Start.
type Watcher struct {
	opts    Options
	root    string // absolute, symlink-free
	lock    *os.File
	fsw     *fsnotify.Watcher
	gitDirs []string        // the git directory and the common one
	watched map[string]bool // absolute directories watched
	exclude []string        // repository-relative directories never indexed
	head    string          // HEAD as last seen

	mu      sync.Mutex
	st      Status
	idle    chan struct{} // closed while nothing is pending or running
	touched []string      // paths handed in by Touch
	err     error

	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	trim   *time.Timer // returns a batch's memory to the OS once idle
}

// ErrWatching is returned by Start when another watcher holds the index.
var ErrWatching = errors.New("another watcher is keeping this index fresh")

// Start locks the index for watching, sets a watch on every directory the
// walker would enter, and starts the loop, whose first batch catches up
// with whatever changed while nothing watched. Every change made after
// Start returns is seen. The watcher stops when ctx ends or Close is called.
func Start(ctx context.Context, opts Options) (*Watcher, error) {
	opts.defaults()
	if opts.Begin == nil && opts.Run == nil {
		return nil, errors.New("watch: no store to write to (Options.Begin or Options.Run)")
	}
	wk, err := walk.New(walkOptions(opts))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	lock, err := lockState(opts.StateDir, wk.Root())
	if err != nil {
		return nil, err
	}
	w := &Watcher{opts: opts, root: wk.Root(), lock: lock, watched: map[string]bool{},
		exclude: opts.Index.ExcludeDirs, kick: make(chan struct{}, 1), done: make(chan struct{}), idle: make(chan struct{})}
	now := time.Now()
	w.st = Status{PID: os.Getpid(), Root: w.root, Started: now, State: StateStarting, Mode: ModeEvents}
	w.head = gitrepo.Head(ctx, w.root)
	w.st.Head = w.head
	w.gitDirs = gitrepo.Dirs(ctx, w.root)

	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		// Without inotify (instances exhausted) the watcher still polls.
		w.degrade(ModePolling, fmt.Sprintf("cannot watch for changes (%v); polling every %s", err, opts.DegradedRescan))
	} else {
		w.fsw = fsw
		if err := w.watchTree(ctx, ""); err != nil {
			fsw.Close()
			unlockState(lock)
			return nil, err
		}
		for _, d := range w.gitDirs {
			for _, sub := range []string{"", "refs", "refs/heads"} {
				if err := opts.addWatch(fsw, filepath.Join(d, sub)); err == nil {
					w.watched[filepath.Join(d, sub)] = true
				}
			}
		}
	}
	w.writeStatus()
	ctx, w.cancel = context.WithCancel(ctx)
	go func() {
		err := w.loop(ctx)
		w.mu.Lock()
		w.err = err
		w.st.State = StateStopped
		w.st.Pending = 0
		if w.trim != nil {
			w.trim.Stop()
		}
		w.mu.Unlock()
		w.writeStatus()
		if w.fsw != nil {
			w.fsw.Close()
		}
		unlockState(w.lock)
		close(w.done)
	}()
	return w, nil
}

// Run watches until ctx ends.
func Run(ctx context.Context, opts Options) error {
	w, err := Start(ctx, opts)
	if err != nil {
		return err
	}
	<-w.done
	return w.err
}

// Close stops the watcher and waits for it; a batch in progress is
// abandoned (its changes are found again by the next start).
func (w *Watcher) Close() error {
	w.cancel()
	<-w.done
	return w.err
}

// Done is closed when the watcher has stopped.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// Status returns the watcher's state now.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.st
	st.Updated = time.Now()
	return st
}

// Touch adds paths (repository-relative or absolute) to the change set, as
// if their events had come: a server does so for documents it saw saved.
func (w *Watcher) Touch(paths ...string) {
	w.mu.Lock()
	w.touched = append(w.touched, paths...)
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Sync waits until every change the watcher has received so far is
// committed (or found to change nothing), or ctx ends. A write made just
// before may not have reached the watcher yet.
func (w *Watcher) Sync(ctx context.Context) error {
	w.mu.Lock()
	ch := w.idle
	w.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
		return cmp.Or(w.err, errors.New("watcher stopped"))
	}
}

func walkOptions(o Options) walk.Options {
	return walk.Options{Root: o.Root, MaxFileSize: o.Index.MaxFileSize, ExcludeDirs: o.Index.ExcludeDirs}
}

// watchTree sets watches on rel and every directory below it that the
// walker enters.
func (w *Watcher) watchTree(ctx context.Context, rel string) error {
	if w.fsw == nil {
		return nil
	}
	wk, err := walk.New(walkOptions(w.opts))
	if err != nil {
		return err
	}
	unwatched := 0
	var limitErr error
	noop := func(walk.Entry) error { return nil }
	skip := func(graph.Skip) error { return nil }
	err = wk.WalkPaths(ctx, []string{rel}, func(d string) error {
		abs := filepath.Join(w.root, filepath.FromSlash(d))
		if w.watched[abs] {
			return nil
		}
		if unwatched > 0 {
			unwatched++ // the limit was reached: do not hammer the kernel
			return nil
		}
		switch err := w.opts.addWatch(w.fsw, abs); {
		case err == nil:
			w.watched[abs] = true
		case errors.Is(err, syscall.ENOSPC):
			unwatched++
			limitErr = err
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			// gone already; its removal event follows
		default:
			w.opts.Log.Warn("cannot watch directory", "dir", d, "error", err)
		}
		return nil
	}, noop, skip)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.st.Watched = w.countWatched()
	w.mu.Unlock()
	if unwatched > 0 {
		w.mu.Lock()
		w.st.Unwatched += unwatched
		n := w.st.Unwatched
		w.mu.Unlock()
		w.degrade(ModeDegraded, fmt.Sprintf("inotify watch limit reached (%v; fs.inotify.max_user_watches = %s): %d directories are not watched, so changes there are found by a rescan every %s; raise the limit (sysctl fs.inotify.max_user_watches=524288) and restart the watcher",
			limitErr, readProc("/proc/sys/fs/inotify/max_user_watches"), n, w.opts.DegradedRescan))
	}
	return nil
}

// unwatchTree removes the watches on abs and below (a directory removed or
// moved away: inotify would go on reporting a moved tree under old names).
func (w *Watcher) unwatchTree(abs string) {
	for d := range w.watched {
		if d == abs || strings.HasPrefix(d, abs+"/") {
			if w.fsw != nil {
				w.fsw.Remove(d) // fails for a deleted directory: its watch is gone already
			}
			delete(w.watched, d)
		}
	}
	w.mu.Lock()
	w.st.Watched = w.countWatched()
	w.mu.Unlock()
}

func (w *Watcher) countWatched() int {
	n := 0
	for d := range w.watched {
		if !w.inGit(d) {
			n++
		}
	}
	return n
}

func (w *Watcher) degrade(mode, why string) {
	w.mu.Lock()
	changed := w.st.Degraded != why
	w.st.Mode, w.st.Degraded = mode, why
	w.mu.Unlock()
	if changed {
		w.opts.Log.Warn("watcher degraded: " + why)
	}
}

func (w *Watcher) inGit(abs string) bool {
	for _, g := range w.gitDirs {
		if abs == g || strings.HasPrefix(abs, g+"/") {
			return true
		}
	}
	return false
}

// rel maps an event's path to a repository-relative one; false for paths
// outside the repository or never indexed.
func (w *Watcher) rel(abs string) (string, bool) {
	r, ok := strings.CutPrefix(abs, w.root+"/")
	if !ok {
		return "", false
	}
	for _, x := range w.exclude {
		if r == x || strings.HasPrefix(r, x+"/") {
			return "", false
		}
	}
	return r, true
}

// changeSet is what the loop collects between batches.
type changeSet struct {
	paths       map[string]bool
	full        bool
	why         string
	headCheck   bool
	urgent      bool // start without waiting (the catch-up run)
	first, last time.Time
}

func (c *changeSet) empty() bool { return len(c.paths) == 0 && !c.full && !c.headCheck }

func (c *changeSet) note(now time.Time) {
	if c.first.IsZero() {
		c.first = now
	}
	c.last = now
}

func (c *changeSet) setFull(why string, now time.Time) {
	if !c.full {
		c.full, c.why = true, why
	}
	c.note(now)
}

// event folds one file-system event into the change set.
func (w *Watcher) event(ctx context.Context, ev fsnotify.Event, cs *changeSet) {
	now := time.Now()
	if w.inGit(ev.Name) {
		base := filepath.Base(ev.Name)
		switch {
		case base == "exclude" && filepath.Base(filepath.Dir(ev.Name)) == "info":
			cs.setFull("git's info/exclude changed", now)
		case base == "HEAD" || base == "packed-refs" || strings.Contains(ev.Name, "/refs/") || base == "index":
			cs.headCheck = true
			cs.note(now)
		}
		return
	}
	rel, ok := w.rel(ev.Name)
	if !ok || ev.Op == fsnotify.Chmod {
		return
	}
	if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && w.watched[ev.Name] {
		w.unwatchTree(ev.Name)
	}
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
		st, err := os.Lstat(ev.Name)
		switch {
		case err != nil:
		case st.IsDir():
			if ev.Has(fsnotify.Create) {
				if err := w.watchTree(ctx, rel); err != nil {
					w.opts.Log.Warn("cannot watch new directory", "dir", rel, "error", err)
				}
			}
		case st.Mode().IsRegular():
			// Editor swap and backup files: nothing to index. (Their
			// removal still reaches the indexer, which ignores it.)
			if r, _ := walk.ClassifyPath(rel, 0, 1); r == graph.SkipUnknownType && !isIgnoreFile(rel) {
				return
			}
		}
	}
	if isIgnoreFile(rel) {
		// What the directory's ignore file governs may have changed:
		// re-walk the directory (and watch what became indexable).
		rel = path.Dir(rel)
		if rel == "." {
			rel = ""
		}
		if err := w.watchTree(ctx, rel); err != nil {
			w.opts.Log.Warn("cannot watch directory", "dir", rel, "error", err)
		}
		if rel == "" {
			cs.setFull("root ignore file changed", now)
			return
		}
	}
	cs.paths[rel] = true
	cs.note(now)
	if len(cs.paths) >= w.opts.FullAt {
		cs.setFull(fmt.Sprintf("more than %d paths changed", w.opts.FullAt), now)
	}
}

func isIgnoreFile(rel string) bool {
	b := path.Base(rel)
	return b == ".gitignore" || b == ".cairnignore"
}

// due says when the change set's batch should start.
func (w *Watcher) due(cs *changeSet) time.Time {
	if cs.urgent {
		return time.Time{}
	}
	quiet := w.opts.Debounce
	if cs.full || cs.headCheck || len(cs.paths) >= w.opts.StormAt {
		quiet = w.opts.StormDebounce
	}
	at := cs.last.Add(quiet)
	if lim := cs.first.Add(w.opts.MaxDelay); lim.Before(at) {
		at = lim
	}
	return at
}

type batchResult struct {
	b     Batch
	cs    changeSet
	err   error
	moved string // the HEAD the batch indexed
}

// loop is the watcher's single goroutine: it owns the change set.
func (w *Watcher) loop(ctx context.Context) error {
	cs := changeSet{paths: map[string]bool{}}
	cs.setFull("start: catch up with changes made while not watching", time.Now())
	cs.urgent = true
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	rescanEvery := func() time.Duration {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.st.Mode != ModeEvents {
			return w.opts.DegradedRescan
		}
		return w.opts.Rescan
	}
	var rescan <-chan time.Time
	var rescanTimer *time.Timer
	armRescan := func() {
		if rescanTimer != nil {
			rescanTimer.Stop()
			rescanTimer, rescan = nil, nil
		}
		if d := rescanEvery(); d > 0 {
			rescanTimer = time.NewTimer(d)
			rescan = rescanTimer.C
		}
	}
	armRescan()
	defer func() {
		if rescanTimer != nil {
			rescanTimer.Stop()
		}
	}()

	results := make(chan batchResult, 1)
	running := false
	var retryAt time.Time
	backoff := time.Duration(0)

	arm := func() {
		if running {
			return
		}
		if cs.empty() {
			w.setIdle()
			return
		}
		w.setPending(len(cs.paths), cs.first)
		at := w.due(&cs)
		if retryAt.After(at) {
			at = retryAt
		}
		timer.Reset(max(0, time.Until(at)))
	}
	start := func() {
		if running || cs.empty() {
			return
		}
		if !cs.urgent && time.Now().Before(w.due(&cs)) {
			arm()
			return
		}
		if cs.headCheck {
			if h := gitrepo.Head(ctx, w.root); h != w.head {
				cs.setFull(fmt.Sprintf("HEAD moved %s → %s", short(w.head), short(h)), time.Now())
				w.head = h
			}
			cs.headCheck = false
			if cs.empty() {
				w.setIdle()
				return
			}
		}
		batch := cs
		cs = changeSet{paths: map[string]bool{}}
		running = true
		w.setRunning(&batch)
		go func() {
			b, err := w.index(ctx, &batch)
			results <- batchResult{b: b, cs: batch, err: err}
		}()
	}

	for {
		if w.opts.beforeRead != nil {
			select {
			case <-w.opts.beforeRead:
			case <-ctx.Done():
			}
		}
		select {
		case <-ctx.Done():
			if running {
				<-results // the run sees ctx ended and aborts
			}
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.event(ctx, ev, &cs)
			arm()
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.mu.Lock()
				w.st.Overflows++
				n := w.st.Overflows
				w.mu.Unlock()
				w.opts.Log.Warn("the kernel dropped file events (inotify queue overflow); rescanning the whole tree",
					"overflows", n, "fs.inotify.max_queued_events", readProc("/proc/sys/fs/inotify/max_queued_events"))
				cs.setFull("events lost (inotify queue overflow)", time.Now())
				w.writeStatus()
			} else {
				w.opts.Log.Warn("watch error", "error", err)
			}
			arm()
		case <-w.kick:
			w.mu.Lock()
			ps := w.touched
			w.touched = nil
			w.mu.Unlock()
			now := time.Now()
			for _, p := range ps {
				if filepath.IsAbs(p) {
					var ok bool
					if p, ok = w.rel(filepath.Clean(p)); !ok {
						continue
					}
				}
				cs.paths[filepath.ToSlash(filepath.Clean(p))] = true
				cs.note(now)
			}
			arm()
		case <-rescan:
			cs.setFull("periodic rescan", time.Now())
			armRescan()
			arm()
		case <-timer.C:
			start()
		case r := <-results:
			running = false
			w.finish(r)
			if r.err != nil {
				if ctx.Err() != nil {
					return nil
				}
				// Keep the changes for the next batch, after a back-off.
				for p := range r.cs.paths {
					cs.paths[p] = true
				}
				if r.cs.full {
					cs.setFull(r.cs.why, r.cs.first)
				}
				cs.note(time.Now())
				backoff = min(max(2*backoff, 500*time.Millisecond), 30*time.Second)
				retryAt = time.Now().Add(backoff)
			} else {
				backoff, retryAt = 0, time.Time{}
				if r.cs.full {
					armRescan()
				}
			}
			arm()
		}
	}
}

// index runs one batch.
func (w *Watcher) index(ctx context.Context, cs *changeSet) (Batch, error) {
	b := Batch{Reason: cs.why, Full: cs.full, FirstSeen: cs.first, Started: time.Now()}
	var paths []string
	if !cs.full {
		for p := range cs.paths {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		b.Paths = len(paths)
		if b.Reason == "" {
			b.Reason = "changed: " + summarise(paths)
		}
	}
	o := w.opts.Index
	o.Root, o.StateDir, o.Paths = w.root, w.opts.StateDir, paths
	o.SkipUnchanged = true
	var res indexer.Result
	var err error
	if w.opts.Run != nil {
		res, err = w.opts.Run(ctx, o)
	} else {
		var wr graph.Writer
		if wr, o.Sinks, err = w.opts.Begin(ctx); err != nil {
			b.Error = err.Error()
			return b, err
		}
		res, err = indexer.Run(ctx, wr, o)
	}
	b.Duration = Millis(time.Since(b.Started))
	b.Result = res
	if err != nil {
		b.Error = err.Error()
		return b, err
	}
	b.Parsed, b.Deleted, b.Committed = res.Parsed, res.Deleted, !res.NoChange
	b.Revision, b.Dirty = res.Meta.Revision, res.Meta.Dirty
	return b, nil
}

func (w *Watcher) finish(r batchResult) {
	b := r.b
	log := w.opts.Log
	switch {
	case r.err != nil && errors.Is(r.err, context.Canceled):
	case r.err != nil:
		log.Warn("index batch failed; its changes stay pending", "reason", b.Reason, "error", r.err)
	case b.Committed:
		log.Info("indexed", "reason", b.Reason, "parsed", b.Parsed, "deleted", b.Deleted,
			"ms", time.Duration(b.Duration).Milliseconds(), "lag_ms", time.Since(b.FirstSeen).Milliseconds())
	default:
		log.Debug("nothing to index", "reason", b.Reason, "ms", time.Duration(b.Duration).Milliseconds())
	}
	w.mu.Lock()
	w.st.Batches++
	if b.Committed {
		w.st.Commits++
	}
	w.st.Last = &b
	if r.err != nil {
		w.st.LastError = r.err.Error()
	} else {
		w.st.LastError = ""
		if b.Revision != "" {
			w.st.Indexed = b.Revision
		}
	}
	w.st.State = StateWatching
	w.st.Head = w.head
	w.mu.Unlock()
	if w.opts.OnBatch != nil {
		w.opts.OnBatch(b)
	}
}

func (w *Watcher) setRunning(cs *changeSet) {
	w.mu.Lock()
	w.st.State = StateIndexing
	w.st.Pending = len(cs.paths)
	if cs.full {
		w.st.Pending = max(w.st.Pending, 1)
	}
	since := cs.first
	w.st.PendingSince = &since
	w.busyLocked()
	w.mu.Unlock()
	w.writeStatus()
}

func (w *Watcher) setPending(n int, since time.Time) {
	w.mu.Lock()
	wasIdle := w.st.Pending == 0
	w.st.Pending = max(n, 1)
	if wasIdle {
		w.st.PendingSince = &since
	}
	w.busyLocked()
	w.mu.Unlock()
	if wasIdle {
		w.writeStatus()
	}
}

func (w *Watcher) setIdle() {
	w.mu.Lock()
	wasBusy := w.st.Pending != 0 || w.st.State != StateWatching
	w.st.Pending, w.st.PendingSince = 0, nil
	if w.st.State != StateStopped {
		w.st.State = StateWatching
	}
	idle := w.idle
	w.mu.Unlock()
	// The status file says so before Sync returns: whoever waited reads
	// it next (a one-shot command's freshness check).
	if wasBusy {
		w.writeStatus()
	}
	if wasBusy {
		w.trimLater()
	}
	w.mu.Lock()
	if w.idle == idle && w.st.Pending == 0 && w.st.State == StateWatching { // not busy again meanwhile
		select {
		case <-w.idle:
		default:
			close(w.idle)
		}
	}
	w.mu.Unlock()
}

// trimLater gives the memory of the last batches back to the operating
// system once the watcher has stayed idle for TrimAfter: a batch (a
// checkout re-parses a thousand files) grows the heap to hundreds of MB,
// which the runtime would otherwise keep while the watcher sleeps.
func (w *Watcher) trimLater() {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.st.Batches
	if w.trim != nil {
		w.trim.Stop()
	}
	w.trim = time.AfterFunc(w.opts.TrimAfter, func() {
		w.mu.Lock()
		still := w.st.Batches == n && w.st.Pending == 0 && w.st.State == StateWatching
		w.mu.Unlock()
		if still {
			debug.FreeOSMemory()
		}
	})
}

// busyLocked reopens the idle channel.
func (w *Watcher) busyLocked() {
	select {
	case <-w.idle:
		w.idle = make(chan struct{})
	default:
	}
}

func summarise(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:3], ", "), len(paths)-3)
}

func short(rev string) string {
	if rev == "" {
		return "(none)"
	}
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

func readProc(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}
