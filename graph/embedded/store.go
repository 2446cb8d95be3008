package embedded

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3" // SQLite driver "sqlite3"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/facts"
	"github.com/cairn-dev/cairn/schema"
)

const (
	currentFile = "CURRENT"
	lockFile    = "LOCK"
	dbFile      = "index.db"
)

type current struct {
	Format int    `json:"format"`
	Epoch  string `json:"epoch"`
}

func readCurrent(dir string) (current, error) {
	var c current
	b, err := os.ReadFile(filepath.Join(dir, currentFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, graph.ErrNoIndex
		}
		return c, fmt.Errorf("read index pointer: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, &pointerError{path: filepath.Join(dir, currentFile), problem: "corrupt (" + err.Error() + ")"}
	}
	if c.Format != schema.EmbeddedFormat {
		return c, &graph.FormatError{Where: dir, Found: c.Format, Want: schema.EmbeddedFormat}
	}
	if c.Epoch == "" || strings.ContainsAny(c.Epoch, `/\`) {
		return c, &pointerError{path: filepath.Join(dir, currentFile), problem: "names no epoch"}
	}
	return c, nil
}

// pointerError: CURRENT is damaged. `cairn index` replaces it (a damaged
// pointer makes the next writer build a fresh epoch).
type pointerError struct{ path, problem string }

func (e *pointerError) Error() string {
	return "index pointer " + e.path + " is " + e.problem + ": run `cairn index` to repair it"
}

// view answers fact queries through a database handle or an open
// transaction, so readers and the writer (which must see its own uncommitted
// rows) share one implementation.
type view struct{ q querier }

// Store reads the current generation of an embedded index.
type Store struct {
	view
	dir    string
	epoch  string
	db     *sql.DB
	pin    *pin  // OpenPinned: the read transactions on one generation
	opened int64 // the generation committed when Open read it
}

// Open opens the index in dir for reading. It fails with graph.ErrNoIndex
// when nothing was committed yet and with *graph.FormatError when the index
// was written in another format.
func Open(dir string) (*Store, error) {
	for attempt := 0; ; attempt++ {
		c, err := readCurrent(dir)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, c.Epoch, dbFile)
		if _, err := os.Stat(path); err != nil {
			// A writer may have swapped epochs between our two reads.
			if attempt < 3 {
				continue
			}
			return nil, fmt.Errorf("index database %s: %w", path, err)
		}
		db, err := openDB(path, true)
		if err != nil {
			return nil, err
		}
		s := &Store{view: view{q: sqlQuerier{db}}, dir: dir, epoch: c.Epoch, db: db}
		if err := s.checkFormat(); err != nil {
			db.Close()
			return nil, err
		}
		if s.opened, err = s.Generation(context.Background()); err != nil {
			db.Close()
			return nil, err
		}
		return s, nil
	}
}

func openDB(path string, readOnly bool) (*sql.DB, error) {
	// Statements are cached per connection by their text: graph walks ask
	// the same few queries thousands of times.
	q := "_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=0&cache=private&_stmt_cache_size=128"
	if readOnly {
		q += "&mode=ro&_query_only=1"
	}
	db, err := sql.Open(readerDriver, "file:"+path+"?"+q)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if readOnly {
		db.SetMaxOpenConns(4)
	} else {
		db.SetMaxOpenConns(1)
	}
	db.SetConnMaxIdleTime(time.Minute)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}

// readerDriver is SQLite with the readers' settings applied to every
// connection as it opens: a PRAGMA run through the pool reaches one of its
// connections, and the pool opens others under load and again after a
// minute idle (which, in a long-lived server, is most of them).
const readerDriver = "sqlite3-cairn-reader"

// readerPragmas: the database mapped (256 MiB) rather than read through
// the page cache, a 64 MiB cache, temporary tables in memory.
const readerPragmas = "PRAGMA mmap_size=268435456; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY"

func init() {
	sql.Register(readerDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(readerPragmas, nil)
		return err
	}})
}

func (s *Store) checkFormat() error {
	var v string
	err := s.db.QueryRow(`SELECT value FROM meta WHERE key='format'`).Scan(&v)
	if err != nil {
		return fmt.Errorf("read index format from %s: %w (re-index with `cairn index --full`)", s.dir, err)
	}
	f, _ := strconv.Atoi(v)
	if f != schema.EmbeddedFormat {
		return &graph.FormatError{Where: s.dir, Found: f, Want: schema.EmbeddedFormat}
	}
	return nil
}

// Close releases the database.
func (s *Store) Close() error {
	if s.pin != nil {
		s.pin.release()
	}
	return s.db.Close()
}

// Dir returns the index directory.
func (s *Store) Dir() string { return s.dir }

// EpochDir returns the directory of the current epoch (where side indexes live).
func (s *Store) EpochDir() string { return filepath.Join(s.dir, s.epoch) }

// DB exposes the database to sibling packages' tests.
func (s *Store) DB() *sql.DB { return s.db }

var _ graph.Reader = (*Store)(nil)

// Generation reads the number of the generation the database has
// committed now (a pinned store's own is Meta's): a cheap check for
// long-running readers (servers) of whether an index run committed since
// they last looked (see Changed).
func (s *Store) Generation(ctx context.Context) (int64, error) {
	var v string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='generation'`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read generation: %w", err)
	}
	return strconv.ParseInt(v, 10, 64)
}

// Epoch names the epoch directory the store reads; a full index run
// publishes a new one (see CurrentEpoch).
func (s *Store) Epoch() string { return s.epoch }

// CurrentEpoch names the epoch dir's CURRENT pointer designates now.
func CurrentEpoch(dir string) (string, error) {
	c, err := readCurrent(dir)
	return c.Epoch, err
}

// Meta reads the generation's description.
func (v view) Meta(ctx context.Context) (graph.Meta, error) {
	return readMeta(ctx, v.q)
}

// querier is what views read through: a database handle, a transaction
// (sqlQuerier), the writer's prepared statements (stmtQuerier) or the read
// transactions of a pinned store (pin).
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (rowSet, error)
	QueryRowContext(ctx context.Context, q string, args ...any) rowScanner
}

// rowSet is what *sql.Rows does for the views.
type rowSet interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// rowScanner is what *sql.Row does for the views.
type rowScanner interface{ Scan(dest ...any) error }

// sqlQuerier reads through a *sql.DB or a *sql.Tx.
type sqlQuerier struct {
	q interface {
		QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	}
}

func (q sqlQuerier) QueryContext(ctx context.Context, query string, args ...any) (rowSet, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (q sqlQuerier) QueryRowContext(ctx context.Context, query string, args ...any) rowScanner {
	return q.q.QueryRowContext(ctx, query, args...)
}

// readMetaKeys reads the meta table without counting files and symbols:
// what opening a writer needs, a small fraction of readMeta's cost.
func readMetaKeys(ctx context.Context, db querier) (graph.Meta, error) {
	m, _, err := readMetaRows(ctx, db)
	return m, err
}

// readMetaRows is readMetaKeys that also returns the stored counts
// (countsKey; "" in an index committed before they were stored).
func readMetaRows(ctx context.Context, db querier) (m graph.Meta, counts string, err error) {
	m = graph.Meta{Extra: map[string]string{}}
	rows, err := db.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return m, "", fmt.Errorf("read meta: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return m, "", err
		}
		switch k {
		case "generation":
			m.Generation, _ = strconv.ParseInt(v, 10, 64)
		case "format":
			m.Format, _ = strconv.Atoi(v)
		case "feature":
			m.Feature, _ = strconv.Atoi(v)
		case "root":
			m.Root = v
		case "revision":
			m.Revision = v
		case "dirty":
			m.Dirty = v == "1"
		case "indexed_at":
			m.IndexedAt, _ = time.Parse(time.RFC3339Nano, v)
		case countsKey:
			counts = v
		default:
			m.Extra[k] = v
		}
	}
	if err := rows.Err(); err != nil {
		return m, "", err
	}
	if m.Generation == 0 {
		return m, "", graph.ErrNoIndex
	}
	return m, counts, nil
}

func readMeta(ctx context.Context, db querier) (graph.Meta, error) {
	m, stored, err := readMetaRows(ctx, db)
	if err != nil {
		return m, err
	}
	c, err := decodeCounts(stored)
	// counts of another generation: written before a commit by a binary
	// that does not store them, which left this row as it was
	if err != nil || stored == "" || c.Generation != m.Generation {
		if c, err = countRows(ctx, db); err != nil {
			return m, err
		}
	}
	m.Files, m.Symbols, m.Chunks = c.Files, c.Symbols, c.Chunks
	m.Status, m.Skips, m.Languages = map[graph.ParseStatus]int{}, map[graph.SkipReason]int{}, map[graph.Language]int{}
	for k, n := range c.Status {
		m.Status[graph.ParseStatus(k)] = n
	}
	for k, n := range c.Langs {
		m.Languages[graph.Language(k)] = n
	}
	for k, n := range c.Skips {
		m.Skips[graph.SkipReason(k)] = n
	}
	return m, nil
}

// countsKey is the meta key under which Commit stores the generation's
// counts: counting the symbols and chunks tables was most of a one-shot
// command's store reads (~10 ms on mono1m's 114,595 symbols).
const countsKey = "counts"

// counts are a generation's row counts, by status, language and skip reason.
type counts struct {
	// Generation is the generation counted.
	Generation int64       `json:"generation"`
	Files      int         `json:"files"`
	Symbols    int         `json:"symbols"`
	Chunks     int         `json:"chunks"`
	Status     map[int]int `json:"status"`
	Langs      map[int]int `json:"langs"`
	Skips      map[int]int `json:"skips"`
}

func decodeCounts(v string) (counts, error) {
	var c counts
	if v == "" {
		return c, nil
	}
	err := json.Unmarshal([]byte(v), &c)
	return c, err
}

// countRows counts the generation's rows.
func countRows(ctx context.Context, db querier) (counts, error) {
	c := counts{Status: map[int]int{}, Langs: map[int]int{}, Skips: map[int]int{}}
	queries := []struct {
		q   string
		add func(k, n int)
	}{
		{`SELECT status, count(*) FROM files GROUP BY status`, func(k, n int) { c.Status[k] = n; c.Files += n }},
		{`SELECT lang, count(*) FROM files GROUP BY lang`, func(k, n int) { c.Langs[k] = n }},
		{`SELECT reason, count(*) FROM skips GROUP BY reason`, func(k, n int) { c.Skips[k] = n }},
		{`SELECT 0, count(*) FROM symbols`, func(_, n int) { c.Symbols = n }},
		{`SELECT 0, count(*) FROM chunks`, func(_, n int) { c.Chunks = n }},
	}
	for _, q := range queries {
		rows, err := db.QueryContext(ctx, q.q)
		if err != nil {
			return c, fmt.Errorf("count: %w", err)
		}
		for rows.Next() {
			var k, n int
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return c, err
			}
			q.add(k, n)
		}
		rows.Close()
	}
	return c, nil
}

const fileCols = `path, lang, hash, size, mtime, lines, status, error, package, committed, scip, category`

func scanFile(sc interface{ Scan(...any) error }) (graph.File, error) {
	var f graph.File
	var lang, status int
	err := sc.Scan(&f.Path, &lang, &f.Hash, &f.Size, &f.ModTime, &f.Lines, &status, &f.Error, &f.Package, &f.Committed, &f.SCIP, &f.Category)
	f.Lang, f.Status = graph.Language(lang), graph.ParseStatus(status)
	return f, err
}

// Files lists every indexed file in path order.
func (v view) Files(ctx context.Context) ([]graph.File, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT `+fileCols+` FROM files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	defer rows.Close()
	var out []graph.File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// PathCategories lists every indexed path with its category
// (graph.CategoryReader), from the files_list index alone.
func (v view) PathCategories(ctx context.Context) (map[string]graph.FileCategory, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT path, category FROM files`)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	defer rows.Close()
	out := map[string]graph.FileCategory{}
	for rows.Next() {
		var p string
		var c graph.FileCategory
		if err := rows.Scan(&p, &c); err != nil {
			return nil, fmt.Errorf("list files: %w", err)
		}
		out[p] = c
	}
	return out, rows.Err()
}

// File returns one indexed file.
func (v view) File(ctx context.Context, path string) (graph.File, error) {
	f, err := scanFile(v.q.QueryRowContext(ctx, `SELECT `+fileCols+` FROM files WHERE path=?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return f, fmt.Errorf("file %q: %w", path, graph.ErrNotFound)
	}
	return f, err
}

// Skips lists the skipped paths in path order.
func (v view) Skips(ctx context.Context) ([]graph.Skip, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT path, reason, detail, dir FROM skips ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("list skips: %w", err)
	}
	return scanSkips(rows)
}

// SkipsOf lists the paths skipped for one reason, in path order
// (graph.SkipReasonReader).
func (v view) SkipsOf(ctx context.Context, reason graph.SkipReason) ([]graph.Skip, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT path, reason, detail, dir FROM skips WHERE reason = ? ORDER BY path`, int(reason))
	if err != nil {
		return nil, fmt.Errorf("list skips: %w", err)
	}
	return scanSkips(rows)
}

func scanSkips(rows rowSet) ([]graph.Skip, error) {
	defer rows.Close()
	var out []graph.Skip
	for rows.Next() {
		var sk graph.Skip
		var reason int
		if err := rows.Scan(&sk.Path, &reason, &sk.Detail, &sk.Dir); err != nil {
			return nil, err
		}
		sk.Reason = graph.SkipReason(reason)
		out = append(out, sk)
	}
	return out, rows.Err()
}

const symbolCols = `f.path, f.lang, f.package, s.ord, x.sid, s.name, s.kind, s.container,
	s.start_byte, s.end_byte, s.start_line, s.start_col, s.end_line, s.end_col,
	s.name_start, s.name_end, s.name_line, s.name_col,
	s.signature, s.doc, s.type, s.extends, s.implements, s.flags, s.parent`

const symbolFrom = ` FROM symbols s JOIN files f ON f.id = s.file_id JOIN sids x ON x.id = s.sid `

func scanSymbol(sc interface{ Scan(...any) error }) (graph.Symbol, error) {
	var s graph.Symbol
	var lang, kind, flags, ord int
	var ext, impl string
	var nl, nc uint32
	err := sc.Scan(&s.Path, &lang, &s.Package, &ord, &s.ID, &s.Name, &kind, &s.Container,
		&s.Range.StartByte, &s.Range.EndByte, &s.Range.StartLine, &s.Range.StartCol, &s.Range.EndLine, &s.Range.EndCol,
		&s.NameRange.StartByte, &s.NameRange.EndByte, &nl, &nc,
		&s.Signature, &s.Doc, &s.Type, &ext, &impl, &flags, &s.Parent)
	s.Lang, s.Kind = graph.Language(lang), graph.SymbolKind(kind)
	s.NameRange.StartLine, s.NameRange.EndLine, s.NameRange.StartCol = nl, nl, nc
	s.NameRange.EndCol = nc + (s.NameRange.EndByte - s.NameRange.StartByte)
	if ext != "" {
		s.Extends = strings.Split(ext, "\n")
	}
	if impl != "" {
		s.Implements = strings.Split(impl, "\n")
	}
	s.Exported, s.IsTest = flags&1 != 0, flags&2 != 0
	return s, err
}

func (v view) symbols(ctx context.Context, where string, args ...any) ([]graph.Symbol, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT `+symbolCols+symbolFrom+where, args...)
	if err != nil {
		return nil, fmt.Errorf("query symbols: %w", err)
	}
	defer rows.Close()
	var out []graph.Symbol
	for rows.Next() {
		sym, err := scanSymbol(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sym)
	}
	return out, rows.Err()
}

// SymbolsByName returns the definitions named name (case-insensitive), in
// path and position order.
func (v view) SymbolsByName(ctx context.Context, name string) ([]graph.Symbol, error) {
	return v.symbols(ctx, `WHERE s.name = ? COLLATE NOCASE ORDER BY f.path, s.start_byte`, name)
}

// SymbolNames lists the distinct names of the definitions, unordered: what
// an editor's symbol search matches partial names against, without
// decoding every symbol.
func (v view) SymbolNames(ctx context.Context) ([]string, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT DISTINCT name FROM symbols`)
	if err != nil {
		return nil, fmt.Errorf("read symbol names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// SymbolsByID returns the definitions of a symbol (several for a symbol
// declared in more than one place).
func (v view) SymbolsByID(ctx context.Context, id graph.SymbolID) ([]graph.Symbol, error) {
	return v.symbols(ctx, `WHERE x.sid = ? ORDER BY f.path, s.start_byte`, string(id))
}

// SymbolsByIDs looks up the definitions of many symbols at once
// (graph.BatchReader): what SymbolsByID returns for each, in queries of up
// to idSlice ids instead of one per symbol.
func (v view) SymbolsByIDs(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID][]graph.Symbol, error) {
	out := make(map[graph.SymbolID][]graph.Symbol, len(ids))
	err := inSlices(ids, func(args []any) error {
		syms, err := v.symbols(ctx, `WHERE x.sid IN (`+placeholders(len(args))+`) ORDER BY f.path, s.start_byte`, args...)
		for _, s := range syms {
			out[s.ID] = append(out[s.ID], s)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SymbolsInFile returns the file's definitions in position order.
func (v view) SymbolsInFile(ctx context.Context, path string) ([]graph.Symbol, error) {
	return v.symbols(ctx, `WHERE f.path = ? ORDER BY s.ord`, path)
}

// AllSymbols calls fn for every symbol, in path order; used by the resolver
// and the repo map.
func (v view) AllSymbols(ctx context.Context, fn func(graph.Symbol) error) error {
	return v.symbolsOrdered(ctx, `ORDER BY f.path, s.ord`, fn)
}

// ScanSymbols implements graph.SymbolScanner: the symbols in the order of
// their rows. A file's rows are written together and in order, by one
// writer (PutFile), and rewritten together, so each file's symbols come
// together and in order, and nothing is sorted.
func (v view) ScanSymbols(ctx context.Context, fn func(graph.Symbol) error) error {
	return v.symbolsOrdered(ctx, scanOrder, fn)
}

// scanOrder is ScanSymbols's order: the rows', which needs no sort.
const scanOrder = `ORDER BY s.id`

func (v view) symbolsOrdered(ctx context.Context, order string, fn func(graph.Symbol) error) error {
	rows, err := v.q.QueryContext(ctx, `SELECT `+symbolCols+symbolFrom+order)
	if err != nil {
		return fmt.Errorf("query symbols: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		sym, err := scanSymbol(rows)
		if err != nil {
			return err
		}
		if err := fn(sym); err != nil {
			return err
		}
	}
	return rows.Err()
}

// FileFacts returns everything stored about one file. Chunks come without
// their text.
func (v view) FileFacts(ctx context.Context, path string) (*graph.FileFacts, error) {
	var blob []byte
	row := v.q.QueryRowContext(ctx, `SELECT `+fileCols+`, facts FROM files WHERE path=?`, path)
	var f graph.File
	var lang, status int
	err := row.Scan(&f.Path, &lang, &f.Hash, &f.Size, &f.ModTime, &f.Lines, &status, &f.Error, &f.Package, &f.Committed, &f.SCIP, &f.Category, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("file %q: %w", path, graph.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read facts of %s: %w", path, err)
	}
	f.Lang, f.Status = graph.Language(lang), graph.ParseStatus(status)
	ff := &graph.FileFacts{File: f}
	if err := facts.Decode(blob, ff); err != nil {
		return nil, fmt.Errorf("decode facts of %s: %w", path, err)
	}
	if ff.Symbols, err = v.SymbolsInFile(ctx, path); err != nil {
		return nil, err
	}
	if ff.Chunks, err = v.chunks(ctx, `WHERE f.path = ? ORDER BY c.ord`, path); err != nil {
		return nil, err
	}
	return ff, nil
}

// FileImports implements graph.ImportReader: the facts blob alone.
func (v view) FileImports(ctx context.Context, path string) ([]graph.Import, error) {
	var blob []byte
	err := v.q.QueryRowContext(ctx, `SELECT facts FROM files WHERE path=?`, path).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("file %q: %w", path, graph.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read facts of %s: %w", path, err)
	}
	ff := &graph.FileFacts{}
	if err := facts.Decode(blob, ff); err != nil {
		return nil, fmt.Errorf("decode facts of %s: %w", path, err)
	}
	return ff.Imports, nil
}

// ChunkRef is graph.ChunkRef.
type ChunkRef = graph.ChunkRef

// ChunksInFile implements graph.Reader.
func (v view) ChunksInFile(ctx context.Context, path string) ([]ChunkRef, error) {
	return v.chunkRefs(ctx, `WHERE f.path = ? ORDER BY c.ord`, path)
}

func (v view) chunks(ctx context.Context, where string, args ...any) ([]graph.Chunk, error) {
	refs, err := v.chunkRefs(ctx, where, args...)
	out := make([]graph.Chunk, len(refs))
	for i := range refs {
		out[i] = refs[i].Chunk
	}
	return out, err
}

func (v view) chunkRefs(ctx context.Context, where string, args ...any) ([]ChunkRef, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT c.id, f.path, c.kind, coalesce(x.sid, ''), c.name,
		c.start_byte, c.end_byte, c.start_line, c.end_line, c.hash
		FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN sids x ON x.id = c.sid `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("query chunks: %w", err)
	}
	defer rows.Close()
	var out []ChunkRef
	for rows.Next() {
		var c ChunkRef
		var kind int
		if err := rows.Scan(&c.ID, &c.Path, &kind, &c.Symbol, &c.Name, &c.Range.StartByte, &c.Range.EndByte,
			&c.Range.StartLine, &c.Range.EndLine, &c.Hash); err != nil {
			return nil, err
		}
		c.Kind = graph.ChunkKind(kind)
		out = append(out, c)
	}
	return out, rows.Err()
}

// ChunksByID returns the live chunks among ids (ids of chunks replaced since
// are left out), in no particular order.
func (v view) ChunksByID(ctx context.Context, ids []int64) ([]ChunkRef, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("WHERE c.id IN (")
	args := make([]any, len(ids))
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('?')
		args[i] = id
	}
	b.WriteByte(')')
	return v.chunkRefs(ctx, b.String(), args...)
}

// FilesMentioning lists the files with an occurrence of name, in path order.
func (v view) FilesMentioning(ctx context.Context, name string) ([]string, error) {
	rows, err := v.q.QueryContext(ctx, `SELECT f.path FROM postings p JOIN files f ON f.id = p.file_id WHERE p.name = ? ORDER BY f.path`, name)
	if err != nil {
		return nil, fmt.Errorf("query postings: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
