package embedded

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
)

// knownCache keeps, per index directory, the file states of the generation
// this process last committed, so that the next incremental writer — a
// watcher's next batch, a server's re-index after an edit — need not read
// every file's row again (Known is most of the fixed cost of a small run).
// An entry is used only for the very generation it describes: a commit by
// any other process, or another epoch, makes it miss. Epochs are told
// apart by their identity (epochIDKey), not their name: a directory wiped
// and indexed again — a gate's workspace index, rebuilt at the same path
// for every run — starts over at epoch-000001, and an entry keyed by the
// name would hand the new epoch the old one's file states and symbol ids.
var knownCache struct {
	sync.Mutex
	dirs map[string]*knownEntry
}

type knownEntry struct {
	epoch string // the epoch's identity (epochIDKey)
	gen   int64
	known map[string]graph.FileState
	files map[string]graph.File
	ids   map[string]int64
}

// epochIDKey is the meta key holding an epoch's identity: random, written
// by the fresh writer that creates the epoch and kept by every generation
// after it, so two epochs of one name in one directory (the directory
// removed between them) are never taken for one.
const epochIDKey = "epoch_id"

func newEpochID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func cacheKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// cachedKnown returns copies of the cached states, files and row ids of
// the generation the writer extends, if the cache holds that generation.
func (w *Writer) cachedKnown() (map[string]graph.FileState, map[string]graph.File, map[string]int64, bool) {
	if w.fresh {
		return nil, nil, nil, false
	}
	knownCache.Lock()
	defer knownCache.Unlock()
	e := knownCache.dirs[cacheKey(w.dir)]
	if e == nil || e.epoch != w.epochID || e.gen != w.prevGen {
		return nil, nil, nil, false
	}
	return maps.Clone(e.known), maps.Clone(e.files), maps.Clone(e.ids), true
}

// remember caches the states of the generation just committed.
func (w *Writer) remember() {
	knownCache.Lock()
	defer knownCache.Unlock()
	if knownCache.dirs == nil {
		knownCache.dirs = map[string]*knownEntry{}
	}
	if w.known == nil || w.files == nil {
		delete(knownCache.dirs, cacheKey(w.dir))
		return
	}
	knownCache.dirs[cacheKey(w.dir)] = &knownEntry{epoch: w.epochID, gen: w.prevGen + 1, known: w.known, files: w.files, ids: w.fileIDs}
}

// The writes below keep w.known (the states as this generation will have
// them) in step with the tables, once Known has been called.

func (w *Writer) knownFile(f *graph.File) {
	if w.known != nil {
		w.known[f.Path] = graph.FileState{Path: f.Path, Hash: f.Hash, Size: f.Size, ModTime: f.ModTime, Lang: f.Lang,
			Status: f.Status, Committed: f.Committed, SCIP: f.SCIP}
	}
	if w.files != nil {
		w.files[f.Path] = *f
	}
}

func (w *Writer) knownTouch(path string, size, modTime int64) {
	if st, ok := w.known[path]; ok {
		st.Size, st.ModTime = size, modTime
		w.known[path] = st
	}
	if f, ok := w.files[path]; ok {
		f.Size, f.ModTime = size, modTime
		w.files[path] = f
	}
}

func (w *Writer) knownCommitted(path string, committed bool) {
	if st, ok := w.known[path]; ok && st.Skip == graph.SkipNone {
		st.Committed = committed
		w.known[path] = st
	}
	if f, ok := w.files[path]; ok {
		f.Committed = committed
		w.files[path] = f
	}
}

func (w *Writer) knownSkip(s graph.Skip, size, modTime int64) {
	if w.known != nil {
		w.known[s.Path] = graph.FileState{Path: s.Path, Skip: s.Reason, Size: size, ModTime: modTime}
	}
	delete(w.files, s.Path)
}

func (w *Writer) knownDelete(path string) {
	delete(w.known, path)
	delete(w.files, path)
}

// writerView reads through the writer's transaction, with its statements
// prepared once per generation (the resolver asks thousands of small
// questions); it lists files from the states the writer keeps (once Known
// was called) instead of reading every row again.
type writerView struct {
	view
	w *Writer
}

func (w *Writer) newView() writerView {
	return writerView{view: view{q: stmtQuerier{w}}, w: w}
}

// stmtQuerier runs queries on the writer's transaction through its cache of
// prepared statements (up to a bound: queries with variable IN lists).
type stmtQuerier struct{ w *Writer }

const maxStmts = 256

func (q stmtQuerier) prepared(ctx context.Context, query string) *sql.Stmt {
	q.w.stmtMu.Lock()
	_, ok := q.w.stmts[query]
	full := len(q.w.stmts) >= maxStmts
	q.w.stmtMu.Unlock()
	if !ok && full {
		return nil
	}
	st, err := q.w.stmt(ctx, query)
	if err != nil {
		return nil // the plain query reports it
	}
	return st
}

func (q stmtQuerier) QueryContext(ctx context.Context, query string, args ...any) (rowSet, error) {
	var rows *sql.Rows
	var err error
	if st := q.prepared(ctx, query); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = q.w.tx.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (q stmtQuerier) QueryRowContext(ctx context.Context, query string, args ...any) rowScanner {
	if st := q.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.w.tx.QueryRowContext(ctx, query, args...)
}

// Files lists every indexed file in path order, as the generation being
// written has them.
func (v writerView) Files(ctx context.Context) ([]graph.File, error) {
	if v.w.files == nil {
		return v.view.Files(ctx)
	}
	out := make([]graph.File, 0, len(v.w.files))
	for _, f := range v.w.files {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b graph.File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// sidCache keeps, per index directory and epoch, the symbol ids this
// process saw committed. Interned symbols are never deleted from an epoch,
// so a committed id stays valid for the epoch's life; ids interned by a
// writer that aborts are dropped with it (they join only at commit).
var sidCache struct {
	sync.RWMutex
	dirs map[string]*sidEntry
}

type sidEntry struct {
	epoch string // the epoch's identity (epochIDKey)
	ids   map[string]int64
}

// maxCachedSIDs bounds the cache (a long-running watcher touches a part of
// a large repository's symbols; a full rebuild interns all of them).
const maxCachedSIDs = 1 << 20

func (w *Writer) committedSID(sid string) (int64, bool) {
	sidCache.RLock()
	defer sidCache.RUnlock()
	e := sidCache.dirs[cacheKey(w.dir)]
	if e == nil || e.epoch != w.epochID {
		return 0, false
	}
	v, ok := e.ids[sid]
	return v, ok
}

func (w *Writer) rememberSIDs() {
	sidCache.Lock()
	defer sidCache.Unlock()
	if sidCache.dirs == nil {
		sidCache.dirs = map[string]*sidEntry{}
	}
	k := cacheKey(w.dir)
	e := sidCache.dirs[k]
	if e == nil || e.epoch != w.epochID || len(e.ids)+len(w.sidCache) > maxCachedSIDs {
		e = &sidEntry{epoch: w.epochID, ids: map[string]int64{}}
		sidCache.dirs[k] = e
	}
	if len(w.sidCache) > maxCachedSIDs {
		return
	}
	for s, id := range w.sidCache {
		e.ids[s] = id
	}
}
