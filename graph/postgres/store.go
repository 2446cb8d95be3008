package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/facts"
	"github.com/cairn-dev/cairn/schema"
)

// querier is what the views read through: the pool (readers) or a
// writer's transaction (which must see its own uncommitted rows).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// view answers graph.Reader queries about one generation.
type view struct {
	q     querier
	db    *DB
	gen   int64 // generations.id
	repo  int64
	cache *readCache // nil: every read goes to the database
}

var _ graph.Reader = view{}

// Store reads the committed generation of one repository. It implements
// graph.Reader. The generation is fixed when the store is opened: a
// generation committed later is seen by the next Open.
type Store struct {
	view
	name   string
	seq    int64
	owned  bool // Close closes the pool
	sideMu chan struct{}
	side   string // materialized side-index directory, once asked for
}

// Open connects to the database at rawURL and opens the current generation
// of repository repo for reading.
func Open(ctx context.Context, rawURL, repo string, o Options) (*Store, error) {
	db, err := Connect(ctx, rawURL, o)
	if err != nil {
		return nil, err
	}
	s, err := db.Open(ctx, repo)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// Open opens the current generation of repository repo on db. It fails
// with graph.ErrNoIndex when the repository has no committed generation.
func (db *DB) Open(ctx context.Context, repo string) (*Store, error) {
	if err := db.checkSchema(ctx, false); err != nil {
		return nil, err
	}
	var repoID int64
	var gen *int64
	err := db.pool.QueryRow(ctx, `SELECT id, current_gen FROM repositories WHERE name = $1`, repo).Scan(&repoID, &gen)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && gen == nil) {
		return nil, fmt.Errorf("repository %q in %s: %w", repo, db.where, graph.ErrNoIndex)
	}
	if err != nil {
		return nil, db.queryErr("open repository", err)
	}
	s := &Store{view: view{q: db.pool, db: db, gen: *gen, repo: repoID, cache: newReadCache()}, name: repo, sideMu: make(chan struct{}, 1)}
	if err := db.pool.QueryRow(ctx, `SELECT seq FROM generations WHERE id = $1`, *gen).Scan(&s.seq); err != nil {
		return nil, db.queryErr("open generation", err)
	}
	return s, nil
}

// Close releases the store (and its pool when Open made it).
func (s *Store) Close() error {
	if s.owned {
		s.db.Close()
	}
	return nil
}

// Dir describes where the index is, for messages: the database and the
// repository's name.
func (s *Store) Dir() string { return s.db.where + " (repository " + s.name + ")" }

// Repository is the repository's name.
func (s *Store) Repository() string { return s.name }

// GenerationID is the id of the generation the store reads.
func (s *Store) GenerationID() int64 { return s.gen }

// DB is the store's database.
func (s *Store) DB() *DB { return s.db }

// Changed reports whether the repository's current generation is now
// another than the one the store reads (one row read): a long-running
// reader's cue to open the new one.
func (s *Store) Changed(ctx context.Context) (bool, error) {
	var gen *int64
	err := s.db.pool.QueryRow(ctx, `SELECT current_gen FROM repositories WHERE id = $1`, s.repo).Scan(&gen)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, s.db.queryErr("read current generation", err)
	}
	return gen == nil || *gen != s.gen, nil
}

// stats are a generation's counts, computed when it commits.
type stats struct {
	Files     int            `json:"files"`
	Symbols   int            `json:"symbols"`
	Chunks    int            `json:"chunks"`
	Status    map[string]int `json:"status"`
	Languages map[string]int `json:"languages"`
	Skips     map[string]int `json:"skips"`
}

// Meta describes the generation.
func (v view) Meta(ctx context.Context) (graph.Meta, error) {
	m := graph.Meta{Format: schema.PostgresVersion(), Extra: map[string]string{}, Status: map[graph.ParseStatus]int{},
		Skips: map[graph.SkipReason]int{}, Languages: map[graph.Language]int{}}
	var state string
	var base *int64
	var indexed *time.Time
	var extra, st []byte
	err := v.q.QueryRow(ctx, `SELECT seq, state, base_id, feature, root, revision, dirty, indexed_at, extra, stats
		FROM generations WHERE id = $1`, v.gen).Scan(&m.Generation, &state, &base, &m.Feature, &m.Root, &m.Revision, &m.Dirty, &indexed, &extra, &st)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, fmt.Errorf("generation %d was removed (a newer one replaced it): %w", v.gen, graph.ErrNoIndex)
	}
	if err != nil {
		return m, v.db.queryErr("read generation", err)
	}
	if state == "building" || state == "finalizing" {
		// A generation being written describes the one it extends, as an
		// embedded writer's view does before it commits.
		if base == nil {
			return m, graph.ErrNoIndex
		}
		return view{q: v.q, db: v.db, gen: *base, repo: v.repo}.Meta(ctx)
	}
	if indexed != nil {
		m.IndexedAt = *indexed
	}
	if err := json.Unmarshal(extra, &m.Extra); err != nil {
		return m, fmt.Errorf("generation %d: corrupt extra: %w", v.gen, err)
	}
	var c stats
	if err := json.Unmarshal(st, &c); err != nil {
		return m, fmt.Errorf("generation %d: corrupt stats: %w", v.gen, err)
	}
	m.Files, m.Symbols, m.Chunks = c.Files, c.Symbols, c.Chunks
	for k, n := range c.Status {
		i, _ := strconv.Atoi(k)
		m.Status[graph.ParseStatus(i)] = n
	}
	for k, n := range c.Languages {
		i, _ := strconv.Atoi(k)
		m.Languages[graph.Language(i)] = n
	}
	for k, n := range c.Skips {
		i, _ := strconv.Atoi(k)
		m.Skips[graph.SkipReason(i)] = n
	}
	return m, nil
}

// computeStats counts a generation's contents.
func computeStats(ctx context.Context, q querier, gen int64) (stats, error) {
	c := stats{Status: map[string]int{}, Languages: map[string]int{}, Skips: map[string]int{}}
	rows, err := q.Query(ctx, `SELECT f.status, f.lang, count(*) FROM gen_files g JOIN files f ON f.id = g.file_id
		WHERE g.gen_id = $1 GROUP BY f.status, f.lang`, gen)
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var status, lang int16
		var n int
		if err := rows.Scan(&status, &lang, &n); err != nil {
			rows.Close()
			return c, err
		}
		c.Files += n
		c.Status[strconv.Itoa(int(status))] += n
		c.Languages[strconv.Itoa(int(lang))] += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	rows, err = q.Query(ctx, `SELECT reason, count(*) FROM gen_skips WHERE gen_id = $1 GROUP BY reason`, gen)
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var reason int16
		var n int
		if err := rows.Scan(&reason, &n); err != nil {
			rows.Close()
			return c, err
		}
		c.Skips[strconv.Itoa(int(reason))] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	err = q.QueryRow(ctx, `SELECT (SELECT count(*) FROM symbols s JOIN gen_files g ON g.file_id = s.file_id WHERE g.gen_id = $1),
		(SELECT count(*) FROM chunks c JOIN gen_files g ON g.file_id = c.file_id WHERE g.gen_id = $1)`, gen).Scan(&c.Symbols, &c.Chunks)
	return c, err
}

const fileCols = `g.path, f.lang, f.hash, g.size, g.mtime, f.lines, f.status, f.error, f.package, g.committed, f.scip, g.category`

const fileFrom = ` FROM gen_files g JOIN files f ON f.id = g.file_id WHERE g.gen_id = $1 `

func scanFile(sc pgx.Row, extra ...any) (graph.File, error) {
	var f graph.File
	var lang, status, category int16
	var lines int32
	dst := append([]any{&f.Path, &lang, &f.Hash, &f.Size, &f.ModTime, &lines, &status, &f.Error, &f.Package, &f.Committed, &f.SCIP, &category}, extra...)
	err := sc.Scan(dst...)
	f.Lang, f.Status, f.Lines, f.Category = graph.Language(lang), graph.ParseStatus(status), int(lines), graph.FileCategory(category)
	return f, err
}

// Files lists the generation's files in path order.
func (v view) Files(ctx context.Context) ([]graph.File, error) {
	rows, err := v.q.Query(ctx, `SELECT `+fileCols+fileFrom+`ORDER BY g.path`, v.gen)
	if err != nil {
		return nil, v.db.queryErr("list files", err)
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
	return out, v.db.queryErr("list files", rows.Err())
}

// File returns one file.
func (v view) File(ctx context.Context, path string) (graph.File, error) {
	f, err := scanFile(v.q.QueryRow(ctx, `SELECT `+fileCols+fileFrom+`AND g.path = $2`, v.gen, path))
	if errors.Is(err, pgx.ErrNoRows) {
		return f, fmt.Errorf("file %q: %w", path, graph.ErrNotFound)
	}
	return f, v.db.queryErr("read file", err)
}

// Skips lists the skipped paths in path order.
func (v view) Skips(ctx context.Context) ([]graph.Skip, error) {
	rows, err := v.q.Query(ctx, `SELECT path, reason, detail, dir FROM gen_skips WHERE gen_id = $1 ORDER BY path`, v.gen)
	if err != nil {
		return nil, v.db.queryErr("list skips", err)
	}
	return v.scanSkips(rows)
}

// SkipsOf lists the paths skipped for one reason, in path order
// (graph.SkipReasonReader).
func (v view) SkipsOf(ctx context.Context, reason graph.SkipReason) ([]graph.Skip, error) {
	rows, err := v.q.Query(ctx, `SELECT path, reason, detail, dir FROM gen_skips WHERE gen_id = $1 AND reason = $2 ORDER BY path`, v.gen, int16(reason))
	if err != nil {
		return nil, v.db.queryErr("list skips", err)
	}
	return v.scanSkips(rows)
}

func (v view) scanSkips(rows pgx.Rows) ([]graph.Skip, error) {
	defer rows.Close()
	var out []graph.Skip
	for rows.Next() {
		var sk graph.Skip
		var reason int16
		if err := rows.Scan(&sk.Path, &reason, &sk.Detail, &sk.Dir); err != nil {
			return nil, err
		}
		sk.Reason = graph.SkipReason(reason)
		out = append(out, sk)
	}
	return out, v.db.queryErr("list skips", rows.Err())
}

const symbolCols = `g.path, f.lang, f.package, s.ord, x.sid, s.name, s.kind, s.container,
	s.start_byte, s.end_byte, s.start_line, s.start_col, s.end_line, s.end_col,
	s.name_start, s.name_end, s.name_line, s.name_col,
	s.signature, s.doc, s.type, s.extends, s.implements, s.flags, s.parent`

const symbolFrom = ` FROM symbols s JOIN gen_files g ON g.file_id = s.file_id AND g.gen_id = $1
	JOIN files f ON f.id = s.file_id JOIN sids x ON x.id = s.sid `

func scanSymbol(sc pgx.Row) (graph.Symbol, error) {
	var s graph.Symbol
	var lang, kind, flags int16
	var ord, parent int32
	var r [14]int32
	err := sc.Scan(&s.Path, &lang, &s.Package, &ord, &s.ID, &s.Name, &kind, &s.Container,
		&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6], &r[7], &r[8], &r[9],
		&s.Signature, &s.Doc, &s.Type, &s.Extends, &s.Implements, &flags, &parent)
	s.Lang, s.Kind, s.Parent = graph.Language(lang), graph.SymbolKind(kind), parent
	s.Range = graph.Range{StartByte: uint32(r[0]), EndByte: uint32(r[1]), StartLine: uint32(r[2]), StartCol: uint32(r[3]), EndLine: uint32(r[4]), EndCol: uint32(r[5])}
	nl, nc := uint32(r[8]), uint32(r[9])
	s.NameRange = graph.Range{StartByte: uint32(r[6]), EndByte: uint32(r[7]), StartLine: nl, EndLine: nl, StartCol: nc}
	s.NameRange.EndCol = nc + (s.NameRange.EndByte - s.NameRange.StartByte)
	if len(s.Extends) == 0 {
		s.Extends = nil
	}
	if len(s.Implements) == 0 {
		s.Implements = nil
	}
	s.Exported, s.IsTest = flags&1 != 0, flags&2 != 0
	return s, err
}

func (v view) symbols(ctx context.Context, where string, args ...any) ([]graph.Symbol, error) {
	rows, err := v.q.Query(ctx, `SELECT `+symbolCols+symbolFrom+where, append([]any{v.gen}, args...)...)
	if err != nil {
		return nil, v.db.queryErr("query symbols", err)
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
	return out, v.db.queryErr("query symbols", rows.Err())
}

// SymbolsByName returns the definitions named name, ignoring ASCII case,
// in path and position order.
func (v view) SymbolsByName(ctx context.Context, name string) ([]graph.Symbol, error) {
	return v.symbols(ctx, `WHERE lower(s.name) = lower($2::text COLLATE "C") ORDER BY g.path, s.start_byte, s.ord`, name)
}

// SymbolsByID returns the definitions of a symbol.
func (v view) SymbolsByID(ctx context.Context, id graph.SymbolID) ([]graph.Symbol, error) {
	return v.symbols(ctx, `WHERE s.sid = $2 AND x.sid = $3 ORDER BY g.path, s.start_byte, s.ord`, sidOf(id), string(id))
}

// SymbolsInFile returns a file's definitions in position order.
func (v view) SymbolsInFile(ctx context.Context, path string) ([]graph.Symbol, error) {
	return v.symbols(ctx, `WHERE g.path = $2 ORDER BY s.ord`, path)
}

// AllSymbols calls fn for every definition in path order.
func (v view) AllSymbols(ctx context.Context, fn func(graph.Symbol) error) error {
	rows, err := v.q.Query(ctx, `SELECT `+symbolCols+symbolFrom+`ORDER BY g.path, s.ord`, v.gen)
	if err != nil {
		return v.db.queryErr("query symbols", err)
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
	return v.db.queryErr("query symbols", rows.Err())
}

// FileFacts returns everything stored about one file (chunks without text).
func (v view) FileFacts(ctx context.Context, path string) (*graph.FileFacts, error) {
	var blob []byte
	var fileID int64
	var resID *int64
	f, err := scanFile(v.q.QueryRow(ctx, `SELECT `+fileCols+`, f.facts, f.id, g.res_id`+fileFrom+`AND g.path = $2`, v.gen, path), &blob, &fileID, &resID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("file %q: %w", path, graph.ErrNotFound)
	}
	if err != nil {
		return nil, v.db.queryErr("read facts of "+path, err)
	}
	ff := &graph.FileFacts{File: f}
	if err := facts.Decode(blob, ff); err != nil {
		return nil, fmt.Errorf("decode facts of %s: %w", path, err)
	}
	if resID != nil {
		if ff.Occurrences, err = v.occurrences(ctx, *resID); err != nil {
			return nil, err
		}
	}
	if ff.Symbols, err = v.SymbolsInFile(ctx, path); err != nil {
		return nil, err
	}
	refs, err := v.ChunksInFile(ctx, path)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		ff.Chunks = append(ff.Chunks, r.Chunk)
	}
	return ff, nil
}

// occurrences reads the resolved occurrences of one resolution.
func (v view) occurrences(ctx context.Context, resID int64) ([]graph.Occurrence, error) {
	rows, err := v.q.Query(ctx, `SELECT o.name, o.start_byte, o.end_byte, o.start_line, o.start_col, o.end_line, o.end_col,
		o.role, o.qualifier, o.enclosing, coalesce(x.sid, ''), o.confidence
		FROM occurrences o LEFT JOIN sids x ON x.id = o.sid AND o.sid <> 0 WHERE o.res_id = $1 ORDER BY o.ord`, resID)
	if err != nil {
		return nil, v.db.queryErr("read occurrences", err)
	}
	defer rows.Close()
	var out []graph.Occurrence
	for rows.Next() {
		var o graph.Occurrence
		var r [6]int32
		var role, conf int16
		if err := rows.Scan(&o.Name, &r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &role, &o.Qualifier, &o.Enclosing, &o.Symbol, &conf); err != nil {
			return nil, err
		}
		o.Range = graph.Range{StartByte: uint32(r[0]), EndByte: uint32(r[1]), StartLine: uint32(r[2]), StartCol: uint32(r[3]), EndLine: uint32(r[4]), EndCol: uint32(r[5])}
		o.Role, o.Confidence = graph.Role(role), graph.Confidence(conf)
		out = append(out, o)
	}
	return out, v.db.queryErr("read occurrences", rows.Err())
}

const chunkSelect = `SELECT c.id, g.path, c.kind, coalesce(x.sid, ''), c.name,
	c.start_byte, c.end_byte, c.start_line, c.end_line, c.hash
	FROM chunks c JOIN gen_files g ON g.file_id = c.file_id AND g.gen_id = $1
	LEFT JOIN sids x ON x.id = c.sid AND c.sid <> 0 `

func (v view) chunkRefs(ctx context.Context, where string, args ...any) ([]graph.ChunkRef, error) {
	rows, err := v.q.Query(ctx, chunkSelect+where, append([]any{v.gen}, args...)...)
	if err != nil {
		return nil, v.db.queryErr("query chunks", err)
	}
	defer rows.Close()
	var out []graph.ChunkRef
	for rows.Next() {
		var c graph.ChunkRef
		var kind int16
		var r [4]int32
		if err := rows.Scan(&c.ID, &c.Path, &kind, &c.Symbol, &c.Name, &r[0], &r[1], &r[2], &r[3], &c.Hash); err != nil {
			return nil, err
		}
		c.Kind = graph.ChunkKind(kind)
		c.Range = graph.Range{StartByte: uint32(r[0]), EndByte: uint32(r[1]), StartLine: uint32(r[2]), EndLine: uint32(r[3])}
		out = append(out, c)
	}
	return out, v.db.queryErr("query chunks", rows.Err())
}

// ChunksInFile returns a file's chunks in order, without text.
func (v view) ChunksInFile(ctx context.Context, path string) ([]graph.ChunkRef, error) {
	if v.cache != nil {
		return v.cache.chunksInFile(ctx, path, v.chunksInFile)
	}
	return v.chunksInFile(ctx, path)
}

func (v view) chunksInFile(ctx context.Context, path string) ([]graph.ChunkRef, error) {
	return v.chunkRefs(ctx, `WHERE g.path = $2 ORDER BY c.ord`, path)
}

// ChunksByID returns the live chunks among ids.
func (v view) ChunksByID(ctx context.Context, ids []int64) ([]graph.ChunkRef, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if v.cache != nil {
		return v.cache.chunksByID(ctx, ids, v.chunksByID)
	}
	return v.chunksByID(ctx, ids)
}

func (v view) chunksByID(ctx context.Context, ids []int64) ([]graph.ChunkRef, error) {
	return v.chunkRefs(ctx, `WHERE c.id = ANY($2)`, ids)
}

// FilesMentioning lists the files with an occurrence of name, in path order.
func (v view) FilesMentioning(ctx context.Context, name string) ([]string, error) {
	rows, err := v.q.Query(ctx, `SELECT g.path FROM postings p JOIN gen_files g ON g.file_id = p.file_id AND g.gen_id = $1
		WHERE p.name = $2 ORDER BY g.path`, v.gen, name)
	if err != nil {
		return nil, v.db.queryErr("query postings", err)
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
	return out, v.db.queryErr("query postings", rows.Err())
}

// Edges returns the edges of the given kinds into (In) or out of (Out) the
// symbols ids, in the embedded store's order: call site path (derived
// edges, which have none, first), position, kind, endpoints.
func (v view) Edges(ctx context.Context, ids []graph.SymbolID, dir graph.Direction, kinds ...graph.EdgeKind) ([]graph.Edge, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]int64, len(ids))
	for i, id := range ids {
		keys[i] = sidOf(id)
	}
	near := "dst"
	if dir == graph.Out {
		near = "src"
	}
	kindFilter := ""
	args := []any{v.gen, keys}
	if len(kinds) > 0 {
		ks := make([]int16, len(kinds))
		for i, k := range kinds {
			ks[i] = int16(k)
		}
		args = append(args, ks)
		kindFilter = ` AND e.kind = ANY($3)`
	}
	q := `WITH e AS (
		SELECT e.src, e.dst, e.kind, e.confidence, e.ambiguous, g.path, e.start_byte, e.end_byte, e.line, e.col
		FROM edges e JOIN gen_files g ON g.res_id = e.res_id AND g.gen_id = $1
		WHERE e.` + near + ` = ANY($2)` + kindFilter + `
		UNION ALL
		SELECT e.src, e.dst, e.kind, e.confidence, e.ambiguous, ''::text COLLATE "C", e.start_byte, e.end_byte, e.line, e.col
		FROM gen_edges e WHERE e.gen_id = $1 AND e.` + near + ` = ANY($2)` + kindFilter + `)
	SELECT a.sid, b.sid, e.kind, e.confidence, e.ambiguous, e.path, e.start_byte, e.end_byte, e.line, e.col
	FROM e JOIN sids a ON a.id = e.src JOIN sids b ON b.id = e.dst
	ORDER BY e.path, e.start_byte, e.kind, a.sid, b.sid`
	rows, err := v.q.Query(ctx, q, args...)
	if err != nil {
		return nil, v.db.queryErr("query edges", err)
	}
	defer rows.Close()
	want := make(map[graph.SymbolID]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []graph.Edge
	for rows.Next() {
		var e graph.Edge
		var kind, conf int16
		var sb, eb, line, col int32
		if err := rows.Scan(&e.From, &e.To, &kind, &conf, &e.Ambiguous, &e.Path, &sb, &eb, &line, &col); err != nil {
			return nil, err
		}
		// Guard against a hash shared by a symbol not asked for.
		if (dir == graph.Out && !want[e.From]) || (dir != graph.Out && !want[e.To]) {
			continue
		}
		e.Kind, e.Confidence = graph.EdgeKind(kind), graph.Confidence(conf)
		e.Range = graph.Range{StartByte: uint32(sb), EndByte: uint32(eb), StartLine: uint32(line), EndLine: uint32(line), StartCol: uint32(col)}
		e.Range.EndCol = e.Range.StartCol + (e.Range.EndByte - e.Range.StartByte)
		out = append(out, e)
	}
	return out, v.db.queryErr("query edges", rows.Err())
}

// Ranks returns the centrality of symbols.
func (v view) Ranks(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID]float64, error) {
	if len(ids) == 0 {
		return map[graph.SymbolID]float64{}, nil
	}
	if v.cache != nil {
		return v.cache.rankOf(ctx, ids, v.ranks)
	}
	return v.ranks(ctx, ids)
}

func (v view) ranks(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID]float64, error) {
	out := map[graph.SymbolID]float64{}
	keys := make([]int64, len(ids))
	byKey := make(map[int64]graph.SymbolID, len(ids))
	for i, id := range ids {
		keys[i] = sidOf(id)
		byKey[keys[i]] = id
	}
	// the symbols' own ids map the keys back: no join with sids
	rows, err := v.q.Query(ctx, `SELECT r.sid, r.score FROM ranks r WHERE r.gen_id = $1 AND r.sid = ANY($2)`, v.gen, keys)
	if err != nil {
		return nil, v.db.queryErr("query ranks", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var score float64
		if err := rows.Scan(&key, &score); err != nil {
			return nil, err
		}
		if id, ok := byKey[key]; ok {
			out[id] = score
		}
	}
	return out, v.db.queryErr("query ranks", rows.Err())
}

// Owned makes Close of s close its database too (for a store opened on a
// database made just for it).
func Owned(s *Store) *Store {
	s.owned = true
	return s
}

// SymbolsByIDs returns the definitions of many symbols in one query, each
// id's in SymbolsByID's order (graph.BatchReader).
func (v view) SymbolsByIDs(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID][]graph.Symbol, error) {
	keys := make([]int64, len(ids))
	want := make(map[graph.SymbolID]bool, len(ids))
	for i, id := range ids {
		keys[i] = sidOf(id)
		want[id] = true
	}
	syms, err := v.symbols(ctx, `WHERE s.sid = ANY($2) ORDER BY g.path, s.start_byte, s.ord`, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[graph.SymbolID][]graph.Symbol, len(ids))
	for _, s := range syms {
		if want[s.ID] {
			out[s.ID] = append(out[s.ID], s)
		}
	}
	return out, nil
}
