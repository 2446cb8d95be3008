package main

import (
	"context"

	"github.com/cairn-dev/cairn/engine"
)

// openEngine opens the engine over the store the flags name (--store, or
// the embedded one in --index-dir). The query commands ask it, and only it.
func (g *globals) openEngine(ctx context.Context) (*engine.Engine, error) {
	root, err := g.repoRoot()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Root: root, IndexDir: g.indexDir, Store: g.store, RepoName: g.repoName, EmbedHTTP: embedHTTP(), SearchSlots: searchSlots()}
	if g.store != "" {
		if err := g.checkStore(); err != nil {
			return nil, err
		}
	}
	return engine.Open(ctx, opts)
}
