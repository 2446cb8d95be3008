package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
)

// openEngine opens the engine over the store the flags name (--store, or
// the embedded one in --index-dir). The query commands ask it, and only it.
func (g *globals) openEngine(ctx context.Context) (*engine.Engine, error) {
	root, err := g.repoRoot()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{Root: root, IndexDir: g.indexDir, Store: g.store, RepoName: g.repoName,
		Embedder: os.Getenv("CAIRN_EMBEDDER")}
	if g.store != "" {
		if err := g.checkStore(); err != nil {
			return nil, err
		}
	}
	return engine.Open(ctx, opts)
}

// snapshot opens the engine and acquires a snapshot of the current
// generation; done releases both. The worktree's freshness check (which
// every answer states) starts beside the command's question.
func (g *globals) snapshot(ctx context.Context) (snap *engine.Snapshot, done func(), err error) {
	eng, err := g.openEngine(ctx)
	if err != nil {
		return nil, nil, err
	}
	snap, err = eng.Acquire(ctx)
	if errors.Is(err, graph.ErrNoIndex) {
		eng.Close()
		return nil, nil, fmt.Errorf("no index in %s: run `cairn index --repo %s` first", eng.IndexDir(), g.repo)
	}
	if err != nil {
		eng.Close()
		return nil, nil, err
	}
	g.startCheck(snap.R)
	return snap, func() { snap.Release(); eng.Close() }, nil
}

// exitCode is the one mapping of the engine's error categories to exit
// codes: 2 for arguments to change (usage), 3 for nothing found, 1 for the
// rest.
func exitCode(c engine.Category) int {
	switch c {
	case engine.InvalidArgument, engine.OutsideRepository, engine.Ambiguous:
		return 2
	case engine.NotFound:
		return 3
	}
	return 1
}

// errorText is how the command line states an error that carries an
// engine error e: its message, and the definitions an ambiguous name
// denotes.
func errorText(err error, e *engine.Error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s:%d-%d\t%s\t%s\t%s", c.Path, c.StartLine, c.EndLine, c.Kind, c.Name, c.SymbolID)
	}
	return b.String()
}
