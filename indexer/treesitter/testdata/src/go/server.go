// Package store keeps tasks.
package store

import (
	"fmt"
	h "net/http"
)

// MaxTasks bounds the queue.
const MaxTasks = 10

var defaultStore = NewStore()

// Task is one unit of work.
type Task struct {
	ID       int
	Artifact string `json:"artifact"`
	Base
}

// Store persists tasks.
type Store interface {
	Load(id int) (*Task, error)
	fmt.Stringer
}

type memStore struct {
	items map[int]*Task
	count int
}

// NewStore returns an empty store.
func NewStore() *memStore {
	return &memStore{items: map[int]*Task{}}
}

// Load finds a task.
func (m *memStore) Load(id int) (*Task, error) {
	t, ok := m.items[id]
	if !ok {
		return nil, fmt.Errorf("no task %d", id)
	}
	return t, nil
}

func (m *memStore) Save(t *Task) {
	m.items[t.ID] = t
	m.count++
	t.Artifact = "done"
	copy := Task{ID: t.ID, Artifact: t.Artifact}
	_ = copy
}

func serve(s Store) error {
	srv := &h.Server{Addr: ":80"}
	task, err := s.Load(1)
	if err != nil {
		return err
	}
	fmt.Println(task.Artifact, srv)
	return h.ListenAndServe(":80", nil)
}
