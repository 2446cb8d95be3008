package indexer

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// Freshness tells whether indexed files still match the worktree. Answers
// mark every location in a file that changed since it was indexed as stale.
type Freshness struct {
	root  string
	files *repofs.FS
	r     graph.Reader
	mu    sync.Mutex
	memo  map[string]bool
}

// NewFreshness checks files under root against the index r.
func NewFreshness(root string, r graph.Reader) *Freshness {
	return &Freshness{root: root, files: repofs.New(root), r: r, memo: map[string]bool{}}
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
	// Lstat: a file swapped for a symlink differs; its content is then read
	// through the repository boundary, which refuses a link out.
	st, err := os.Lstat(filepath.Join(f.root, filepath.FromSlash(path)))
	if err != nil {
		return true
	}
	if st.Mode().IsRegular() && st.Size() == file.Size && st.ModTime().UnixNano() == file.ModTime {
		return false
	}
	b, err := f.files.ReadFile(path)
	if err != nil {
		return true
	}
	return BlobHash(b) != file.Hash
}

// Changes compares the worktree with the generation r holds, the way an
// index run would decide what to read: the paths of files added, deleted, or
// whose size or modification time differ and whose content does too. It
// reads directories and stats files, and hashes only files whose stat
// changed. At most limit paths are returned, with n counting them all; when
// ctx ends first, complete is false and the answer covers what was seen.
func Changes(ctx context.Context, r graph.Reader, opts walk.Options, limit int) (paths []string, n int, complete bool, err error) {
	wk, err := walk.New(opts)
	if err != nil {
		return nil, 0, false, err
	}
	all, complete, err := scan(ctx, r, wk, nil)
	if err != nil {
		return nil, 0, false, err
	}
	return all[:min(limit, len(all))], len(all), complete, nil
}
