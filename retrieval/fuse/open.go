package fuse

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/graph/postgres"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// Opened is an engine over an embedded index, with what it holds open.
type Opened struct {
	*Engine
	Store *embedded.Store // nil over the PostgreSQL store
	PG    *postgres.Store // nil over the embedded store
	Meta  graph.Meta
	// Warnings are side indexes that could not be used (the engine runs
	// without them).
	Warnings []string
	text     *bm25.Index
	sideDir  string // where the side indexes are
}

// Close releases the store and the side indexes.
func (o *Opened) Close() {
	if o.text != nil {
		o.text.Close()
	}
	if o.Store != nil {
		o.Store.Close()
	}
	if o.PG != nil {
		o.PG.Close()
	}
}

// OpenEmbedded opens the current generation of the embedded index in dir
// with its text and vector indexes. queryEmbedder is needed only for
// vectors made by an external embedder.
func OpenEmbedded(ctx context.Context, dir string, queryEmbedder embed.Embedder) (*Opened, error) {
	return openEmbedded(ctx, dir, queryEmbedder, true)
}

// OpenEmbeddedText is OpenEmbedded without the vectors, for callers that
// only need the text index (a trace asks which files hold a key): loading
// every vector costs a one-shot command tens of milliseconds.
func OpenEmbeddedText(ctx context.Context, dir string) (*Opened, error) {
	return openEmbedded(ctx, dir, nil, false)
}

func openEmbedded(ctx context.Context, dir string, queryEmbedder embed.Embedder, vectors bool) (*Opened, error) {
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
	if err := o.openSide(s.EpochDir(), queryEmbedder, vectors); err != nil {
		s.Close()
		return nil, err
	}
	return o, nil
}

// OpenPostgres opens an engine over a PostgreSQL store's generation. Its
// text and vector indexes are the very files the indexer built (fetched
// once per machine into a local cache), so it answers as the embedded
// store would. Vector search is exact over them, as in the embedded store,
// up to ANNThreshold vectors; beyond that (or with CAIRN_PG_ANN=1) it uses
// the HNSW index in PostgreSQL (CAIRN_PG_ANN=0 forces exact search).
func OpenPostgres(ctx context.Context, s *postgres.Store, queryEmbedder embed.Embedder) (*Opened, error) {
	m, err := s.Meta(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := s.SideDir(ctx)
	if err != nil {
		return nil, err
	}
	o := &Opened{Engine: &Engine{R: s}, PG: s, Meta: m}
	if err := o.openSide(dir, queryEmbedder, true); err != nil {
		return nil, err
	}
	if vx, ok := o.Engine.Vectors.(*vector.Index); ok {
		ann := os.Getenv("CAIRN_PG_ANN")
		if ann == "1" || (ann != "0" && vx.Len() > ANNThreshold) {
			o.Engine.Vectors = &pgVectors{s: s, embedder: vx.Embedder()}
		}
	}
	return o, nil
}

// ANNThreshold is the number of vectors past which the PostgreSQL store
// searches its HNSW index instead of scanning every vector (see package
// vector on where exact search stops paying).
const ANNThreshold = 300000

// pgVectors searches chunk embeddings through PostgreSQL's HNSW index.
type pgVectors struct {
	s        *postgres.Store
	embedder embed.Embedder
}

func (p *pgVectors) SearchText(ctx context.Context, text string, k int) ([]vector.Scored, error) {
	vs, err := p.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	ns, err := p.s.Nearest(ctx, vs[0], k, postgres.SearchOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]vector.Scored, len(ns))
	for i, n := range ns {
		out[i] = vector.Scored{ChunkID: n.ChunkID, Score: n.Score}
	}
	return out, nil
}

// OpenVectors adds the generation's vector index to an engine opened
// without it (OpenEmbeddedText), for a caller that opens vectors only when
// a search needs them. It must not run beside a search on o.Engine. The
// warning, when not empty, says why the engine searches without vectors.
func (o *Opened) OpenVectors(queryEmbedder embed.Embedder) (warning string) {
	if o.Engine.Vectors != nil || len(vector.Segments(o.Meta.Extra)) == 0 {
		return ""
	}
	vx, err := vector.Open(o.sideDir, o.Meta.Extra, queryEmbedder)
	if err != nil {
		return fmt.Sprintf("searching without vectors: %v", err)
	}
	o.Engine.Vectors = vx
	return ""
}

// HasText reports whether the generation's text index is open.
func (o *Opened) HasText() bool { return o.text != nil }

// openSide opens the text and vector indexes in dir.
func (o *Opened) openSide(dir string, queryEmbedder embed.Embedder, vectors bool) error {
	m := o.Meta
	o.sideDir = dir
	text, err := bm25.Open(dir, m.Extra)
	switch {
	case errors.Is(err, bm25.ErrNoSegments):
		o.Warnings = append(o.Warnings, "this index has no text index; re-index to search text")
	case err != nil:
		return err
	default:
		o.text, o.Engine.Text = text, text
	}
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
