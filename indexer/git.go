package indexer

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
)

// BlobHash is graph.BlobHash.
func BlobHash(content []byte) string { return graph.BlobHash(content) }

// gitTree is the revision of a worktree and the blob of every tracked file.
type gitTree struct {
	Revision string
	Blobs    map[string]string // path → blob SHA-1
}

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
	var t gitTree
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--show-prefix", "HEAD").Output()
	if err != nil {
		return t
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 0 {
		return t
	}
	rev := lines[len(lines)-1]
	prefix := ""
	if len(lines) == 2 {
		prefix = lines[0]
	}
	key := root + "\x00" + rev + "\x00" + prefix
	treeCache.Lock()
	c := treeCache.last
	treeCache.Unlock()
	if c.key == key {
		return c.tree
	}
	out, err = exec.CommandContext(ctx, "git", "-C", root, "ls-tree", "-r", "-z", "--full-tree", rev).Output()
	if err != nil {
		return t
	}
	t.Revision = rev
	t.Blobs = map[string]string{}
	defer func() {
		treeCache.Lock()
		treeCache.last = cachedTree{key: key, tree: t}
		treeCache.Unlock()
	}()
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> blob <sha>\t<path>"
		tab := bytes.IndexByte(rec, '\t')
		if tab < 0 {
			continue
		}
		meta := strings.Fields(string(rec[:tab]))
		if len(meta) != 3 || meta[1] != "blob" {
			continue
		}
		p := string(rec[tab+1:])
		if prefix != "" {
			var ok bool
			if p, ok = strings.CutPrefix(p, prefix); !ok {
				continue
			}
		}
		t.Blobs[p] = meta[2]
	}
	return t
}
