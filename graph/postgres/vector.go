package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// vectorIndex names the partial HNSW index of one repository's embeddings
// of one dimension.
func vectorIndex(repo int64, dim int) string {
	return fmt.Sprintf("embeddings_hnsw_r%d_d%d", repo, dim)
}

// ensureVectorIndex creates the HNSW index (cosine distance) over the
// repository's embeddings of dimension dim, if missing. Built after the
// first generation's embeddings are loaded, it is built in bulk, which is
// much faster than inserting into it vector by vector.
func (w *Writer) ensureVectorIndex(ctx context.Context, dim int) error {
	name := vectorIndex(w.b.RepoID, dim)
	var exists bool
	if err := w.tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
		return w.db.queryErr("look up vector index", err)
	}
	if exists {
		return nil
	}
	q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON embeddings USING hnsw ((embedding::vector(%d)) vector_cosine_ops)
		WITH (m = 16, ef_construction = 64) WHERE repo_id = %d AND dim = %d`, name, dim, w.b.RepoID, dim)
	if _, err := w.tx.Exec(ctx, q); err != nil {
		return w.db.queryErr("create vector index", err)
	}
	return nil
}

// Neighbor is a chunk found by vector search, with its cosine similarity.
type Neighbor struct {
	ChunkID int64
	Score   float32
}

// SearchOptions tune Nearest.
type SearchOptions struct {
	// Exact scans every vector instead of using the HNSW index (the
	// reference that recall is measured against).
	Exact bool
	// EfSearch is HNSW's candidate list size (hnsw.ef_search); default 100.
	EfSearch int
}

// Nearest returns the k live chunks of the store's generation whose
// embeddings are closest (cosine) to q, best first, through the HNSW index
// (iterative scans, so chunks of other generations that the index also
// holds do not crowd out live ones).
func (s *Store) Nearest(ctx context.Context, q []float32, k int, o SearchOptions) ([]Neighbor, error) {
	if len(q) == 0 || k <= 0 {
		return nil, nil
	}
	ef := o.EfSearch
	if ef == 0 {
		ef = 100
	}
	dim := len(q)
	tx, err := s.db.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, s.db.queryErr("vector search", err)
	}
	defer tx.Rollback(ctx)
	settings := fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d; SET LOCAL hnsw.iterative_scan = relaxed_order`, max(ef, k))
	mode := "hnsw"
	if o.Exact {
		settings = `SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off`
		mode = "exact"
	}
	if _, err := tx.Exec(ctx, settings); err != nil {
		return nil, s.db.queryErr("vector search", err)
	}
	// Literal repository and dimension, so that the planner matches the
	// partial index's predicate. The mode is in the text too: a prepared
	// statement's cached generic plan must not carry over from exact
	// search (planned with index scans off) to approximate search.
	sql := fmt.Sprintf(`/* %[5]s */ WITH c AS MATERIALIZED (
			SELECT e.chunk_id, e.embedding::vector(%[1]d) <=> $1 AS dist FROM embeddings e
			WHERE e.repo_id = %[2]d AND e.dim = %[1]d
			  AND EXISTS (SELECT 1 FROM chunks c JOIN gen_files g ON g.file_id = c.file_id AND g.gen_id = %[3]d WHERE c.id = e.chunk_id)
			ORDER BY e.embedding::vector(%[1]d) <=> $1 LIMIT %[4]d)
		SELECT chunk_id, dist FROM c ORDER BY dist, chunk_id`, dim, s.repo, s.gen, k, mode)
	rows, err := tx.Query(ctx, sql, pgvector.NewVector(q))
	if err != nil {
		return nil, s.db.queryErr("vector search", err)
	}
	defer rows.Close()
	var out []Neighbor
	for rows.Next() {
		var n Neighbor
		var dist float64
		if err := rows.Scan(&n.ChunkID, &dist); err != nil {
			return nil, err
		}
		n.Score = float32(1 - dist)
		out = append(out, n)
	}
	return out, s.db.queryErr("vector search", rows.Err())
}

// Embeddings counts the vectors of the store's generation and returns
// their dimension (0 when it has none).
func (s *Store) Embeddings(ctx context.Context) (n int, dim int, err error) {
	err = s.db.pool.QueryRow(ctx, `SELECT count(*), coalesce(max(e.dim), 0) FROM embeddings e
		JOIN chunks c ON c.id = e.chunk_id JOIN gen_files g ON g.file_id = c.file_id AND g.gen_id = $1`, s.gen).Scan(&n, &dim)
	return n, dim, s.db.queryErr("count embeddings", err)
}

// EmbeddingsOf returns the stored vectors of some chunks (for measuring
// recall against the index's own data).
func (s *Store) EmbeddingsOf(ctx context.Context, ids []int64) (map[int64][]float32, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT chunk_id, embedding FROM embeddings WHERE chunk_id = ANY($1)`, ids)
	if err != nil {
		return nil, s.db.queryErr("read embeddings", err)
	}
	defer rows.Close()
	out := map[int64][]float32{}
	for rows.Next() {
		var id int64
		var v pgvector.Vector
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		out[id] = v.Slice()
	}
	return out, s.db.queryErr("read embeddings", rows.Err())
}
