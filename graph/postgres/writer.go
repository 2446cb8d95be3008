package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/facts"
)

// Writer writes into a build, in one transaction on the connection that
// holds its claim. A job's writer (extraction of the job's paths) commits
// by marking the job done; the finalizer's writer (resolution, derived
// edges, ranks, side indexes) commits by publishing the generation. It
// implements graph.Writer; each mode uses the part of it the indexer calls
// in that phase.
type Writer struct {
	b     *Build
	db    *DB
	conn  *pgxpool.Conn
	tx    pgx.Tx
	job   *Job // nil: the finalizer
	gen   int64
	sids  *interner
	ids   struct{ files, chunks, res idAlloc }
	dir   string // local side-index directory (finalizer), made on demand
	state string // local state directory (journal, caches)

	// Buffered writes, applied by flush in a fixed order: deletions, new
	// rows, then updates of rows that exist.
	tables    map[string]*table
	delFiles  []string
	delSkips  []string
	inserted  map[string]bool // paths with a buffered gen_files or gen_skips row
	touch     map[string][2]int64
	committed map[string]bool
	category  map[string]graph.FileCategory
	res       map[string]int64
	pending   int

	emb      []embRow
	embDims  map[int]bool
	result   any
	done     bool
	failed   error
	finished time.Time
}

type embRow struct {
	id    int64
	model string
	vec   []float32
}

type table struct {
	name string
	cols []string
	rows [][]any
}

var _ graph.Writer = (*Writer)(nil)

var tableCols = map[string][]string{
	"files":       {"id", "repo_id", "gen_id", "path", "lang", "hash", "lines", "status", "error", "package", "scip", "facts"},
	"gen_files":   {"gen_id", "path", "file_id", "size", "mtime", "committed", "category"},
	"gen_skips":   {"gen_id", "path", "reason", "detail", "dir", "size", "mtime"},
	"symbols":     {"file_id", "ord", "sid", "name", "kind", "container", "start_byte", "end_byte", "start_line", "start_col", "end_line", "end_col", "name_start", "name_end", "name_line", "name_col", "signature", "doc", "type", "extends", "implements", "flags", "parent"},
	"postings":    {"name", "file_id"},
	"chunks":      {"id", "file_id", "ord", "kind", "sid", "name", "start_byte", "end_byte", "start_line", "end_line", "hash", "text"},
	"occurrences": {"res_id", "ord", "name", "start_byte", "end_byte", "start_line", "start_col", "end_line", "end_col", "role", "qualifier", "enclosing", "sid", "confidence"},
	"edges":       {"res_id", "src", "dst", "kind", "confidence", "ambiguous", "start_byte", "end_byte", "line", "col"},
	"gen_edges":   {"gen_id", "src", "dst", "kind", "confidence", "ambiguous", "start_byte", "end_byte", "line", "col"},
	"ranks":       {"gen_id", "sid", "score"},
}

// copy order: parents before the rows that refer to them (no foreign keys
// are declared; the order keeps a reader's view sensible all the same).
var tableOrder = []string{"files", "symbols", "postings", "chunks", "gen_files", "gen_skips", "occurrences", "edges", "gen_edges", "ranks"}

const flushRows = 30000

func newWriter(ctx context.Context, b *Build, conn *pgxpool.Conn, job *Job) (*Writer, error) {
	w := &Writer{b: b, db: b.db, conn: conn, job: job, gen: b.ID, sids: newInterner(b.db.pool),
		tables: map[string]*table{}, inserted: map[string]bool{}, touch: map[string][2]int64{},
		committed: map[string]bool{}, category: map[string]graph.FileCategory{}, res: map[string]int64{}, embDims: map[int]bool{}}
	w.ids.files.seq, w.ids.chunks.seq, w.ids.res.seq = "file_ids", "chunk_ids", "res_ids"
	for name, cols := range tableCols {
		w.tables[name] = &table{name: name, cols: cols}
	}
	w.state = b.StateDir()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, b.db.queryErr("begin", err)
	}
	w.tx = tx
	return w, nil
}

// Fresh reports whether the build starts from scratch, and why.
func (w *Writer) Fresh() (bool, string) { return w.b.Fresh, w.b.Why }

// StateDir is a local directory for what an index run keeps on this
// machine between runs (the crash journal, embedding caches).
func (w *Writer) StateDir() string { return w.state }

// Dir is the local directory side indexes of this generation are written
// to; the finalizer's commit publishes its files in the database. It holds
// the side indexes of the generation the build extends.
func (w *Writer) Dir() string {
	if w.dir == "" {
		d, err := w.db.buildDir(context.Background(), w.b)
		if err != nil && w.failed == nil {
			w.failed = err
		}
		w.dir = d
	}
	return w.dir
}

// SetResult records what the job found (counts, changed names), stored
// with the job when it commits.
func (w *Writer) SetResult(v any) { w.result = v }

// clean makes s acceptable to a text column: valid UTF-8, no NUL.
func clean(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

func cleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return out
}

func (w *Writer) add(name string, row ...any) {
	t := w.tables[name]
	t.rows = append(t.rows, row)
	w.pending++
}

func (w *Writer) maybeFlush(ctx context.Context) error {
	if w.pending >= flushRows {
		return w.flush(ctx)
	}
	return nil
}

// flush applies the buffered writes.
func (w *Writer) flush(ctx context.Context) error {
	if w.failed != nil {
		return w.failed
	}
	if len(w.delFiles) > 0 {
		if _, err := w.tx.Exec(ctx, `DELETE FROM gen_files WHERE gen_id = $1 AND path = ANY($2)`, w.gen, w.delFiles); err != nil {
			return w.fail("delete replaced files", err)
		}
		w.delFiles = w.delFiles[:0]
	}
	if len(w.delSkips) > 0 {
		if _, err := w.tx.Exec(ctx, `DELETE FROM gen_skips WHERE gen_id = $1 AND path = ANY($2)`, w.gen, w.delSkips); err != nil {
			return w.fail("delete replaced skips", err)
		}
		w.delSkips = w.delSkips[:0]
	}
	for _, name := range tableOrder {
		t := w.tables[name]
		if len(t.rows) == 0 {
			continue
		}
		if _, err := w.tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(t.rows)); err != nil {
			return w.fail("write "+t.name, err)
		}
		clear(t.rows)
		t.rows = t.rows[:0]
	}
	clear(w.inserted)
	w.pending = 0
	if len(w.touch) > 0 {
		paths := make([]string, 0, len(w.touch))
		sizes := make([]int64, 0, len(w.touch))
		mtimes := make([]int64, 0, len(w.touch))
		for p, v := range w.touch {
			paths, sizes, mtimes = append(paths, p), append(sizes, v[0]), append(mtimes, v[1])
		}
		for _, tbl := range []string{"gen_files", "gen_skips"} {
			if _, err := w.tx.Exec(ctx, `UPDATE `+tbl+` t SET size = v.size, mtime = v.mtime
				FROM unnest($2::text[], $3::bigint[], $4::bigint[]) v(path, size, mtime)
				WHERE t.gen_id = $1 AND t.path = v.path COLLATE "C"`, w.gen, paths, sizes, mtimes); err != nil {
				return w.fail("re-stamp files", err)
			}
		}
		clear(w.touch)
	}
	if len(w.committed) > 0 {
		paths := make([]string, 0, len(w.committed))
		vals := make([]bool, 0, len(w.committed))
		for p, v := range w.committed {
			paths, vals = append(paths, p), append(vals, v)
		}
		if _, err := w.tx.Exec(ctx, `UPDATE gen_files t SET committed = v.c
			FROM unnest($2::text[], $3::bool[]) v(path, c)
			WHERE t.gen_id = $1 AND t.path = v.path COLLATE "C" AND t.committed <> v.c`, w.gen, paths, vals); err != nil {
			return w.fail("record committed files", err)
		}
		clear(w.committed)
	}
	if len(w.category) > 0 {
		paths := make([]string, 0, len(w.category))
		vals := make([]int16, 0, len(w.category))
		for p, v := range w.category {
			paths, vals = append(paths, p), append(vals, int16(v))
		}
		if _, err := w.tx.Exec(ctx, `UPDATE gen_files t SET category = v.c
			FROM unnest($2::text[], $3::smallint[]) v(path, c)
			WHERE t.gen_id = $1 AND t.path = v.path COLLATE "C" AND t.category <> v.c`, w.gen, paths, vals); err != nil {
			return w.fail("record file categories", err)
		}
		clear(w.category)
	}
	if len(w.res) > 0 {
		paths := make([]string, 0, len(w.res))
		ids := make([]int64, 0, len(w.res))
		for p, v := range w.res {
			paths, ids = append(paths, p), append(ids, v)
		}
		if _, err := w.tx.Exec(ctx, `UPDATE gen_files t SET res_id = v.res
			FROM unnest($2::text[], $3::bigint[]) v(path, res)
			WHERE t.gen_id = $1 AND t.path = v.path COLLATE "C"`, w.gen, paths, ids); err != nil {
			return w.fail("record resolutions", err)
		}
		clear(w.res)
	}
	return nil
}

// fail records a write error: the transaction is unusable after it.
func (w *Writer) fail(what string, err error) error {
	err = w.db.queryErr(what, err)
	if w.failed == nil {
		w.failed = err
	}
	return err
}

// Known returns what the build's generation holds about each path (the
// generation it extends, plus what finished jobs wrote).
func (w *Writer) Known(ctx context.Context) (map[string]graph.FileState, error) {
	if err := w.flush(ctx); err != nil {
		return nil, err
	}
	k, err := readKnown(ctx, w.tx, w.gen)
	if err != nil {
		return nil, w.fail("read indexed files", err)
	}
	return k, nil
}

// flushIfPending flushes when path has a buffered row, so that a later
// deletion of the same path applies after it.
func (w *Writer) flushIfPending(ctx context.Context, path string) error {
	if w.inserted[path] {
		return w.flush(ctx)
	}
	return nil
}

// PutFile writes a new version of a file and makes it the generation's.
func (w *Writer) PutFile(ctx context.Context, ff *graph.FileFacts) ([]int64, error) {
	f := &ff.File
	if err := w.flushIfPending(ctx, f.Path); err != nil {
		return nil, err
	}
	fid, err := w.ids.files.take(ctx, w.tx)
	if err != nil {
		return nil, w.fail("allocate file id", err)
	}
	path := clean(f.Path)
	w.delFiles = append(w.delFiles, path)
	w.delSkips = append(w.delSkips, path)
	w.add("files", fid, w.b.RepoID, w.gen, path, int16(f.Lang), f.Hash, int32(f.Lines), int16(f.Status),
		clean(f.Error), clean(f.Package), clean(f.SCIP), facts.Encode(ff))
	w.add("gen_files", w.gen, path, fid, f.Size, f.ModTime, f.Committed, int16(f.Category))
	w.inserted[path] = true
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		sid, err := w.sids.id(s.ID)
		if err != nil {
			return nil, err
		}
		var flags int16
		if s.Exported {
			flags |= 1
		}
		if s.IsTest {
			flags |= 2
		}
		w.add("symbols", fid, int32(i), sid, clean(s.Name), int16(s.Kind), clean(s.Container),
			int32(s.Range.StartByte), int32(s.Range.EndByte), int32(s.Range.StartLine), int32(s.Range.StartCol), int32(s.Range.EndLine), int32(s.Range.EndCol),
			int32(s.NameRange.StartByte), int32(s.NameRange.EndByte), int32(s.NameRange.StartLine), int32(s.NameRange.StartCol),
			clean(s.Signature), clean(s.Doc), clean(s.Type), cleanAll(s.Extends), cleanAll(s.Implements), flags, s.Parent)
	}
	names := make([]string, 0, len(ff.Occurrences))
	for i := range ff.Occurrences {
		names = append(names, clean(ff.Occurrences[i].Name))
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		w.add("postings", n, fid)
	}
	ids := make([]int64, len(ff.Chunks))
	for i := range ff.Chunks {
		c := &ff.Chunks[i]
		id, err := w.ids.chunks.take(ctx, w.tx)
		if err != nil {
			return nil, w.fail("allocate chunk id", err)
		}
		sid, err := w.sids.id(c.Symbol)
		if err != nil {
			return nil, err
		}
		ids[i] = id
		w.add("chunks", id, fid, int32(i), int16(c.Kind), sid, clean(c.Name), int32(c.Range.StartByte), int32(c.Range.EndByte),
			int32(c.Range.StartLine), int32(c.Range.EndLine), c.Hash, []byte(c.Text))
	}
	return ids, w.maybeFlush(ctx)
}

// Touch records a new stat for an unchanged file.
func (w *Writer) Touch(ctx context.Context, path string, size, modTime int64) error {
	w.touch[clean(path)] = [2]int64{size, modTime}
	return nil
}

// SetCommitted records whether a file equals its blob at the revision.
func (w *Writer) SetCommitted(ctx context.Context, path string, committed bool) error {
	w.committed[clean(path)] = committed
	return nil
}

// SetCategory records a new category for an indexed file of the generation.
func (w *Writer) SetCategory(ctx context.Context, path string, c graph.FileCategory) error {
	w.category[clean(path)] = c
	return nil
}

// Delete removes a path from the generation.
func (w *Writer) Delete(ctx context.Context, path string) error {
	path = clean(path)
	if err := w.flushIfPending(ctx, path); err != nil {
		return err
	}
	w.delFiles = append(w.delFiles, path)
	w.delSkips = append(w.delSkips, path)
	delete(w.touch, path)
	delete(w.committed, path)
	return nil
}

// PutSkip records a skipped path.
func (w *Writer) PutSkip(ctx context.Context, s graph.Skip, size, modTime int64) error {
	path := clean(s.Path)
	if err := w.flushIfPending(ctx, path); err != nil {
		return err
	}
	w.delFiles = append(w.delFiles, path)
	w.delSkips = append(w.delSkips, path)
	w.add("gen_skips", w.gen, path, int16(s.Reason), clean(s.Detail), s.Dir, size, modTime)
	w.inserted[path] = true
	return w.maybeFlush(ctx)
}

// View reads the generation being built, this writer's rows included.
func (w *Writer) View() graph.Reader {
	w.flush(context.Background()) // a failure is kept in w.failed and fails the commit
	return view{q: w.tx, db: w.db, gen: w.gen, repo: w.b.RepoID}
}

// Facts returns what extraction produced for a file: the resolver's input.
func (w *Writer) Facts(ctx context.Context, path string) (*graph.FileFacts, error) {
	if err := w.flush(ctx); err != nil {
		return nil, err
	}
	var blob []byte
	f, err := scanFile(w.tx.QueryRow(ctx, `SELECT `+fileCols+`, f.facts`+fileFrom+`AND g.path = $2`, w.gen, path), &blob)
	if err != nil {
		return nil, w.fail("read facts of "+path, err)
	}
	ff := &graph.FileFacts{File: f}
	if err := facts.Decode(blob, ff); err != nil {
		return nil, fmt.Errorf("decode facts of %s: %w", path, err)
	}
	return ff, nil
}

// SetResolution stores a new resolution of a file: its resolved
// occurrences and the edges derived from it.
func (w *Writer) SetResolution(ctx context.Context, ff *graph.FileFacts, edges []graph.Edge) error {
	res, err := w.ids.res.take(ctx, w.tx)
	if err != nil {
		return w.fail("allocate resolution id", err)
	}
	for i := range ff.Occurrences {
		o := &ff.Occurrences[i]
		sid, err := w.sids.id(o.Symbol)
		if err != nil {
			return err
		}
		w.add("occurrences", res, int32(i), clean(o.Name), int32(o.Range.StartByte), int32(o.Range.EndByte),
			int32(o.Range.StartLine), int32(o.Range.StartCol), int32(o.Range.EndLine), int32(o.Range.EndCol),
			int16(o.Role), clean(o.Qualifier), o.Enclosing, sid, int16(o.Confidence))
	}
	for i := range edges {
		if err := w.addEdge("edges", res, &edges[i]); err != nil {
			return err
		}
	}
	w.res[clean(ff.File.Path)] = res
	return w.maybeFlush(ctx)
}

func (w *Writer) addEdge(tbl string, owner int64, e *graph.Edge) error {
	src, err := w.sids.id(e.From)
	if err != nil {
		return err
	}
	dst, err := w.sids.id(e.To)
	if err != nil {
		return err
	}
	w.add(tbl, owner, src, dst, int16(e.Kind), int16(e.Confidence), e.Ambiguous,
		int32(e.Range.StartByte), int32(e.Range.EndByte), int32(e.Range.StartLine), int32(e.Range.StartCol))
	return nil
}

// SetDerivedEdges replaces the edges derived from the whole graph.
func (w *Writer) SetDerivedEdges(ctx context.Context, edges []graph.Edge) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if _, err := w.tx.Exec(ctx, `DELETE FROM gen_edges WHERE gen_id = $1`, w.gen); err != nil {
		return w.fail("replace derived edges", err)
	}
	for i := range edges {
		if err := w.addEdge("gen_edges", w.gen, &edges[i]); err != nil {
			return err
		}
	}
	return w.maybeFlush(ctx)
}

// AllEdges calls fn for every edge of the given kinds.
func (w *Writer) AllEdges(ctx context.Context, kinds []graph.EdgeKind, fn func(from, to graph.SymbolID)) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := w.sids.flush(ctx); err != nil {
		return err
	}
	ks := make([]int16, len(kinds))
	for i, k := range kinds {
		ks[i] = int16(k)
	}
	filter := ""
	if len(kinds) > 0 {
		filter = ` AND e.kind = ANY($2)`
	}
	args := []any{w.gen}
	if len(kinds) > 0 {
		args = append(args, ks)
	}
	rows, err := w.tx.Query(ctx, `SELECT e.src, e.dst FROM edges e JOIN gen_files g ON g.res_id = e.res_id AND g.gen_id = $1 WHERE true`+filter+`
		UNION ALL SELECT e.src, e.dst FROM gen_edges e WHERE e.gen_id = $1`+filter, args...)
	if err != nil {
		return w.fail("read edges", err)
	}
	var pairs [][2]int64
	need := map[int64]bool{}
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			rows.Close()
			return err
		}
		pairs = append(pairs, [2]int64{a, b})
		need[a], need[b] = true, true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return w.fail("read edges", err)
	}
	names := make(map[int64]graph.SymbolID, len(need))
	var missing []int64
	for id := range need {
		if s, ok := w.sids.known[id]; ok {
			names[id] = s
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		rows, err := w.tx.Query(ctx, `SELECT id, sid FROM sids WHERE id = ANY($1)`, missing)
		if err != nil {
			return w.fail("read symbols", err)
		}
		for rows.Next() {
			var id int64
			var s string
			if err := rows.Scan(&id, &s); err != nil {
				rows.Close()
				return err
			}
			names[id] = graph.SymbolID(s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return w.fail("read symbols", err)
		}
	}
	for _, p := range pairs {
		fn(names[p[0]], names[p[1]])
	}
	return nil
}

// SetRanks replaces the centrality scores.
func (w *Writer) SetRanks(ctx context.Context, ranks map[graph.SymbolID]float64) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if _, err := w.tx.Exec(ctx, `DELETE FROM ranks WHERE gen_id = $1`, w.gen); err != nil {
		return w.fail("replace ranks", err)
	}
	for id, score := range ranks {
		sid, err := w.sids.id(id)
		if err != nil {
			return err
		}
		w.add("ranks", w.gen, sid, score)
	}
	return w.maybeFlush(ctx)
}

// PutEmbeddings stores chunk embeddings made by model (the finalizer's
// vector side index hands them over), for approximate search in SQL.
func (w *Writer) PutEmbeddings(ctx context.Context, model string, ids []int64, vecs [][]float32) error {
	for i, id := range ids {
		if i < len(vecs) && len(vecs[i]) > 0 {
			w.emb = append(w.emb, embRow{id: id, model: model, vec: vecs[i]})
		}
	}
	if len(w.emb) >= flushRows {
		return w.flushEmbeddings(ctx)
	}
	return nil
}

func (w *Writer) flushEmbeddings(ctx context.Context) error {
	if len(w.emb) == 0 {
		return nil
	}
	rows := make([][]any, len(w.emb))
	for i, e := range w.emb {
		rows[i] = []any{e.id, w.b.RepoID, e.model, int32(len(e.vec)), pgvector.NewVector(e.vec)}
		w.embDims[len(e.vec)] = true
	}
	if _, err := w.tx.CopyFrom(ctx, pgx.Identifier{"embeddings"}, []string{"chunk_id", "repo_id", "model", "dim", "embedding"}, pgx.CopyFromRows(rows)); err != nil {
		return w.fail("write embeddings", err)
	}
	w.emb = w.emb[:0]
	return nil
}

// Commit ends the writer's transaction: a job's by marking the job done,
// the finalizer's by publishing the generation (swapping the repository's
// current generation in the same transaction).
func (w *Writer) Commit(ctx context.Context, m graph.Meta) (err error) {
	if w.done {
		return errors.New("writer already finished")
	}
	w.done = true
	defer w.release()
	if w.failed != nil {
		return w.failed
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := w.sids.flush(ctx); err != nil {
		return err
	}
	if w.job != nil {
		return w.commitJob(ctx)
	}
	return w.commitGeneration(ctx, m)
}

func (w *Writer) commitJob(ctx context.Context) error {
	res := []byte("{}")
	if w.result != nil {
		var err error
		if res, err = json.Marshal(w.result); err != nil {
			return err
		}
	}
	tag, err := w.tx.Exec(ctx, `UPDATE jobs SET state = 'done', finished_at = now(), result = $3, lease_until = NULL
		WHERE id = $1 AND attempt = $2 AND state = 'running'`, w.job.ID, w.job.Attempt, string(res))
	if err != nil {
		return w.db.queryErr("finish job", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("job %d: %w", w.job.Ord, graph.ErrClaimLost)
	}
	if err := w.tx.Commit(ctx); err != nil {
		return w.db.queryErr("commit job", err)
	}
	w.tx = nil
	return nil
}

func (w *Writer) commitGeneration(ctx context.Context, m graph.Meta) error {
	if err := w.flushEmbeddings(ctx); err != nil {
		return err
	}
	for dim := range w.embDims {
		if err := w.ensureVectorIndex(ctx, dim); err != nil {
			return err
		}
	}
	if w.dir != "" {
		if err := w.publishSide(ctx); err != nil {
			return err
		}
	}
	st, err := computeStats(ctx, w.tx, w.gen)
	if err != nil {
		return w.db.queryErr("count the generation", err)
	}
	stj, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("publish generation: stats: %w", err)
	}
	extra := m.Extra
	if extra == nil {
		extra = map[string]string{}
	}
	ej, err := json.Marshal(extra)
	if err != nil {
		return fmt.Errorf("publish generation: extra: %w", err)
	}
	indexed := m.IndexedAt
	if indexed.IsZero() {
		indexed = time.Now()
	}
	tag, err := w.tx.Exec(ctx, `UPDATE generations SET state = 'committed', committed_at = now(), root = $3, revision = $4,
			dirty = $5, indexed_at = $6, extra = $7, stats = $8, finalizer = NULL, lease_until = NULL
		WHERE id = $1 AND state = 'finalizing' AND finalizer = $2`,
		w.gen, w.b.opts.Worker, m.Root, m.Revision, m.Dirty, indexed, string(ej), string(stj))
	if err != nil {
		return w.db.queryErr("publish generation", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("finalizing generation %d: %w", w.b.Seq, graph.ErrClaimLost)
	}
	if _, err := w.tx.Exec(ctx, `UPDATE generations SET state = 'superseded', superseded_at = now()
		WHERE id = (SELECT current_gen FROM repositories WHERE id = $1) AND id <> $2`, w.b.RepoID, w.gen); err != nil {
		return w.db.queryErr("publish generation", err)
	}
	if _, err := w.tx.Exec(ctx, `UPDATE repositories SET current_gen = $2 WHERE id = $1`, w.b.RepoID, w.gen); err != nil {
		return w.db.queryErr("publish generation", err)
	}
	if err := w.tx.Commit(ctx); err != nil {
		return w.db.queryErr("commit generation", err)
	}
	w.tx = nil
	if w.dir != "" {
		w.db.keepBuildDir(w.b, w.dir)
	}
	// Old generations go now; a failure here loses nothing.
	gctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	w.db.GC(gctx, w.b.RepoID, GCOptions{})
	return nil
}

// release ends the transaction (rolling back if not committed) and gives
// the connection back.
func (w *Writer) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if w.tx != nil {
		w.tx.Rollback(ctx)
		w.tx = nil
	}
	if w.conn != nil {
		w.conn.Release()
		w.conn = nil
	}
}

// Abort discards the writer's work: a job goes back to the queue, a
// finalization to the build (the next process finalizes).
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if w.job != nil {
		w.db.pool.Exec(ctx, `UPDATE jobs SET state = 'pending', worker = NULL, backend_pid = NULL, backend_start = NULL, lease_until = NULL
			WHERE id = $1 AND attempt = $2 AND state = 'running'`, w.job.ID, w.job.Attempt)
	} else {
		w.db.pool.Exec(ctx, `UPDATE generations SET state = 'building', finalizer = NULL, finalizer_pid = NULL, lease_until = NULL
			WHERE id = $1 AND state = 'finalizing' AND finalizer = $2`, w.gen, w.b.opts.Worker)
	}
	if w.dir != "" {
		os.RemoveAll(w.dir)
	}
	return nil
}

// WrittenPaths lists the paths whose facts this build (re)wrote, in path
// order: what resolution and the side indexes must (re)do.
func (w *Writer) WrittenPaths(ctx context.Context) ([]string, error) {
	if err := w.flush(ctx); err != nil {
		return nil, err
	}
	rows, err := w.tx.Query(ctx, `SELECT g.path FROM gen_files g JOIN files f ON f.id = g.file_id
		WHERE g.gen_id = $1 AND f.gen_id = $1 ORDER BY g.path`, w.gen)
	if err != nil {
		return nil, w.fail("list written files", err)
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
	return out, w.db.queryErr("list written files", rows.Err())
}

// FactsWithText calls fn for each of paths (in order) with its facts:
// symbols and chunks with their text, as extraction made them, and the
// chunk ids. Side indexes are built from it after extraction, possibly in
// another process than the one that extracted.
func (w *Writer) FactsWithText(ctx context.Context, paths []string, fn func(ff *graph.FileFacts, ids []int64) error) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	const batch = 500
	for len(paths) > 0 {
		n := min(len(paths), batch)
		part := paths[:n]
		paths = paths[n:]
		facts := map[string]*graph.FileFacts{}
		ids := map[string][]int64{}
		rows, err := w.tx.Query(ctx, `SELECT `+fileCols+fileFrom+`AND g.path = ANY($2)`, w.gen, part)
		if err != nil {
			return w.fail("read files", err)
		}
		for rows.Next() {
			f, err := scanFile(rows)
			if err != nil {
				rows.Close()
				return err
			}
			facts[f.Path] = &graph.FileFacts{File: f}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return w.fail("read files", err)
		}
		rows, err = w.tx.Query(ctx, `SELECT `+symbolCols+symbolFrom+`WHERE g.path = ANY($2) ORDER BY g.path, s.ord`, w.gen, part)
		if err != nil {
			return w.fail("read symbols", err)
		}
		for rows.Next() {
			s, err := scanSymbol(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if ff := facts[s.Path]; ff != nil {
				ff.Symbols = append(ff.Symbols, s)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return w.fail("read symbols", err)
		}
		rows, err = w.tx.Query(ctx, `SELECT c.id, g.path, c.kind, coalesce(x.sid, ''), c.name,
			c.start_byte, c.end_byte, c.start_line, c.end_line, c.hash, c.text
			FROM chunks c JOIN gen_files g ON g.file_id = c.file_id AND g.gen_id = $1
			LEFT JOIN sids x ON x.id = c.sid AND c.sid <> 0
			WHERE g.path = ANY($2) ORDER BY g.path, c.ord`, w.gen, part)
		if err != nil {
			return w.fail("read chunks", err)
		}
		for rows.Next() {
			var c graph.Chunk
			var id int64
			var kind int16
			var r [4]int32
			var text []byte
			if err := rows.Scan(&id, &c.Path, &kind, &c.Symbol, &c.Name, &r[0], &r[1], &r[2], &r[3], &c.Hash, &text); err != nil {
				rows.Close()
				return err
			}
			c.Kind, c.Text = graph.ChunkKind(kind), string(text)
			c.Range = graph.Range{StartByte: uint32(r[0]), EndByte: uint32(r[1]), StartLine: uint32(r[2]), EndLine: uint32(r[3])}
			if ff := facts[c.Path]; ff != nil {
				ff.Chunks = append(ff.Chunks, c)
				ids[c.Path] = append(ids[c.Path], id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return w.fail("read chunks", err)
		}
		for _, p := range part {
			if ff := facts[p]; ff != nil {
				if err := fn(ff, ids[p]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Previous describes the generation the build extends (empty for a build
// from scratch).
func (w *Writer) Previous() graph.Meta {
	if w.b.Base == 0 {
		return graph.Meta{}
	}
	m, _ := view{q: w.db.pool, db: w.db, gen: w.b.Base, repo: w.b.RepoID}.Meta(context.Background())
	return m
}
