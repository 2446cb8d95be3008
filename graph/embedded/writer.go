package embedded

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/facts"
	"github.com/cairn-dev/cairn/internal/strarena"
	"github.com/cairn-dev/cairn/schema"
)

// ErrLocked is returned when another process is writing the index.
var ErrLocked = errors.New("index is locked by another writer")

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Dir is the index directory.
	Dir string
	// Full builds a new epoch from scratch even if the current one is usable.
	Full bool
	// Wait is how long to wait for another writer to finish; 0 fails at once.
	Wait time.Duration
	// Verify checks the current index first (Check) and builds a fresh
	// epoch when a part of it is damaged: how `cairn index` repairs an
	// index. It reads the whole index once, so watchers leave it off.
	Verify bool
	// Repair names damage found by the caller (side indexes it could not
	// open); a fresh epoch is built to replace it.
	Repair []graph.Damage
}

// Writer writes the next generation. It implements graph.Writer.
type Writer struct {
	dir        string
	epoch      string
	epochID    string // the epoch's identity (epochIDKey): what the process caches are keyed by
	fresh      bool
	why        string // why a fresh epoch was started
	lock       *os.File
	db         *sql.DB
	tx         *sql.Tx
	prevGen    int64
	prev       graph.Meta                 // the generation extended (incremental runs)
	known      map[string]graph.FileState // states as this generation will have them (after Known)
	files      map[string]graph.File      // the same for indexed files (View().Files)
	sidCache   map[string]int64
	sidStrs    *strarena.Arena // sidCache's keys
	fileIDs    map[string]int64
	stmts      map[string]*sql.Stmt
	stmtMu     sync.Mutex // stmts: the writer's view may be read from several goroutines
	symBatch   [][]any
	postBatch  [][]any
	done       bool
	failed     error              // a write that failed where no error could be returned
	opened     map[string]statKey // the epoch's side files when the writer opened (manifest)
	repaired   []graph.Damage
	sideRepair []graph.Damage
	// trusted: the database was verified (or is unchanged since it was)
	// when the writer opened, so what it commits is verified too
	trusted bool
}

var _ graph.Writer = (*Writer)(nil)

// NewWriter locks dir and opens the next generation for writing: in the
// current epoch when it is usable, else in a fresh one (see Fresh).
func NewWriter(ctx context.Context, opts WriterOptions) (w *Writer, err error) {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create index directory: %w", err)
	}
	// An index inside a git checkout is no part of it: git is told to
	// ignore the whole directory (best effort; an existing file is kept).
	if f, err := os.OpenFile(filepath.Join(opts.Dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		f.WriteString("# written by cairn: the index is not part of the repository\n*\n")
		f.Close()
	}
	lock, err := acquireLock(filepath.Join(opts.Dir, lockFile), opts.Wait)
	if err != nil {
		return nil, err
	}
	w = &Writer{dir: opts.Dir, lock: lock, sidCache: map[string]int64{}, sidStrs: strarena.New(0), fileIDs: map[string]int64{}, stmts: map[string]*sql.Stmt{}}
	opened := w // the returns below set w to nil
	defer func() {
		if err != nil {
			opened.release()
		}
	}()
	cur, cerr := readCurrent(opts.Dir)
	repair := opts.Repair
	if cerr == nil {
		w.trusted = isVerified(opts.Dir, cur.Epoch)
	}
	if opts.Verify && cerr == nil && !opts.Full {
		dmg, err := Check(ctx, opts.Dir)
		if err != nil && !errors.Is(err, graph.ErrNoIndex) {
			var fe *graph.FormatError
			if !errors.As(err, &fe) {
				return nil, fmt.Errorf("check index: %w", err)
			}
		}
		repair = append(repair, dmg...)
		w.trusted = err == nil && sideOnly(dmg)
	}
	switch {
	case opts.Full:
		w.why = "full rebuild requested"
	case errors.Is(cerr, graph.ErrNoIndex):
		w.why = "no index yet"
	case cerr != nil:
		w.why = cerr.Error()
		w.repaired = []graph.Damage{{Part: "index pointer", Path: filepath.Join(opts.Dir, currentFile), Problem: unwrapPointer(cerr)}}
	case len(repair) > 0 && !sideOnly(repair):
		w.repaired = repair
		parts := make([]string, len(repair))
		for i, d := range repair {
			parts[i] = d.Part + " " + d.Problem
		}
		w.why = "repairing a damaged index: " + strings.Join(parts, "; ")
	default:
		why, err := w.openIncremental(ctx, cur)
		if err != nil {
			return nil, err
		}
		w.why = why
		if w.db != nil && len(repair) > 0 {
			// only side indexes are damaged: the facts stay, and the
			// caller rebuilds those indexes from them (SideRepair)
			w.repaired, w.sideRepair = repair, repair
		}
	}
	if w.db == nil {
		if err := w.openFresh(ctx); err != nil {
			return nil, err
		}
	}
	w.removeStaleEpochs(cur.Epoch)
	return w, nil
}

// Fresh reports whether this run builds a new epoch from scratch, and why.
func (w *Writer) Fresh() (bool, string) { return w.fresh, w.why }

// Repaired lists the damaged parts this run replaces: by a fresh epoch, or
// (SideRepair) by side indexes rebuilt from the stored facts.
func (w *Writer) Repaired() []graph.Damage { return w.repaired }

// SideRepair lists the damaged side indexes (text or vector segments, the
// embedding model) of an index whose pointer and facts are sound: the run
// extends the generation, and the caller is to rebuild those side indexes
// from the stored facts (engine.RebuildSideIndexes) rather than re-parse
// the repository.
func (w *Writer) SideRepair() []graph.Damage { return w.sideRepair }

// sideOnly reports whether every damaged part is a side index's.
func sideOnly(dmg []graph.Damage) bool {
	for _, d := range dmg {
		if !IsSidePart(d.Part) {
			return false
		}
	}
	return true
}

func acquireLock(path string, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open index lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			holder, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w (%s)", ErrLocked, strings.TrimSpace(string(holder)))
			}
			return nil, fmt.Errorf("lock index: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d since %s\n", os.Getpid(), time.Now().Format(time.RFC3339))), 0)
	return f, nil
}

func (w *Writer) release() {
	w.closeDB()
	if w.lock != nil {
		w.lock.Truncate(0)
		syscall.Flock(int(w.lock.Fd()), syscall.LOCK_UN)
		w.lock.Close()
		w.lock = nil
	}
}

// closeDB rolls back what is uncommitted and closes the database.
func (w *Writer) closeDB() {
	if w.tx != nil {
		w.tx.Rollback()
		w.tx = nil
	}
	for q, st := range w.stmts {
		st.Close()
		delete(w.stmts, q)
	}
	if w.db != nil {
		w.db.Close()
		w.db = nil
	}
}

// openIncremental opens the current epoch for an in-place transaction. It
// returns a reason and no database when the epoch must be rebuilt instead.
func (w *Writer) openIncremental(ctx context.Context, cur current) (string, error) {
	path := filepath.Join(w.dir, cur.Epoch, dbFile)
	if _, err := os.Stat(path); err != nil {
		return "current epoch is missing", nil
	}
	db, err := openDB(path, false)
	if err != nil {
		w.repaired = []graph.Damage{{Part: "facts database", Path: path, Problem: sqliteProblem(err)}}
		return "current epoch unreadable: " + sqliteProblem(err), nil
	}
	m, err := readMetaKeys(ctx, sqlQuerier{db})
	if err != nil {
		db.Close()
		w.repaired = []graph.Damage{{Part: "facts database", Path: path, Problem: sqliteProblem(err)}}
		return "current epoch unreadable: " + sqliteProblem(err), nil
	}
	if m.Format != schema.EmbeddedFormat {
		db.Close()
		return fmt.Sprintf("format %d != %d", m.Format, schema.EmbeddedFormat), nil
	}
	if m.Feature != schema.FeatureVersion {
		db.Close()
		return fmt.Sprintf("extractor features changed (%d → %d)", m.Feature, schema.FeatureVersion), nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		db.Close()
		return "", fmt.Errorf("begin index transaction: %w", err)
	}
	// Take the write lock now rather than at the first write.
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = value WHERE key = 'generation'`); err != nil {
		tx.Rollback()
		db.Close()
		return "", fmt.Errorf("lock index database: %w", err)
	}
	w.db, w.tx, w.epoch, w.prevGen, w.prev = db, tx, cur.Epoch, m.Generation, m
	// an epoch committed before epochIDKey existed gets its identity now:
	// nothing in any process's cache can name it yet
	w.epochID = cmp.Or(m.Extra[epochIDKey], newEpochID())
	files, err := epochFiles(filepath.Join(w.dir, cur.Epoch))
	if err != nil {
		return "", fmt.Errorf("list index files: %w", err)
	}
	w.opened = make(map[string]statKey, len(files))
	for rel, info := range files {
		w.opened[rel] = statOf(info)
	}
	return "incremental", nil
}

// Previous describes the generation an incremental run extends, without
// the counts (zero for a fresh run): what side indexes need to go on from.
func (w *Writer) Previous() graph.Meta { return w.prev }

func (w *Writer) openFresh(ctx context.Context) error {
	w.fresh = true
	entries, _ := os.ReadDir(w.dir)
	seq := 0
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), "epoch-"); ok {
			if v, err := strconv.Atoi(n); err == nil && v > seq {
				seq = v
			}
		}
	}
	w.epoch = fmt.Sprintf("epoch-%06d", seq+1)
	w.epochID = newEpochID()
	edir := filepath.Join(w.dir, w.epoch)
	if err := os.MkdirAll(edir, 0o755); err != nil {
		return fmt.Errorf("create epoch: %w", err)
	}
	if cur, err := readCurrent(w.dir); err == nil {
		if db, err := openDB(filepath.Join(w.dir, cur.Epoch, dbFile), true); err == nil {
			if m, err := readMeta(ctx, sqlQuerier{db}); err == nil {
				w.prevGen = m.Generation
			}
			db.Close()
		}
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(edir, dbFile)+"?_journal_mode=OFF&_synchronous=OFF&_locking_mode=EXCLUSIVE")
	if err != nil {
		return fmt.Errorf("create index database: %w", err)
	}
	db.SetMaxOpenConns(1)
	// A new epoch's tables are appended in rowid order and its secondary
	// indexes built at the end: a 16 MiB page cache writes mono1m as fast
	// as 64 MiB did, with ~85 MB less peak RSS (bench/index/RESULTS.md).
	if _, err := db.ExecContext(ctx, "PRAGMA cache_size=-16384; PRAGMA temp_store=MEMORY; PRAGMA page_size=8192;"+schema.EmbeddedSQL); err != nil {
		db.Close()
		return fmt.Errorf("create index schema: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		db.Close()
		return fmt.Errorf("begin index transaction: %w", err)
	}
	w.db, w.tx = db, tx
	return nil
}

// createIndexes creates the secondary indexes: after a full run's load,
// and in an incremental run what a generation written by an older binary
// lacks, with the statistics SQLite's planner needs to choose it (a new
// index without them lost to the older ones).
func (w *Writer) createIndexes(ctx context.Context) error {
	count := func() (n int, err error) {
		err = w.tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='index'`).Scan(&n)
		return n, err
	}
	before, err := count()
	if err == nil {
		_, err = w.tx.ExecContext(ctx, schema.EmbeddedIndexesSQL)
	}
	after := before
	if err == nil {
		after, err = count()
	}
	if err == nil && !w.fresh && after > before {
		_, err = w.tx.ExecContext(ctx, "ANALYZE")
	}
	if err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	return nil
}

// removeStaleEpochs deletes epoch directories other than the current one and
// the one being written (left by crashed or superseded runs).
func (w *Writer) removeStaleEpochs(cur string) {
	entries, _ := os.ReadDir(w.dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "epoch-") && e.Name() != cur && e.Name() != w.epoch {
			os.RemoveAll(filepath.Join(w.dir, e.Name()))
		}
	}
}

// Dir is the epoch directory being written.
func (w *Writer) Dir() string { return filepath.Join(w.dir, w.epoch) }

// Tx exposes the open transaction to side writers in this module (edges).
func (w *Writer) Tx() *sql.Tx { return w.tx }

func (w *Writer) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	w.stmtMu.Lock()
	defer w.stmtMu.Unlock()
	if st, ok := w.stmts[q]; ok {
		return st, nil
	}
	st, err := w.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", q, err)
	}
	w.stmts[q] = st
	return st, nil
}

func (w *Writer) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := w.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// Known returns the previous generation's files and skips: from this
// process's cache when it committed that generation itself (known.go).
func (w *Writer) Known(ctx context.Context) (map[string]graph.FileState, error) {
	if known, files, ids, ok := w.cachedKnown(); ok {
		w.known, w.files, w.fileIDs = known, files, ids
		return maps.Clone(known), nil
	}
	out, err := w.readKnown(ctx)
	if err != nil {
		return nil, err
	}
	w.known = maps.Clone(out)
	return out, nil
}

func (w *Writer) readKnown(ctx context.Context) (map[string]graph.FileState, error) {
	out := map[string]graph.FileState{}
	rows, err := w.tx.QueryContext(ctx, `SELECT id, `+fileCols+` FROM files`)
	if err != nil {
		return nil, fmt.Errorf("read indexed files: %w", err)
	}
	w.files = map[string]graph.File{}
	for rows.Next() {
		var f graph.File
		var id int64
		var lang, status int
		if err := rows.Scan(&id, &f.Path, &lang, &f.Hash, &f.Size, &f.ModTime, &f.Lines, &status, &f.Error, &f.Package, &f.Committed, &f.SCIP, &f.Category); err != nil {
			rows.Close()
			return nil, err
		}
		f.Lang, f.Status = graph.Language(lang), graph.ParseStatus(status)
		out[f.Path] = graph.FileState{Path: f.Path, Hash: f.Hash, Size: f.Size, ModTime: f.ModTime, Lang: f.Lang,
			Status: f.Status, Committed: f.Committed, SCIP: f.SCIP}
		w.files[f.Path] = f
		w.fileIDs[f.Path] = id
	}
	rows.Close()
	rows, err = w.tx.QueryContext(ctx, `SELECT path, reason, size, mtime FROM skips`)
	if err != nil {
		return nil, fmt.Errorf("read skips: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st graph.FileState
		var reason int
		if err := rows.Scan(&st.Path, &reason, &st.Size, &st.ModTime); err != nil {
			return nil, err
		}
		st.Skip = graph.SkipReason(reason)
		out[st.Path] = st
	}
	return out, rows.Err()
}

func (w *Writer) sid(ctx context.Context, id graph.SymbolID) (int64, error) {
	if id == "" {
		return 0, nil
	}
	if v, ok := w.sidCache[string(id)]; ok {
		return v, nil
	}
	if v, ok := w.committedSID(string(id)); ok {
		return v, nil
	}
	var v int64
	st, err := w.stmt(ctx, `SELECT id FROM sids WHERE sid = ?`)
	if err != nil {
		return 0, err
	}
	err = st.QueryRowContext(ctx, string(id)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		res, err := w.exec(ctx, `INSERT INTO sids(sid) VALUES(?)`, string(id))
		if err != nil {
			return 0, fmt.Errorf("intern symbol: %w", err)
		}
		v, _ = res.LastInsertId()
	} else if err != nil {
		return 0, fmt.Errorf("intern symbol: %w", err)
	}
	// The key is copied into the writer's arena: a full run interns every
	// symbol (4.8 M on the Linux kernel), and as strings of their own the
	// keys were millions of small objects the collector marked at every
	// cycle (internal/strarena).
	w.sidCache[w.sidStrs.String(string(id))] = v
	return v, nil
}

// SID interns a symbol for side writers (edges).
func (w *Writer) SID(ctx context.Context, id graph.SymbolID) (int64, error) { return w.sid(ctx, id) }

// FileID returns the row id of an indexed path (0 if none).
func (w *Writer) FileID(path string) int64 { return w.fileIDs[path] }

func (w *Writer) deleteFileRows(ctx context.Context, id int64) error {
	for _, q := range []string{
		`DELETE FROM symbols WHERE file_id = ?`,
		`DELETE FROM postings WHERE file_id = ?`,
		`DELETE FROM chunks WHERE file_id = ?`,
		`DELETE FROM edges WHERE file_id = ?`,
		`DELETE FROM files WHERE id = ?`,
	} {
		if _, err := w.exec(ctx, q, id); err != nil {
			return fmt.Errorf("delete file facts: %w", err)
		}
	}
	return nil
}

// PutFile replaces the facts of one file.
func (w *Writer) PutFile(ctx context.Context, ff *graph.FileFacts) ([]int64, error) {
	f := &ff.File
	if err := w.flushBatches(ctx); err != nil {
		return nil, err
	}
	if id := w.fileIDs[f.Path]; id != 0 {
		if err := w.deleteFileRows(ctx, id); err != nil {
			return nil, err
		}
	}
	if _, err := w.exec(ctx, `DELETE FROM skips WHERE path = ?`, f.Path); err != nil {
		return nil, err
	}
	res, err := w.exec(ctx, `INSERT INTO files(path, lang, hash, size, mtime, lines, status, error, package, committed, scip, category, facts)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)`, f.Path, int(f.Lang), f.Hash, f.Size, f.ModTime, f.Lines, int(f.Status),
		f.Error, f.Package, f.Committed, f.SCIP, int(f.Category), facts.Encode(ff))
	if err != nil {
		return nil, fmt.Errorf("insert file %s: %w", f.Path, err)
	}
	fid, _ := res.LastInsertId()
	w.fileIDs[f.Path] = fid
	w.knownFile(f)

	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		sid, err := w.sid(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		flags := 0
		if s.Exported {
			flags |= 1
		}
		if s.IsTest {
			flags |= 2
		}
		w.symBatch = append(w.symBatch, []any{fid, i, sid, s.Name, int(s.Kind), s.Container,
			s.Range.StartByte, s.Range.EndByte, s.Range.StartLine, s.Range.StartCol, s.Range.EndLine, s.Range.EndCol,
			s.NameRange.StartByte, s.NameRange.EndByte, s.NameRange.StartLine, s.NameRange.StartCol,
			s.Signature, s.Doc, s.Type, joinLines(s.Extends), joinLines(s.Implements), flags, s.Parent})
	}
	names := make([]string, 0, len(ff.Occurrences))
	for i := range ff.Occurrences {
		names = append(names, ff.Occurrences[i].Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range names {
		w.postBatch = append(w.postBatch, []any{n, fid})
	}
	ids := make([]int64, len(ff.Chunks))
	for i := range ff.Chunks {
		c := &ff.Chunks[i]
		sid, err := w.sid(ctx, c.Symbol)
		if err != nil {
			return nil, err
		}
		res, err := w.exec(ctx, `INSERT INTO chunks(file_id, ord, kind, sid, name, start_byte, end_byte, start_line, end_line, hash)
			VALUES(?,?,?,?,?,?,?,?,?,?)`, fid, i, int(c.Kind), sid, c.Name, c.Range.StartByte, c.Range.EndByte,
			c.Range.StartLine, c.Range.EndLine, c.Hash)
		if err != nil {
			return nil, fmt.Errorf("insert chunk: %w", err)
		}
		ids[i], _ = res.LastInsertId()
	}
	if len(w.symBatch) >= batchRows || len(w.postBatch) >= batchRows {
		if err := w.flushBatches(ctx); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

const batchRows = 64

func (w *Writer) flushBatches(ctx context.Context) error {
	if err := w.flush(ctx, "symbols(file_id, ord, sid, name, kind, container, start_byte, end_byte, start_line, start_col, end_line, end_col, name_start, name_end, name_line, name_col, signature, doc, type, extends, implements, flags, parent)", 23, &w.symBatch); err != nil {
		return err
	}
	return w.flush(ctx, "postings(name, file_id)", 2, &w.postBatch)
}

// flush inserts buffered rows with multi-row INSERTs of batchRows rows.
func (w *Writer) flush(ctx context.Context, table string, ncol int, batch *[][]any) error {
	rows := *batch
	one := "(" + strings.Repeat("?,", ncol-1) + "?)"
	for len(rows) > 0 {
		n := min(len(rows), batchRows)
		if n < batchRows {
			n = 1
		}
		q := "INSERT OR IGNORE INTO " + table + " VALUES " + strings.Repeat(one+",", n-1) + one
		args := make([]any, 0, n*ncol)
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := w.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		rows = rows[n:]
	}
	*batch = (*batch)[:0]
	return nil
}

// Touch records a new stat for an unchanged file.
func (w *Writer) Touch(ctx context.Context, path string, size, modTime int64) error {
	_, err := w.exec(ctx, `UPDATE files SET size = ?, mtime = ? WHERE path = ?`, size, modTime, path)
	if err == nil {
		_, err = w.exec(ctx, `UPDATE skips SET size = ?, mtime = ? WHERE path = ?`, size, modTime, path)
	}
	if err == nil {
		w.knownTouch(path, size, modTime)
	}
	return err
}

// SetCommitted records which files equal their blob at the indexed revision.
func (w *Writer) SetCommitted(ctx context.Context, path string, committed bool) error {
	_, err := w.exec(ctx, `UPDATE files SET committed = ? WHERE path = ? AND committed != ?`, committed, path, committed)
	if err == nil {
		w.knownCommitted(path, committed)
	}
	return err
}

// SetCategory records a new category for an indexed file.
func (w *Writer) SetCategory(ctx context.Context, path string, c graph.FileCategory) error {
	_, err := w.exec(ctx, `UPDATE files SET category = ? WHERE path = ?`, int(c), path)
	if err != nil {
		return fmt.Errorf("set category of %s: %w", path, err)
	}
	if f, ok := w.files[path]; ok {
		f.Category = c
		w.files[path] = f
	}
	return nil
}

// Delete removes a path.
func (w *Writer) Delete(ctx context.Context, path string) error {
	if err := w.flushBatches(ctx); err != nil {
		return err
	}
	if id := w.fileIDs[path]; id != 0 {
		if err := w.deleteFileRows(ctx, id); err != nil {
			return err
		}
		delete(w.fileIDs, path)
	}
	_, err := w.exec(ctx, `DELETE FROM skips WHERE path = ?`, path)
	if err == nil {
		w.knownDelete(path)
	}
	return err
}

// PutSkip records a skipped path.
func (w *Writer) PutSkip(ctx context.Context, s graph.Skip, size, modTime int64) error {
	if w.fileIDs[s.Path] != 0 {
		if err := w.Delete(ctx, s.Path); err != nil {
			return err
		}
	}
	_, err := w.exec(ctx, `INSERT OR REPLACE INTO skips(path, reason, detail, dir, size, mtime) VALUES(?,?,?,?,?,?)`,
		s.Path, int(s.Reason), s.Detail, s.Dir, size, modTime)
	if err == nil {
		w.knownSkip(s, size, modTime)
	}
	return err
}

// Commit publishes the generation atomically: an incremental run's writes
// commit as one SQLite transaction, a full run's epoch becomes current when
// writeCurrent renames CURRENT over the old pointer. A run killed halfway
// leaves the previous generation current: its transaction rolls back, and
// its half-built epoch, which nothing points to, is removed by the next
// writer.
func (w *Writer) Commit(ctx context.Context, m graph.Meta) (err error) {
	if w.done {
		return errors.New("writer already finished")
	}
	w.done = true
	defer func() {
		if err == nil && (w.fresh || w.trusted) {
			// the database closed, its files as they stay, the lock
			// still held: no other writer's commit is recorded
			w.closeDB()
			if st, ok := dbState(w.dir, w.epoch); ok {
				writeVerified(w.dir, st)
			}
		}
		w.release()
	}()
	defer func() {
		if err != nil && w.fresh {
			os.RemoveAll(w.Dir())
		}
	}()
	if w.failed != nil {
		return w.failed
	}
	if err := w.flushBatches(ctx); err != nil {
		return err
	}
	kv := map[string]string{
		"generation": strconv.FormatInt(w.prevGen+1, 10),
		"format":     strconv.Itoa(schema.EmbeddedFormat),
		"feature":    strconv.Itoa(schema.FeatureVersion),
		"root":       m.Root,
		"revision":   m.Revision,
		"dirty":      map[bool]string{true: "1", false: "0"}[m.Dirty],
		"indexed_at": cmp.Or(m.IndexedAt, time.Now()).UTC().Format(time.RFC3339Nano),
	}
	for k, v := range m.Extra {
		kv[k] = v
	}
	kv[epochIDKey] = w.epochID // never the previous epoch's, carried in Extra
	sums, err := w.manifest()
	if err != nil {
		return err
	}
	kv[manifestKey] = sums
	c, err := countRows(ctx, sqlQuerier{w.tx})
	if err != nil {
		return err
	}
	c.Generation = w.prevGen + 1
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	kv[countsKey] = string(b)
	for k, v := range kv {
		if _, err := w.exec(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, k, v); err != nil {
			return fmt.Errorf("write meta: %w", err)
		}
	}
	if err := w.createIndexes(ctx); err != nil {
		return err
	}
	for q, st := range w.stmts {
		st.Close()
		delete(w.stmts, q)
	}
	if err := w.tx.Commit(); err != nil {
		return fmt.Errorf("commit index: %w", err)
	}
	w.tx = nil
	if !w.fresh {
		w.truncateWAL(ctx)
		w.remember()
		w.rememberSIDs()
		return nil
	}
	if _, err := w.db.ExecContext(ctx, "PRAGMA journal_mode=WAL; ANALYZE"); err != nil {
		return fmt.Errorf("finish index database: %w", err)
	}
	if err := w.db.Close(); err != nil {
		return fmt.Errorf("close index database: %w", err)
	}
	w.db = nil
	if err := syncDir(w.Dir()); err != nil {
		return err
	}
	if err := writeCurrent(w.dir, current{Format: schema.EmbeddedFormat, Epoch: w.epoch}); err != nil {
		return err
	}
	w.remember()
	w.rememberSIDs()
	w.removeStaleEpochs(w.epoch)
	return nil
}

// truncateWAL folds an incremental commit's write-ahead log into the
// database and empties it, unless a reader is in the middle of a query:
// then it gives up after walWait and the next commit tries again. At rest
// the log is then empty. It matters to every one-shot command: the first
// process to open the database rebuilds its index of the log by reading
// all of it, and after a watch session on the Linux kernel the log had
// grown to a gigabyte (readers kept SQLite's own checkpoints from
// restarting it), which added 180 ms to every answer. Best effort: the
// commit is durable either way.
func (w *Writer) truncateWAL(ctx context.Context) {
	c, err := w.db.Conn(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout=%d", walWait.Milliseconds())); err != nil {
		return
	}
	c.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	c.ExecContext(ctx, "PRAGMA busy_timeout=10000") // the connection's own, as opened
}

// walWait bounds how long truncateWAL waits for readers.
const walWait = 100 * time.Millisecond

// syncFile makes a file's (or a directory's) contents durable. Tests
// replace it to see what is synced when, and to fail a sync as a crash
// before it would leave the disk.
var syncFile = (*os.File).Sync

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := syncFile(d); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// writeCurrent replaces CURRENT atomically: write a temporary file, sync it,
// rename it over the old one, sync the directory.
func writeCurrent(dir string, c current) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("write index pointer: %w", err)
	}
	tmp := filepath.Join(dir, currentFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write index pointer: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write index pointer: %w", err)
	}
	if err := syncFile(f); err != nil {
		f.Close()
		return fmt.Errorf("write index pointer: %w", err)
	}
	f.Close()
	if err := os.Rename(tmp, filepath.Join(dir, currentFile)); err != nil {
		return fmt.Errorf("publish index: %w", err)
	}
	return syncDir(dir)
}

// Abort discards the generation.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.release()
	if w.fresh {
		return os.RemoveAll(w.Dir())
	}
	return nil
}

// joinLines stores a list of one-line texts '\n'-joined (the symbols
// table's extends and implements columns); a line break inside a text
// becomes a space, so reading it back gives the same number of texts.
func joinLines(ss []string) string {
	for _, s := range ss {
		if strings.ContainsAny(s, "\r\n") {
			out := make([]string, len(ss))
			for i, s := range ss {
				out[i] = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
			}
			return strings.Join(out, "\n")
		}
	}
	return strings.Join(ss, "\n")
}
