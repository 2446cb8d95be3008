package indexer

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/treesitter"
	"github.com/cairn-dev/cairn/indexer/walk"
)

// ExtractBuffer extracts the facts of content as the file rel, in memory:
// what an index run would store for it (symbols, occurrences, chunks,
// redacted as stored), without resolving its references or storing
// anything. It serves an editor's unsaved buffer. A content the indexer
// would skip (binary, generated, minified) is an error saying why.
func ExtractBuffer(ctx context.Context, rel string, content []byte, timeout time.Duration) (*graph.FileFacts, error) {
	lang, reason, detail := walk.Classify(rel, walk.LanguageOf(rel), content)
	if reason != graph.SkipNone {
		return nil, fmt.Errorf("%s is not indexed: %s %s", rel, reason, detail)
	}
	x := treesitter.New(treesitter.Options{Timeout: timeout})
	defer x.Close()
	ff, err := x.Extract(ctx, rel, lang, content)
	if ff == nil {
		return nil, err
	}
	ff.File.Hash = BlobHash(content)
	ff.File.Size = int64(len(content))
	ff.File.Lang = lang
	redactSymbols(ff)
	return ff, err
}
