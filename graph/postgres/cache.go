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

// cached returns the values of keys: from m where it holds them, from
// fetch for the others (stored, a key fetch does not return as absent).
func cached[K comparable, V any](c *readCache, m map[K]V, keys []K, absent V, fetch func([]K) (map[K]V, error)) (map[K]V, error) {
	out := make(map[K]V, len(keys))
	var missing []K
	c.mu.RLock()
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		} else {
			missing = append(missing, k)
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := fetch(missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	bound(m, len(missing))
	for _, k := range missing {
		v, ok := got[k]
		if !ok {
			v = absent
		}
		m[k] = v
		out[k] = v
	}
	return out, nil
}

// chunksByID answers from the cache what it can and asks query for the
// rest, remembering ids the generation does not hold too. The result
// follows the order of ids.
func (c *readCache) chunksByID(ctx context.Context, ids []int64, query func(context.Context, []int64) ([]graph.ChunkRef, error)) ([]graph.ChunkRef, error) {
	m, err := cached(c, c.chunks, ids, chunkEntry{}, func(missing []int64) (map[int64]chunkEntry, error) {
		refs, err := query(ctx, missing)
		got := make(map[int64]chunkEntry, len(refs))
		for _, r := range refs {
			got[r.ID] = chunkEntry{r, true}
		}
		return got, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]graph.ChunkRef, 0, len(ids))
	for _, id := range ids {
		if e := m[id]; e.live {
			out = append(out, e.ref)
		}
	}
	return out, nil
}

func (c *readCache) chunksInFile(ctx context.Context, path string, query func(context.Context, string) ([]graph.ChunkRef, error)) ([]graph.ChunkRef, error) {
	m, err := cached(c, c.files, []string{path}, nil, func([]string) (map[string][]graph.ChunkRef, error) {
		cs, err := query(ctx, path)
		return map[string][]graph.ChunkRef{path: cs}, err
	})
	return m[path], err
}

func (c *readCache) rankOf(ctx context.Context, ids []graph.SymbolID, query func(context.Context, []graph.SymbolID) (map[graph.SymbolID]float64, error)) (map[graph.SymbolID]float64, error) {
	m, err := cached(c, c.ranks, ids, -1, func(missing []graph.SymbolID) (map[graph.SymbolID]float64, error) {
		return query(ctx, missing)
	})
	if err != nil {
		return nil, err
	}
	for id, r := range m {
		if r < 0 {
			delete(m, id)
		}
	}
	return m, nil
}
