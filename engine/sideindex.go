package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
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

// SideIndexes are the indexes built with every generation: BM25 text and
// chunk vectors (unless embedder is "none"). dir is where an external
// embedder's cache lives; warn receives non-fatal problems. A writer that
// keeps embeddings itself (the PostgreSQL store's PutEmbeddings) gets the
// vectors too.
func SideIndexes(ctx context.Context, w SideWriter, dir string, embedder Embedding, warn func(string)) ([]indexer.Sink, error) {
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
