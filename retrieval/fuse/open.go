package fuse

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// Opened is an engine over an embedded index, with what it holds open.
type Opened struct {
	*Engine
	Store *embedded.Store
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

// OpenEmbedded opens the current generation of the embedded index in dir
// with its text and vector indexes. queryEmbedder is needed only for
// vectors made by an external embedder.
func OpenEmbedded(ctx context.Context, dir string, queryEmbedder embed.Embedder) (*Opened, error) {
	s, err := embedded.Open(dir)
	if err != nil {
		return nil, err
	}
	m, err := s.Meta(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	o := &Opened{Engine: &Engine{R: s}, Store: s, Meta: m}
	text, err := bm25.Open(s.EpochDir(), m.Extra)
	switch {
	case errors.Is(err, bm25.ErrNoSegments):
		o.Warnings = append(o.Warnings, "this index has no text index; re-index to search text")
	case err != nil:
		s.Close()
		return nil, err
	default:
		o.text, o.Engine.Text = text, text
	}
	if len(vector.Segments(m.Extra)) > 0 {
		vx, err := vector.Open(s.EpochDir(), m.Extra, queryEmbedder)
		if err != nil {
			o.Warnings = append(o.Warnings, fmt.Sprintf("searching without vectors: %v", err))
		} else {
			o.Engine.Vectors = vx
		}
	}
	return o, nil
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
	refs, err := o.Store.ChunksByID(ctx, ids)
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
