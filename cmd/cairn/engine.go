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
	opts, err := g.engineOptions()
	if err != nil {
		return nil, err
	}
	opts.Root = root
	return engine.Open(ctx, opts)
}

// engineOptions are the engine's options the global flags set: the store
// (--store, --repo-name, CAIRN_PG_ANN) and the index directory.
func (g *globals) engineOptions() (engine.Options, error) {
	opts := engine.Options{IndexDir: g.indexDir}
	if g.shared() {
		if err := g.checkStore(); err != nil {
			return opts, err
		}
		name, err := g.repoKey()
		if err != nil {
			return opts, err
		}
		opts.Store, opts.RepoName, opts.ANN = g.store, name, annMode()
	}
	return opts, nil
}
