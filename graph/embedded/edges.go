package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/facts"
)

// placeholders returns "?,?,…" for n arguments.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

// idSlice is how many ids one query binds: SQLite limits host parameters.
const idSlice = 400

// inSlices calls fn with the ids, as query arguments, idSlice at a time.
func inSlices(ids []graph.SymbolID, fn func(args []any) error) error {
	for len(ids) > 0 {
		n := min(len(ids), idSlice)
		args := make([]any, n, n+8)
		for i, id := range ids[:n] {
			args[i] = string(id)
		}
		ids = ids[n:]
		if err := fn(args); err != nil {
			return err
		}
	}
	return nil
}

// Edges implements graph.Reader.
func (v view) Edges(ctx context.Context, ids []graph.SymbolID, dir graph.Direction, kinds ...graph.EdgeKind) ([]graph.Edge, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []graph.Edge
	err := inSlices(ids, func(args []any) error {
		n := len(args)
		near := "dst"
		if dir == graph.Out {
			near = "src"
		}
		q := `SELECT a.sid, b.sid, e.kind, e.confidence, e.ambiguous, coalesce(f.path, ''),
				e.start_byte, e.end_byte, e.line, e.col
			FROM sids k JOIN edges e ON e.` + near + ` = k.id
			JOIN sids a ON a.id = e.src JOIN sids b ON b.id = e.dst
			LEFT JOIN files f ON f.id = e.file_id
			WHERE k.sid IN (` + placeholders(n) + `)`
		if len(kinds) > 0 {
			q += ` AND e.kind IN (` + placeholders(len(kinds)) + `)`
			for _, k := range kinds {
				args = append(args, int(k))
			}
		}
		q += ` ORDER BY f.path, e.start_byte, e.kind, a.sid, b.sid`
		rows, err := v.q.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("query edges: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var e graph.Edge
			var kind, conf int
			var line, col uint32
			if err := rows.Scan(&e.From, &e.To, &kind, &conf, &e.Ambiguous, &e.Path,
				&e.Range.StartByte, &e.Range.EndByte, &line, &col); err != nil {
				return err
			}
			e.Kind, e.Confidence = graph.EdgeKind(kind), graph.Confidence(conf)
			e.Range.StartLine, e.Range.EndLine, e.Range.StartCol = line, line, col
			e.Range.EndCol = col + (e.Range.EndByte - e.Range.StartByte)
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Ranks implements graph.Reader.
func (v view) Ranks(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID]float64, error) {
	out := map[graph.SymbolID]float64{}
	err := inSlices(ids, func(args []any) error {
		rows, err := v.q.QueryContext(ctx, `SELECT x.sid, r.score FROM sids x JOIN ranks r ON r.sid = x.id WHERE x.sid IN (`+placeholders(len(args))+`)`, args...)
		if err != nil {
			return fmt.Errorf("query ranks: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id graph.SymbolID
			var score float64
			if err := rows.Scan(&id, &score); err != nil {
				return err
			}
			out[id] = score
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// View implements graph.Writer: reads see this generation's writes,
// including rows still buffered for batch insertion (they are flushed; a
// failed flush fails the commit).
func (w *Writer) View() graph.Reader {
	if err := w.flushBatches(context.Background()); err != nil && w.failed == nil {
		w.failed = err
	}
	return w.newView()
}

// Facts implements graph.Writer.
func (w *Writer) Facts(ctx context.Context, path string) (*graph.FileFacts, error) {
	if err := w.flushBatches(ctx); err != nil {
		return nil, err
	}
	var blob []byte
	ff := &graph.FileFacts{}
	f := &ff.File
	var lang, status int
	var fid int64
	err := w.tx.QueryRowContext(ctx, `SELECT id, `+fileCols+`, facts FROM files WHERE path = ?`, path).Scan(&fid,
		&f.Path, &lang, &f.Hash, &f.Size, &f.ModTime, &f.Lines, &status, &f.Error, &f.Package, &f.Committed, &f.SCIP, &f.Category, &blob)
	if err != nil {
		return nil, fmt.Errorf("read facts of %s: %w", path, err)
	}
	f.Lang, f.Status = graph.Language(lang), graph.ParseStatus(status)
	w.fileIDs[path] = fid
	if err := facts.Decode(blob, ff); err != nil {
		return nil, fmt.Errorf("decode facts of %s: %w", path, err)
	}
	return ff, nil
}

// SetResolution implements graph.Writer.
func (w *Writer) SetResolution(ctx context.Context, ff *graph.FileFacts, edges []graph.Edge) error {
	if err := w.flushBatches(ctx); err != nil {
		return err
	}
	path := ff.File.Path
	fid := w.fileIDs[path]
	if fid == 0 {
		if err := w.tx.QueryRowContext(ctx, `SELECT id FROM files WHERE path = ?`, path).Scan(&fid); err != nil {
			return fmt.Errorf("resolution for unindexed %s: %w", path, err)
		}
		w.fileIDs[path] = fid
	}
	if _, err := w.exec(ctx, `UPDATE files SET facts = ? WHERE id = ?`, facts.Encode(ff), fid); err != nil {
		return fmt.Errorf("write resolution of %s: %w", path, err)
	}
	// A fresh epoch has no edges before its resolution pass (and no index
	// on edges yet to find them by).
	if !w.fresh {
		if _, err := w.exec(ctx, `DELETE FROM edges WHERE file_id = ?`, fid); err != nil {
			return fmt.Errorf("replace edges of %s: %w", path, err)
		}
	}
	return w.insertEdges(ctx, fid, edges)
}

// SetDerivedEdges implements graph.Writer.
func (w *Writer) SetDerivedEdges(ctx context.Context, edges []graph.Edge) error {
	if err := w.flushBatches(ctx); err != nil {
		return err
	}
	if w.fresh {
		return w.insertEdges(ctx, 0, edges)
	}
	if _, err := w.exec(ctx, `DELETE FROM edges WHERE file_id = 0`); err != nil {
		return fmt.Errorf("replace derived edges: %w", err)
	}
	return w.insertEdges(ctx, 0, edges)
}

func (w *Writer) insertEdges(ctx context.Context, fid int64, edges []graph.Edge) error {
	var batch [][]any
	for i := range edges {
		e := &edges[i]
		src, err := w.sid(ctx, e.From)
		if err != nil {
			return err
		}
		dst, err := w.sid(ctx, e.To)
		if err != nil {
			return err
		}
		batch = append(batch, []any{src, dst, int(e.Kind), int(e.Confidence), e.Ambiguous, fid,
			e.Range.StartByte, e.Range.EndByte, e.Range.StartLine, e.Range.StartCol})
	}
	return w.flush(ctx, "edges(src, dst, kind, confidence, ambiguous, file_id, start_byte, end_byte, line, col)", 10, &batch)
}

// AllEdges implements graph.Writer.
func (w *Writer) AllEdges(ctx context.Context, kinds []graph.EdgeKind, fn func(from, to graph.SymbolID)) error {
	if err := w.flushBatches(ctx); err != nil {
		return err
	}
	names := map[int64]graph.SymbolID{}
	rows, err := w.tx.QueryContext(ctx, `SELECT id, sid FROM sids`)
	if err != nil {
		return fmt.Errorf("read symbols: %w", err)
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
	args := make([]any, len(kinds))
	for i, k := range kinds {
		args[i] = int(k)
	}
	q := `SELECT src, dst FROM edges`
	if len(kinds) > 0 {
		q += ` WHERE kind IN (` + placeholders(len(kinds)) + `)`
	}
	rows, err = w.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read edges: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		fn(names[a], names[b])
	}
	return rows.Err()
}

// SetRanks implements graph.Writer.
func (w *Writer) SetRanks(ctx context.Context, ranks map[graph.SymbolID]float64) error {
	if _, err := w.exec(ctx, `DELETE FROM ranks`); err != nil {
		return fmt.Errorf("replace ranks: %w", err)
	}
	var batch [][]any
	if len(ranks) > bulkRanks {
		// Every ranked symbol is an edge's end, interned already: one scan
		// of the interned ids finds them all, where a lookup each was 41 s
		// of an incremental run's CPU on the Linux kernel (5 M ranks).
		if err := w.flushBatches(ctx); err != nil {
			return err
		}
		rows, err := w.tx.QueryContext(ctx, `SELECT id, sid FROM sids`)
		if err != nil {
			return fmt.Errorf("replace ranks: %w", err)
		}
		found := 0
		var raw sql.RawBytes
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &raw); err != nil {
				rows.Close()
				return fmt.Errorf("replace ranks: %w", err)
			}
			if score, ok := ranks[graph.SymbolID(raw)]; ok {
				batch = append(batch, []any{id, score})
				found++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("replace ranks: %w", err)
		}
		if found == len(ranks) {
			return w.flush(ctx, "ranks(sid, score)", 2, &batch)
		}
		batch = batch[:0] // a rank of a symbol not interned: intern them one by one
	}
	for id, score := range ranks {
		sid, err := w.sid(ctx, id)
		if err != nil {
			return err
		}
		batch = append(batch, []any{sid, score})
	}
	return w.flush(ctx, "ranks(sid, score)", 2, &batch)
}

// bulkRanks is the number of ranks from which SetRanks finds their ids in
// one scan of the interned ids rather than one lookup each.
const bulkRanks = 10000
