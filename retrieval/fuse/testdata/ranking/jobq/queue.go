// Package jobq runs jobs from a queue on a pool of workers.
package jobq

import (
	"context"
	"errors"
	"time"
)

// ErrQueueClosed is returned by Enqueue after Close.
var ErrQueueClosed = errors.New("jobq: queue closed")

// Job is one unit of work.
type Job struct {
	ID       string
	Kind     string
	Payload  []byte
	Attempts int
	RunAt    time.Time
}

// Store keeps jobs between runs.
type Store interface {
	Put(ctx context.Context, j Job) error
	// Next claims the next job due at now, or returns ok false.
	Next(ctx context.Context, now time.Time) (j Job, ok bool, err error)
	Done(ctx context.Context, id string) error
}

// Queue hands jobs to workers.
type Queue struct {
	store  Store
	closed bool
	policy Backoff
}

// New returns a queue over store with the default backoff policy.
func New(store Store) *Queue {
	return &Queue{store: store, policy: DefaultBackoff}
}

// Enqueue stores a job to run now.
func (q *Queue) Enqueue(ctx context.Context, kind string, payload []byte) (string, error) {
	if q.closed {
		return "", ErrQueueClosed
	}
	j := Job{ID: newID(), Kind: kind, Payload: payload, RunAt: time.Now()}
	return j.ID, q.store.Put(ctx, j)
}

// Close stops accepting jobs.
func (q *Queue) Close() { q.closed = true }

// retryLater puts a failed job back with its next run time.
func (q *Queue) retryLater(ctx context.Context, j Job, now time.Time) error {
	j.Attempts++
	j.RunAt = now.Add(q.policy.Delay(j.Attempts))
	return q.store.Put(ctx, j)
}
