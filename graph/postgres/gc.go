package postgres

import (
	"context"
	"time"
)

// GCOptions tune garbage collection.
type GCOptions struct {
	// Grace is how long a superseded generation is kept for readers that
	// opened it before it was replaced; default 10 minutes.
	Grace time.Duration
}

// GCResult says what a collection removed.
type GCResult struct {
	Generations int
	Files       int64 // file versions no generation refers to any more
	Blobs       int64
}

// GC removes a repository's generations that were superseded more than
// Grace ago or aborted, then the file versions, resolutions and side-index
// blobs nothing refers to any more. Each generation goes in a transaction
// of its own.
func (db *DB) GC(ctx context.Context, repo int64, o GCOptions) (GCResult, error) {
	var res GCResult
	if o.Grace == 0 {
		o.Grace = 10 * time.Minute
	}
	rows, err := db.pool.Query(ctx, `SELECT id FROM generations WHERE repo_id = $1
		AND ((state = 'superseded' AND superseded_at < now() - $2::float8 * interval '1 second') OR state = 'aborted') ORDER BY id`, repo, o.Grace.Seconds())
	if err != nil {
		return res, db.queryErr("find old generations", err)
	}
	var gens []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return res, err
		}
		gens = append(gens, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, db.queryErr("find old generations", err)
	}
	for _, g := range gens {
		n, err := db.dropGeneration(ctx, g)
		if err != nil {
			return res, err
		}
		res.Generations++
		res.Files += n
	}
	tag, err := db.pool.Exec(ctx, `DELETE FROM blobs b WHERE b.created_at < now() - interval '1 hour'
		AND NOT EXISTS (SELECT 1 FROM gen_side_files s WHERE s.hash = b.hash)`)
	if err != nil {
		return res, db.queryErr("collect blobs", err)
	}
	res.Blobs = tag.RowsAffected()
	return res, nil
}

func (db *DB) dropGeneration(ctx context.Context, gen int64) (int64, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, db.queryErr("collect generation", err)
	}
	defer tx.Rollback(ctx)
	for _, q := range []string{
		`DELETE FROM gen_side_files WHERE gen_id = $1`,
		`DELETE FROM ranks WHERE gen_id = $1`,
		`DELETE FROM gen_edges WHERE gen_id = $1`,
		`DELETE FROM gen_skips WHERE gen_id = $1`,
		`CREATE TEMP TABLE gc_gone ON COMMIT DROP AS
			WITH d AS (DELETE FROM gen_files WHERE gen_id = $1 RETURNING file_id, res_id)
			SELECT file_id, res_id FROM d`,
		// File versions: the generation's own, and those its build made.
		`CREATE TEMP TABLE gc_files ON COMMIT DROP AS
			SELECT f.id FROM files f WHERE (f.id IN (SELECT file_id FROM gc_gone) OR f.gen_id = $1)
				AND NOT EXISTS (SELECT 1 FROM gen_files g WHERE g.file_id = f.id)`,
		`CREATE TEMP TABLE gc_res ON COMMIT DROP AS
			SELECT DISTINCT r.res_id FROM gc_gone r WHERE r.res_id IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM gen_files g WHERE g.res_id = r.res_id)`,
		`DELETE FROM embeddings WHERE chunk_id IN (SELECT c.id FROM chunks c WHERE c.file_id IN (SELECT id FROM gc_files))`,
		`DELETE FROM chunks WHERE file_id IN (SELECT id FROM gc_files)`,
		`DELETE FROM symbols WHERE file_id IN (SELECT id FROM gc_files)`,
		`DELETE FROM postings WHERE file_id IN (SELECT id FROM gc_files)`,
		`DELETE FROM occurrences WHERE res_id IN (SELECT res_id FROM gc_res)`,
		`DELETE FROM edges WHERE res_id IN (SELECT res_id FROM gc_res)`,
		`DELETE FROM files WHERE id IN (SELECT id FROM gc_files)`,
		`DELETE FROM generations WHERE id = $1`,
	} {
		args := []any{gen}
		if !containsParam(q) {
			args = nil
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return 0, db.queryErr("collect generation", err)
		}
	}
	var n int64
	tx.QueryRow(ctx, `SELECT count(*) FROM gc_files`).Scan(&n)
	return n, db.queryErr("collect generation", tx.Commit(ctx))
}

func containsParam(q string) bool {
	for i := 0; i+1 < len(q); i++ {
		if q[i] == '$' && q[i+1] == '1' {
			return true
		}
	}
	return false
}
