package fuse

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// Source is what an Opened engine reads: one generation's facts and the
// directory of its side indexes (graph/store.Store is one).
type Source interface {
	graph.Reader
	SideDir(ctx context.Context) (string, error)
	Close() error
}

// ANNSource is a Source with a nearest-neighbour index of its own (the
// shared store's HNSW index in PostgreSQL); nil ANN: none.
type ANNSource interface {
	ANN() store.ANN
}

// ANNMode says when vector search goes to the store's ANN index instead of
// scanning the generation's vectors.
type ANNMode int

const (
	// ANNAuto: past ANNThreshold vectors.
	ANNAuto ANNMode = iota
	// ANNAlways: whenever the store has an ANN index.
	ANNAlways
	// ANNNever: always exact.
	ANNNever
)

// OpenOptions configure Open.
type OpenOptions struct {
	// QueryEmbedder embeds queries; needed only for vectors made by an
	// external embedder.
	QueryEmbedder embed.Embedder
	// TextOnly leaves the vectors unloaded, for callers that only need the
	// text index (a trace asks which files hold a key): loading every
	// vector costs a one-shot command tens of milliseconds.
	TextOnly bool
	// ANN chooses between exact vector search and the store's ANN index.
	ANN ANNMode
}

// Opened is an engine over one generation of a store, with what it holds
// open.
type Opened struct {
	*Engine
	// Store is the source the engine reads (Engine.R may be a cache over it).
	Store Source
	Meta  graph.Meta
	// Warnings are side indexes that could not be used (the engine runs
	// without them).
	Warnings []string
	text     *bm25.Index
}

// Close releases the store and the side indexes.
func (o *Opened) Close() {
	if o.text != nil {
		o.text.Close()
	}
	o.Store.Close()
}

// Open opens an engine over src's generation with its text and vector
// indexes (found in src.SideDir). Over the shared store, whose side indexes
// are the very files the indexer built (fetched once per machine), it
// answers as over the embedded store. Vector search is exact, up to
// ANNThreshold vectors; beyond that (or with ANNAlways) it uses the
// store's ANN index when it has one (o.ANN). On failure src is left open.
func Open(ctx context.Context, src Source, o OpenOptions) (*Opened, error) {
	m, err := src.Meta(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := src.SideDir(ctx)
	if err != nil {
		return nil, err
	}
	op := &Opened{Engine: &Engine{R: src}, Store: src, Meta: m}
	if err := op.openSide(dir, o.QueryEmbedder, !o.TextOnly); err != nil {
		return nil, err
	}
	as, ok := src.(ANNSource)
	if vx, isVx := op.Engine.Vectors.(*vector.Index); isVx && ok && as.ANN() != nil && o.ANN != ANNNever {
		if o.ANN == ANNAlways || vx.Len() > ANNThreshold {
			op.Engine.Vectors = &annVectors{ann: as.ANN(), embedder: vx.Embedder()}
		}
	}
	return op, nil
}

// ANNThreshold is the number of vectors past which a store's ANN index is
// searched instead of every vector (see package vector on where exact
// search stops paying).
const ANNThreshold = 300000

// annVectors searches chunk embeddings through a store's ANN index.
type annVectors struct {
	ann      store.ANN
	embedder embed.Embedder
}

func (p *annVectors) SearchText(ctx context.Context, text string, k int) ([]vector.Scored, error) {
	vs, err := p.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	ns, err := p.ann.Nearest(ctx, vs[0], k)
	if err != nil {
		return nil, err
	}
	out := make([]vector.Scored, len(ns))
	for i, n := range ns {
		out[i] = vector.Scored{ChunkID: n.ChunkID, Score: n.Score}
	}
	return out, nil
}

// openSide opens the text and vector indexes in dir.
func (o *Opened) openSide(dir string, queryEmbedder embed.Embedder, vectors bool) error {
	m := o.Meta
	text, err := bm25.Open(dir, m.Extra)
	switch {
	case errors.Is(err, bm25.ErrNoSegments):
		o.Warnings = append(o.Warnings, "this index has no text index; re-index to search text")
	case err != nil:
		return err
	default:
		o.text, o.Engine.Text = text, text
	}
	o.Engine.History = NewHistory(dir, m.Extra)
	if vectors && len(vector.Segments(m.Extra)) > 0 {
		vx, err := vector.Open(dir, m.Extra, queryEmbedder)
		if err != nil {
			o.Warnings = append(o.Warnings, fmt.Sprintf("searching without vectors: %v", err))
		} else {
			o.Engine.Vectors = vx
		}
	}
	return nil
}

// FilesWithTerms lists the files whose text holds any of the terms (whole
// identifiers); it lets a trace read only the files that can matter.
func (o *Opened) FilesWithTerms(ctx context.Context, terms []string) ([]string, error) {
	if o.text == nil {
		return nil, bm25.ErrNoSegments
	}
	const most = 20000
	ids, more, err := o.text.FilesWithTerms(ctx, terms, most)
	if err != nil {
		return nil, err
	}
	if more {
		return nil, fmt.Errorf("more than %d files mention %v", most, terms)
	}
	refs, err := o.Engine.R.ChunksByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	return out, nil
}
