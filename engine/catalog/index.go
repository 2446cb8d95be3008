package catalog

import (
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
)

// IndexView states which index answered and how fresh it is; every answer
// carries one.
type IndexView struct {
	Generation int64  `json:"generation" jsonschema:"index generation that answered"`
	Revision   string `json:"revision" jsonschema:"git commit the index was built from (empty outside git)"`
	Dirty      bool   `json:"dirty" jsonschema:"the worktree had uncommitted changes when indexed"`
	IndexedAt  string `json:"indexed_at"`
	// WorktreeHead is the commit checked out now.
	WorktreeHead string `json:"worktree_head,omitempty"`
	HeadMoved    bool   `json:"head_moved" jsonschema:"another commit is checked out than was indexed: answers may be outdated until re-indexed"`
	StaleResults int    `json:"stale_results" jsonschema:"results in files changed since indexing (each marked stale)"`
}

// ViewIndex is the IndexView of snap (with no stale results counted).
func ViewIndex(snap *engine.Snapshot) IndexView {
	m := snap.Meta
	v := IndexView{Generation: m.Generation, Revision: m.Revision, Dirty: m.Dirty, IndexedAt: m.IndexedAt.UTC().Format(time.RFC3339)}
	v.WorktreeHead = engine.WorktreeHead(snap.Root)
	v.HeadMoved = v.WorktreeHead != "" && m.Revision != "" && v.WorktreeHead != m.Revision
	return v
}

// indexView is ViewIndex with the number of stale results of the page.
func indexView(snap *engine.Snapshot, stale int) IndexView {
	v := ViewIndex(snap)
	v.StaleResults = stale
	return v
}

func staleSymbols(vs []graph.SymbolView) int {
	n := 0
	for _, v := range vs {
		n += b2i(v.Stale)
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
