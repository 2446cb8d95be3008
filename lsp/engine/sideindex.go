package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// SideIndexes are the indexes built with every generation: BM25 text and
// chunk vectors (unless embedder is "none"). warn receives non-fatal
// problems.
func SideIndexes(ctx context.Context, w *embedded.Writer, dir, embedder string, warn func(string)) ([]indexer.Sink, error) {
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
	if embedder == "none" {
		return sinks, nil
	}
	vo := vector.Options{Embedder: e, Live: live, Warn: warn}
	if e != nil {
		cache, err := vector.OpenCache(filepath.Join(dir, "embcache.db"))
		if err != nil {
			return nil, err
		}
		vo.Cache = cache
	}
	return append(sinks, vector.NewBuilder(prev, vo)), nil
}

// ChooseEmbedder maps an embedder name (--embedder, CAIRN_EMBEDDER) to an
// Embedder; nil is the built-in one (also for "none").
func ChooseEmbedder(name string) (embed.Embedder, error) {
	switch {
	case name == "" || name == "builtin" || name == "none":
		return nil, nil
	case name == "http":
		o, ok := embed.HTTPFromEnv()
		if !ok {
			return nil, Errorf(InvalidArgument, "embedder http needs CAIRN_EMBED_URL (and CAIRN_EMBED_MODEL, CAIRN_EMBED_KEY)")
		}
		return embed.NewHTTP(o)
	case strings.HasPrefix(name, "onnx:"):
		return embed.NewONNX(strings.TrimPrefix(name, "onnx:"))
	}
	return nil, Errorf(InvalidArgument, "%s", fmt.Sprintf("unknown embedder %q (want builtin, http, onnx:DIR or none)", name))
}
