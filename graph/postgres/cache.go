package postgres

import (
	"context"
	"sync"

	"github.com/cairn-dev/cairn/graph"
)

// readCache keeps rows of a committed generation that searches ask for
// again and again: chunk references by id and by file, and centrality
// ranks. A generation never changes once committed, so an entry never goes
// stale; a Store reads one generation, and its cache dies with it. Each
// map is bounded (cleared when full), so a long-lived server holds at most
// a few tens of megabytes. A writer's view has no cache: it sees its own
// uncommitted rows change.
type readCache struct {
	mu     sync.RWMutex
	chunks map[int64]chunkEntry
	files  map[string][]graph.ChunkRef
	ranks  map[graph.SymbolID]float64 // absent: -1
}

type chunkEntry struct {
	ref  graph.ChunkRef
	live bool // false: not in the generation
}

// cacheBound is the most entries a map of the cache holds.
const cacheBound = 1 << 18

func newReadCache() *readCache {
	return &readCache{chunks: map[int64]chunkEntry{}, files: map[string][]graph.ChunkRef{}, ranks: map[graph.SymbolID]float64{}}
}

func bound[K comparable, V any](m map[K]V, adding int) {
	if len(m)+adding > cacheBound {
		clear(m)
	}
}

// chunksByID answers from the cache what it can and asks query for the
// rest, remembering ids the generation does not hold too. The result
// follows the order of ids.
func (c *readCache) chunksByID(ctx context.Context, ids []int64, query func(context.Context, []int64) ([]graph.ChunkRef, error)) ([]graph.ChunkRef, error) {
	out := make([]graph.ChunkRef, 0, len(ids))
	var missing []int64
	c.mu.RLock()
	for _, id := range ids {
		if e, ok := c.chunks[id]; !ok {
			missing = append(missing, id)
		} else if e.live {
			out = append(out, e.ref)
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := query(ctx, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	bound(c.chunks, len(missing))
	for _, id := range missing {
		c.chunks[id] = chunkEntry{}
	}
	for _, r := range got {
		c.chunks[r.ID] = chunkEntry{r, true}
	}
	out = out[:0]
	for _, id := range ids {
		if e := c.chunks[id]; e.live {
			out = append(out, e.ref)
		}
	}
	c.mu.Unlock()
	return out, nil
}

func (c *readCache) chunksInFile(ctx context.Context, path string, query func(context.Context, string) ([]graph.ChunkRef, error)) ([]graph.ChunkRef, error) {
	c.mu.RLock()
	cs, ok := c.files[path]
	c.mu.RUnlock()
	if ok {
		return cs, nil
	}
	cs, err := query(ctx, path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	bound(c.files, 1)
	c.files[path] = cs
	c.mu.Unlock()
	return cs, nil
}

func (c *readCache) rankOf(ctx context.Context, ids []graph.SymbolID, query func(context.Context, []graph.SymbolID) (map[graph.SymbolID]float64, error)) (map[graph.SymbolID]float64, error) {
	out := map[graph.SymbolID]float64{}
	var missing []graph.SymbolID
	c.mu.RLock()
	for _, id := range ids {
		if r, ok := c.ranks[id]; !ok {
			missing = append(missing, id)
		} else if r >= 0 {
			out[id] = r
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := query(ctx, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	bound(c.ranks, len(missing))
	for _, id := range missing {
		r, ok := got[id]
		if !ok {
			r = -1
		} else {
			out[id] = r
		}
		c.ranks[id] = r
	}
	c.mu.Unlock()
	return out, nil
}
