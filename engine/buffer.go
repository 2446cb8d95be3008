package engine

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
)

// bufferTimeout bounds the extraction of one editor buffer.
const bufferTimeout = 2 * time.Second

// Buffer extracts an editor's unsaved buffer of the file rel in memory —
// the facts an index run would store for that content: definitions and
// occurrences in the buffer's coordinates, references unresolved — so that
// an editor's answers follow the buffer rather than the last indexed
// content. It returns nil when content is what the snapshot indexed for
// rel (nothing to follow). Nothing is stored: the index follows the file
// once it is saved and re-indexed.
func (s *Snapshot) Buffer(ctx context.Context, rel string, content []byte) (*graph.FileFacts, error) {
	rel, err := cleanUnder(rel)
	if err != nil {
		return nil, err
	}
	if f, err := s.R.File(ctx, rel); err == nil && f.Hash == graph.BlobHash(content) {
		return nil, nil
	}
	ff, err := indexer.ExtractBuffer(ctx, rel, content, bufferTimeout)
	if ff == nil {
		return nil, Classify(err)
	}
	return ff, nil
}
