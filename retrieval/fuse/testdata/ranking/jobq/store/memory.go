package store

import (
	"context"
	"sort"
	"sync"
	"time"

	"example.com/jobq"
)

// Memory keeps jobs in memory, for tests and single-process use.
type Memory struct {
	mu   sync.Mutex
	jobs map[string]jobq.Job
}

// Put stores a job.
func (m *Memory) Put(_ context.Context, j jobq.Job) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.jobs == nil {
		m.jobs = map[string]jobq.Job{}
	}
	m.jobs[j.ID] = j
	return nil
}

// Next returns the earliest due job.
func (m *Memory) Next(_ context.Context, now time.Time) (jobq.Job, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var due []jobq.Job
	for _, j := range m.jobs {
		if !j.RunAt.After(now) {
			due = append(due, j)
		}
	}
	if len(due) == 0 {
		return jobq.Job{}, false, nil
	}
	sort.Slice(due, func(a, b int) bool { return due[a].RunAt.Before(due[b].RunAt) })
	return due[0], true, nil
}

// Done forgets a job.
func (m *Memory) Done(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.jobs, id)
	return nil
}
