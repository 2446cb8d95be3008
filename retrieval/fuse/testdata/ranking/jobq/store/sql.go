// Package store holds jobq's stores.
package store

import (
	"context"
	"database/sql"
	"time"

	"example.com/jobq"
)

// SQL keeps jobs in a table jobs(id, kind, payload, attempts, run_at, done).
type SQL struct{ DB *sql.DB }

// Put inserts or replaces a job.
func (s *SQL) Put(ctx context.Context, j jobq.Job) error {
	_, err := s.DB.ExecContext(ctx,
		`INSERT INTO jobs (id, kind, payload, attempts, run_at) VALUES ($1, $2, $3, $4, $5)
		 ON CONFLICT (id) DO UPDATE SET attempts = $4, run_at = $5`,
		j.ID, j.Kind, j.Payload, j.Attempts, j.RunAt)
	return err
}

// Next claims the oldest due job with SELECT … FOR UPDATE SKIP LOCKED.
func (s *SQL) Next(ctx context.Context, now time.Time) (jobq.Job, bool, error) {
	var j jobq.Job
	err := s.DB.QueryRowContext(ctx,
		`SELECT id, kind, payload, attempts, run_at FROM jobs
		 WHERE NOT done AND run_at <= $1 ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED`, now).
		Scan(&j.ID, &j.Kind, &j.Payload, &j.Attempts, &j.RunAt)
	if err == sql.ErrNoRows {
		return j, false, nil
	}
	return j, err == nil, err
}

// Done marks a job finished.
func (s *SQL) Done(ctx context.Context, id string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE jobs SET done = true WHERE id = $1`, id)
	return err
}
