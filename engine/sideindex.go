package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/treesitter"
	"github.com/cairn-dev/cairn/internal/repofs"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/history"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// SideWriter is the writer whose generation side indexes are built with:
// the embedded store's or the PostgreSQL store's.
type SideWriter interface {
	graph.Writer
	Fresh() (bool, string)
	// Previous describes the generation being extended, cheaply.
	Previous() graph.Meta
}

// Both side indexes finish in a phase of their own in the run's progress.
var (
	_ indexer.PhasedSink = (*bm25.Builder)(nil)
	_ indexer.PhasedSink = (*vector.Builder)(nil)
)

// DefaultHistoryCommits is how many commits a history index keeps unless
// told otherwise.
const DefaultHistoryCommits = history.DefaultMaxCommits

// History chooses the commit history index of a generation (package
// retrieval/history): the worktree whose git history is read, and the most
// commits kept. No Root, or MaxCommits negative: none.
type History struct {
	// Root is the worktree (its git history is read).
	Root       string
	MaxCommits int // 0: history.DefaultMaxCommits
}

// SideIndexes are the indexes built with every generation: BM25 text,
// chunk vectors (unless embedder is "none") and the commit history (when
// hist names a root in git). dir is where an external embedder's cache
// lives; warn receives non-fatal problems. A writer that keeps embeddings
// itself (the PostgreSQL store's PutEmbeddings) gets the vectors too.
func SideIndexes(ctx context.Context, w SideWriter, dir string, embedder Embedding, hist History, warn func(string)) ([]indexer.Sink, error) {
	var prev map[string]string
	if fresh, _ := w.Fresh(); !fresh {
		// The generation extended, as the writer read it when it opened
		// (View().Meta would count every table: a cost per watcher batch).
		prev = w.Previous().Extra
	}
	live := func(ctx context.Context, ids []int64) (map[int64]bool, error) {
		refs, err := w.View().ChunksByID(ctx, ids)
		out := make(map[int64]bool, len(refs))
		for _, r := range refs {
			out[r.ID] = true
		}
		return out, err
	}
	sinks := []indexer.Sink{bm25.NewBuilder(bm25.Segments(prev), live)}
	if hist.Root != "" && hist.MaxCommits >= 0 {
		sinks = append(sinks, history.NewBuilder(hist.Root, prev, history.Options{MaxCommits: hist.MaxCommits}))
	}
	e, err := ChooseEmbedder(embedder)
	if err != nil {
		return nil, err
	}
	if embedder.Name == "none" {
		return sinks, nil
	}
	vo := vector.Options{Embedder: e, Live: live, Warn: warn}
	if p, ok := w.(interface {
		PutEmbeddings(ctx context.Context, model string, ids []int64, vecs [][]float32) error
	}); ok {
		vo.Publish = p.PutEmbeddings
	}
	if e != nil {
		cache, err := vector.OpenCache(filepath.Join(dir, "embcache.db"))
		if err != nil {
			return nil, err
		}
		vo.Cache = cache
	}
	return append(sinks, vector.NewBuilder(prev, vo)), nil
}

// Embedding chooses the embedder of chunks and queries.
type Embedding struct {
	// Name is "" or "builtin", "http", "onnx:DIR" or "none" (--embedder,
	// CAIRN_EMBEDDER).
	Name string
	// HTTP configures the http embedder: its server, model and key (cmd
	// fills it from CAIRN_EMBED_URL, _MODEL, _KEY or OPENAI_API_KEY, and
	// _DIMENSIONS).
	HTTP embed.HTTPOptions
}

// ChooseEmbedder maps an embedding choice to an Embedder; nil is the
// built-in one (also for "none").
func ChooseEmbedder(c Embedding) (embed.Embedder, error) {
	name := c.Name
	switch {
	case name == "" || name == "builtin" || name == "none":
		return nil, nil
	case name == "http":
		if c.HTTP.URL == "" || c.HTTP.Model == "" {
			return nil, Errorf(InvalidArgument, "embedder http needs a server URL and a model (CAIRN_EMBED_URL and CAIRN_EMBED_MODEL; CAIRN_EMBED_KEY)")
		}
		return embed.NewHTTP(c.HTTP)
	case strings.HasPrefix(name, "onnx:"):
		return embed.NewONNX(strings.TrimPrefix(name, "onnx:"))
	}
	return nil, Errorf(InvalidArgument, "%s", fmt.Sprintf("unknown embedder %q (want builtin, http, onnx:DIR or none)", name))
}

// RebuildSideIndexes rebuilds side indexes of the generation w extends from
// the facts the store holds — the text index (text) and the vectors with
// their model (vectors) — and the commit history from git (when hist names
// a root), without reading or parsing a file, and commits
// them as the next generation, the facts unchanged: how `cairn index`
// repairs a damaged text or vector segment. w is finished either way.
//
// Chunk texts are not stored: each file is read from root and its chunks'
// texts cut from it again (treesitter.FillChunkTexts, checked against the
// stored hashes). A file changed since it was indexed is left out — the
// next index run re-reads it — and a text that cannot be cut again fails
// the rebuild (the caller then rebuilds everything).
func RebuildSideIndexes(ctx context.Context, w SideWriter, root, dir string, embedder Embedding, text, vectors bool, hist History, warn func(string)) (err error) {
	committed := false
	var sinks []indexer.Sink
	defer func() {
		if !committed {
			for _, s := range sinks {
				s.Abort()
			}
			w.Abort()
		}
	}()
	live := func(ctx context.Context, ids []int64) (map[int64]bool, error) {
		refs, err := w.View().ChunksByID(ctx, ids)
		out := make(map[int64]bool, len(refs))
		for _, r := range refs {
			out[r.ID] = true
		}
		return out, err
	}
	if text {
		sinks = append(sinks, bm25.NewBuilder(nil, live))
	}
	if hist.Root != "" && hist.MaxCommits >= 0 {
		sinks = append(sinks, history.NewBuilder(hist.Root, nil, history.Options{MaxCommits: hist.MaxCommits}))
	}
	if vectors && embedder.Name != "none" {
		e, err := ChooseEmbedder(embedder)
		if err != nil {
			return err
		}
		vo := vector.Options{Embedder: e, Live: live, Warn: warn}
		if e != nil {
			cache, err := vector.OpenCache(filepath.Join(dir, "embcache.db"))
			if err != nil {
				return err
			}
			vo.Cache = cache
		}
		sinks = append(sinks, vector.NewBuilder(nil, vo))
	}
	for _, s := range sinks {
		if err := s.Begin(ctx, w.Dir(), true); err != nil {
			return fmt.Errorf("rebuild side index: %w", err)
		}
	}
	v := w.View()
	files, err := v.Files(ctx)
	if err != nil {
		return err
	}
	repo := repofs.New(root)
	for _, f := range files {
		content, err := repo.ReadFile(f.Path)
		if err != nil || graph.BlobHash(content) != f.Hash {
			continue // changed or gone since: the index run after this re-reads it
		}
		ff, err := v.FileFacts(ctx, f.Path)
		if err != nil {
			return err
		}
		if !treesitter.FillChunkTexts(content, ff.Chunks) {
			return fmt.Errorf("rebuild side index: the chunks of %s cannot be cut from its content again", f.Path)
		}
		refs, err := v.ChunksInFile(ctx, f.Path)
		if err != nil {
			return err
		}
		if len(refs) != len(ff.Chunks) {
			return fmt.Errorf("rebuild side index: %s has %d chunks and %d chunk ids", f.Path, len(ff.Chunks), len(refs))
		}
		ids := make([]int64, len(refs))
		for i, r := range refs {
			ids[i] = r.ID
		}
		for _, s := range sinks {
			if err := s.Put(ctx, ff, ids); err != nil {
				return fmt.Errorf("rebuild side index: %w", err)
			}
		}
	}
	m := w.Previous()
	m.IndexedAt = time.Now()
	prevExtra := m.Extra
	m.Extra = map[string]string{}
	// the history index is no index of the facts: unless rebuilt (hist),
	// it stays as it was
	if hist.Root == "" {
		for _, k := range history.Keys {
			if v, ok := prevExtra[k]; ok {
				m.Extra[k] = v
			}
		}
	}
	for _, s := range sinks {
		extra, err := s.Finish(ctx)
		if err != nil {
			return fmt.Errorf("rebuild side index: %w", err)
		}
		maps.Copy(m.Extra, extra)
	}
	if err := w.Commit(ctx, m); err != nil {
		return err
	}
	committed = true
	return nil
}

// minTrainChunks is the fewest chunks VectorsDue trains the built-in
// model again on.
const minTrainChunks = 20

// VectorsDue reports whether the generation described by m has no
// vectors because the built-in model had too little text to train on
// when it was last tried, and the repository — now chunks chunks — has
// since grown to at least twice that: an incremental run cannot train
// (it does not read the whole repository), so `cairn index` rebuilds the
// vectors from the stored facts (RebuildSideIndexes). Twice: a
// repository that stays small is not read again by every run.
func VectorsDue(m graph.Meta, chunks int, embedder Embedding) bool {
	if (embedder.Name != "" && embedder.Name != "builtin") || m.Extra[vector.MetaModel] != "" {
		return false
	}
	v, ok := m.Extra[vector.MetaUntrained]
	if !ok {
		return false
	}
	tried, err := strconv.Atoi(v)
	if err != nil {
		return false
	}
	return chunks >= max(2*tried, minTrainChunks)
}
