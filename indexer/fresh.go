package indexer

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/cairn-dev/cairn/graph"
)

// Freshness tells whether indexed files still match the worktree. Answers
// mark every location in a file that changed since it was indexed as stale.
type Freshness struct {
	root string
	r    graph.Reader
	mu   sync.Mutex
	memo map[string]bool
}

// NewFreshness checks files under root against the index r.
func NewFreshness(root string, r graph.Reader) *Freshness {
	return &Freshness{root: root, r: r, memo: map[string]bool{}}
}

// Stale reports whether path changed (or vanished) since it was indexed.
// An unchanged size and mtime means fresh; otherwise the content hash decides.
func (f *Freshness) Stale(ctx context.Context, path string) bool {
	f.mu.Lock()
	v, ok := f.memo[path]
	f.mu.Unlock()
	if ok {
		return v
	}
	v = f.check(ctx, path)
	f.mu.Lock()
	f.memo[path] = v
	f.mu.Unlock()
	return v
}

func (f *Freshness) check(ctx context.Context, path string) bool {
	file, err := f.r.File(ctx, path)
	if err != nil {
		return true
	}
	abs := filepath.Join(f.root, filepath.FromSlash(path))
	st, err := os.Stat(abs)
	if err != nil {
		return true
	}
	if st.Size() == file.Size && st.ModTime().UnixNano() == file.ModTime {
		return false
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return true
	}
	return BlobHash(b) != file.Hash
}
