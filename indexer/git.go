package indexer

import (
	"context"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// BlobHash is graph.BlobHash.
func BlobHash(content []byte) string { return graph.BlobHash(content) }

// gitTree is the revision of a worktree and the blob of every tracked file.
type gitTree = gitrepo.Tree

// treeCache keeps the last tree read: a commit's tree never changes, and a
// long-running process (a watcher) re-indexes at the same HEAD many times.
// Callers only read the cached map.
var treeCache struct {
	sync.Mutex
	last cachedTree
}

type cachedTree struct {
	key  string
	tree gitTree
}

// readGitTree asks git for HEAD and its tree. A directory that is not a git
// worktree (or a machine without git) yields an empty result, not an error:
// files are then cited by content hash.
func readGitTree(ctx context.Context, root string) gitTree {
	rev, prefix, err := gitrepo.TreeKey(ctx, root)
	if err != nil {
		return gitTree{}
	}
	key := root + "\x00" + rev + "\x00" + prefix
	treeCache.Lock()
	c := treeCache.last
	treeCache.Unlock()
	if c.key == key {
		return c.tree
	}
	t, err := gitrepo.ReadTreeAt(ctx, root, rev, prefix)
	if err != nil {
		return gitTree{}
	}
	treeCache.Lock()
	treeCache.last = cachedTree{key: key, tree: t}
	treeCache.Unlock()
	return t
}
