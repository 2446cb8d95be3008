package jobq

import (
	"context"
	"fmt"
	"time"
)

// Handler runs one kind of job.
type Handler func(ctx context.Context, payload []byte) error

// Worker takes jobs from a queue and runs their handlers.
type Worker struct {
	q        *Queue
	handlers map[string]Handler
	poll     time.Duration
}

// NewWorker returns a worker polling q every poll.
func NewWorker(q *Queue, poll time.Duration) *Worker {
	return &Worker{q: q, handlers: map[string]Handler{}, poll: poll}
}

// Handle registers the handler of a job kind.
func (w *Worker) Handle(kind string, h Handler) { w.handlers[kind] = h }

// Run processes jobs until ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	t := time.NewTicker(w.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-t.C:
			if err := w.runDue(ctx, now); err != nil {
				return err
			}
		}
	}
}

// runDue runs every job due at now.
func (w *Worker) runDue(ctx context.Context, now time.Time) error {
	for {
		j, ok, err := w.q.store.Next(ctx, now)
		if err != nil || !ok {
			return err
		}
		if err := w.runOne(ctx, j, now); err != nil {
			return err
		}
	}
}

// runOne runs a job's handler; a failed job is retried later, a job of an
// unknown kind fails for good.
func (w *Worker) runOne(ctx context.Context, j Job, now time.Time) error {
	h, ok := w.handlers[j.Kind]
	if !ok {
		return fmt.Errorf("jobq: no handler for job kind %q", j.Kind)
	}
	if err := h(ctx, j.Payload); err != nil {
		if j.Attempts+1 >= w.q.policy.MaxAttempts {
			return w.q.store.Done(ctx, j.ID)
		}
		return w.q.retryLater(ctx, j, now)
	}
	return w.q.store.Done(ctx, j.ID)
}
