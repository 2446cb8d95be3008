package engine

import (
	"context"
	"hash/fnv"
	"maps"
	"slices"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

// cachingReader answers the queries a server repeats on every request from
// memory, for the life of one opened generation: the file list (every
// search and every pack reads it whole), single files (citations) and
// definitions by id (every hop of a traversal). Results are copies, so
// callers may modify them.
type cachingReader struct {
	graph.Reader

	// meta is the generation's metadata, read once when the handle opened
	// (the embedded store's Meta counts rows: tens of milliseconds on a
	// large index, which impact and diff analyses asked for again)
	meta *graph.Meta

	filesMu sync.Mutex
	files   []graph.File
	byPath  map[string]int
	one     map[string]graph.File // single files asked for before the list loaded
	cats    map[string]graph.FileCategory

	symMu sync.Mutex
	syms  map[graph.SymbolID][]graph.Symbol

	chunkMu  sync.Mutex
	inFile   map[string][]graph.ChunkRef
	byID     map[int64]graph.ChunkRef // live chunks
	dead     map[int64]bool           // ids asked for that are not live
	rankMu   sync.Mutex
	ranks    map[graph.SymbolID]float64
	unranked map[graph.SymbolID]bool
}

// maxCachedSymbols bounds the definitions cache (it restarts when full).
const maxCachedSymbols = 200000

func newCachingReader(r graph.Reader) *cachingReader {
	return &cachingReader{Reader: r, syms: map[graph.SymbolID][]graph.Symbol{},
		inFile: map[string][]graph.ChunkRef{}, byID: map[int64]graph.ChunkRef{}, dead: map[int64]bool{},
		ranks: map[graph.SymbolID]float64{}, unranked: map[graph.SymbolID]bool{}}
}

// Meta returns the generation's metadata as read when the handle opened.
func (c *cachingReader) Meta(ctx context.Context) (graph.Meta, error) {
	if c.meta != nil {
		return *c.meta, nil
	}
	return c.Reader.Meta(ctx)
}

func (c *cachingReader) load(ctx context.Context) error {
	c.filesMu.Lock()
	defer c.filesMu.Unlock()
	if c.files != nil {
		return nil
	}
	fs, err := c.Reader.Files(ctx)
	if err != nil {
		return err
	}
	c.byPath = make(map[string]int, len(fs))
	for i, f := range fs {
		c.byPath[f.Path] = i
	}
	if fs == nil {
		fs = []graph.File{}
	}
	c.files = fs
	return nil
}

func (c *cachingReader) Files(ctx context.Context) ([]graph.File, error) {
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	return slices.Clone(c.files), nil
}

// File answers from the whole list once something loaded it (a search, a
// pack); until then it asks the store for the one file and keeps the
// answer, so that a one-shot question citing a few hundred files (impact,
// trace) does not read every file's row first.
func (c *cachingReader) File(ctx context.Context, path string) (graph.File, error) {
	c.filesMu.Lock()
	if c.files != nil {
		i, ok := c.byPath[path]
		c.filesMu.Unlock()
		if ok {
			return c.files[i], nil
		}
		return c.Reader.File(ctx, path) // not indexed: the store's error
	}
	f, ok := c.one[path]
	c.filesMu.Unlock()
	if ok {
		return f, nil
	}
	f, err := c.Reader.File(ctx, path)
	if err != nil {
		return f, err
	}
	c.filesMu.Lock()
	if c.one == nil {
		c.one = map[string]graph.File{}
	}
	if len(c.one) < maxCachedSymbols {
		c.one[path] = f
	}
	c.filesMu.Unlock()
	return f, nil
}

// SkipsOf lets the store select one reason's skipped paths itself
// (graph.SkipsOf; search asks for the generated ones).
func (c *cachingReader) SkipsOf(ctx context.Context, reason graph.SkipReason) ([]graph.Skip, error) {
	return graph.SkipsOf(ctx, c.Reader, reason)
}

var _ graph.SkipReasonReader = (*cachingReader)(nil)

// PathCategories answers from the file list once something loaded it,
// else reads the paths and categories alone (graph.PathCategories) once:
// a one-shot search needs no more of the files.
func (c *cachingReader) PathCategories(ctx context.Context) (map[string]graph.FileCategory, error) {
	c.filesMu.Lock()
	defer c.filesMu.Unlock()
	if c.cats != nil {
		return maps.Clone(c.cats), nil
	}
	if c.files != nil {
		c.cats = make(map[string]graph.FileCategory, len(c.files))
		for _, f := range c.files {
			c.cats[f.Path] = f.Category
		}
		return maps.Clone(c.cats), nil
	}
	cats, err := graph.PathCategories(ctx, c.Reader)
	if err != nil {
		return nil, err
	}
	c.cats = cats
	return maps.Clone(cats), nil
}

// FileImports reads a file's imports alone where the store can
// (graph.FileImports).
func (c *cachingReader) FileImports(ctx context.Context, path string) ([]graph.Import, error) {
	return graph.FileImports(ctx, c.Reader, path)
}

// SymbolsByIDs answers what the cache holds and asks the store for the
// rest at once (graph.SymbolsByIDs: one batch where the store can), so
// that wrapping a store keeps its batch reads (a trace asks for the
// definitions of every call site's callers in a few batches).
func (c *cachingReader) SymbolsByIDs(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID][]graph.Symbol, error) {
	out := make(map[graph.SymbolID][]graph.Symbol, len(ids))
	var miss []graph.SymbolID
	c.symMu.Lock()
	for _, id := range ids {
		if s, ok := c.syms[id]; ok {
			out[id] = slices.Clone(s)
		} else {
			miss = append(miss, id)
		}
	}
	c.symMu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	got, err := graph.SymbolsByIDs(ctx, c.Reader, miss)
	if err != nil {
		return nil, err
	}
	c.symMu.Lock()
	if len(c.syms)+len(got) > maxCachedSymbols {
		clear(c.syms)
	}
	for id, s := range got {
		c.syms[id] = s
		out[id] = slices.Clone(s)
	}
	c.symMu.Unlock()
	return out, nil
}

func (c *cachingReader) SymbolsByID(ctx context.Context, id graph.SymbolID) ([]graph.Symbol, error) {
	c.symMu.Lock()
	s, ok := c.syms[id]
	c.symMu.Unlock()
	if ok {
		return slices.Clone(s), nil
	}
	s, err := c.Reader.SymbolsByID(ctx, id)
	if err != nil {
		return nil, err
	}
	c.symMu.Lock()
	if len(c.syms) >= maxCachedSymbols {
		clear(c.syms)
	}
	c.syms[id] = s
	c.symMu.Unlock()
	return slices.Clone(s), nil
}

// maxCachedChunks bounds the chunk caches (they restart when full).
const maxCachedChunks = 500000

func (c *cachingReader) ChunksInFile(ctx context.Context, path string) ([]graph.ChunkRef, error) {
	c.chunkMu.Lock()
	cs, ok := c.inFile[path]
	c.chunkMu.Unlock()
	if ok {
		return slices.Clone(cs), nil
	}
	cs, err := c.Reader.ChunksInFile(ctx, path)
	if err != nil {
		return nil, err
	}
	c.chunkMu.Lock()
	if len(c.inFile) >= maxCachedChunks/10 {
		clear(c.inFile)
	}
	c.inFile[path] = cs
	c.chunkMu.Unlock()
	return slices.Clone(cs), nil
}

func (c *cachingReader) ChunksByID(ctx context.Context, ids []int64) ([]graph.ChunkRef, error) {
	var out []graph.ChunkRef
	var miss []int64
	c.chunkMu.Lock()
	for _, id := range ids {
		if r, ok := c.byID[id]; ok {
			out = append(out, r)
		} else if !c.dead[id] {
			miss = append(miss, id)
		}
	}
	c.chunkMu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	got, err := c.Reader.ChunksByID(ctx, miss)
	if err != nil {
		return nil, err
	}
	c.chunkMu.Lock()
	if len(c.byID)+len(c.dead) >= maxCachedChunks {
		clear(c.byID)
		clear(c.dead)
	}
	live := make(map[int64]bool, len(got))
	for _, r := range got {
		c.byID[r.ID] = r
		live[r.ID] = true
	}
	for _, id := range miss {
		if !live[id] {
			c.dead[id] = true
		}
	}
	c.chunkMu.Unlock()
	return append(out, got...), nil
}

func (c *cachingReader) Ranks(ctx context.Context, ids []graph.SymbolID) (map[graph.SymbolID]float64, error) {
	out := make(map[graph.SymbolID]float64, len(ids))
	var miss []graph.SymbolID
	c.rankMu.Lock()
	for _, id := range ids {
		if r, ok := c.ranks[id]; ok {
			out[id] = r
		} else if !c.unranked[id] {
			miss = append(miss, id)
		}
	}
	c.rankMu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	got, err := c.Reader.Ranks(ctx, miss)
	if err != nil {
		return nil, err
	}
	c.rankMu.Lock()
	if len(c.ranks)+len(c.unranked) >= maxCachedSymbols {
		clear(c.ranks)
		clear(c.unranked)
	}
	for _, id := range miss {
		if r, ok := got[id]; ok {
			c.ranks[id], out[id] = r, r
		} else {
			c.unranked[id] = true
		}
	}
	c.rankMu.Unlock()
	return out, nil
}

// memo holds values computed once per generation (Snapshot.Memo).
type memo struct {
	mu sync.Mutex
	m  map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// maxMemo bounds the memoised values of one generation.
const maxMemo = 256

// Memo returns the value fn computes for key, computing it once per
// generation (concurrent callers wait for the first). Errors are not kept.
func (s *Snapshot) Memo(key string, fn func() (any, error)) (any, error) {
	m := &s.h.memo
	m.mu.Lock()
	if m.m == nil || len(m.m) >= maxMemo {
		m.m = map[string]*memoEntry{}
	}
	e, ok := m.m[key]
	if !ok {
		e = &memoEntry{}
		m.m[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = fn() })
	if e.err != nil {
		m.mu.Lock()
		if m.m[key] == e {
			delete(m.m, key)
		}
		m.mu.Unlock()
	}
	return e.v, e.err
}

// MaxCentral is how many central definitions Central ranks.
const MaxCentral = 1000

type central struct {
	syms  []graph.Symbol
	ranks map[graph.SymbolID]float64
}

// Central returns the MaxCentral most central definitions under prefix
// (graph.Central), ranked once per generation.
func (s *Snapshot) Central(ctx context.Context, prefix string) ([]graph.Symbol, map[graph.SymbolID]float64, error) {
	v, err := s.Memo("central\x00"+prefix, func() (any, error) {
		syms, ranks, err := graph.Central(ctx, s.R, prefix, MaxCentral)
		return central{syms, ranks}, err
	})
	if err != nil {
		return nil, nil, err
	}
	c := v.(central)
	return slices.Clone(c.syms), c.ranks, nil
}

// countCache remembers token counts (a pure function of the text and the
// encoding) across requests and generations: packs for related tasks
// measure the same spans again and again.
type countCache struct {
	mu sync.Mutex
	m  map[countKey]int
}

type countKey struct {
	h   uint64
	len int
}

// maxCounts bounds a count cache (it restarts when full).
const maxCounts = 100000

var (
	countCachesMu sync.Mutex
	countCaches   = map[string]*countCache{}
)

// cachingTokenizer counts through its encoding's shared countCache; each
// request gets its own (the tokenizer itself is not shared).
type cachingTokenizer struct {
	contextpack.Tokenizer
	c *countCache
}

// cachedTokenizer returns a tokenizer for the encoding whose counts are
// remembered.
func cachedTokenizer(name string) (contextpack.Tokenizer, error) {
	tok, err := contextpack.NewTokenizer(name)
	if err != nil {
		return nil, err
	}
	countCachesMu.Lock()
	defer countCachesMu.Unlock()
	c, ok := countCaches[tok.Name()]
	if !ok {
		c = &countCache{m: map[countKey]int{}}
		countCaches[tok.Name()] = c
	}
	return &cachingTokenizer{Tokenizer: tok, c: c}, nil
}

func (t *cachingTokenizer) Count(text string) int {
	if len(text) < 64 {
		return t.Tokenizer.Count(text)
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	k := countKey{h.Sum64(), len(text)}
	c := t.c
	c.mu.Lock()
	n, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = t.Tokenizer.Count(text)
	c.mu.Lock()
	if len(c.m) >= maxCounts {
		clear(c.m)
	}
	c.m[k] = n
	c.mu.Unlock()
	return n
}
