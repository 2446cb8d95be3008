package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

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

// ask runs one engine question on a snapshot of the index the flags name
// and writes its answer: fn asks and returns what --json prints as the
// envelope's results (with the envelope's other fields set through env)
// and a function printing the text form (or, --dot and --mermaid, the
// graph). An answer with env.nothing set printed, the command exits 3
// (nothing found) with that message. An engine error becomes the
// command's error (with its exit code) and, with --json, an envelope with
// an "error" object.
func (g *globals) ask(ctx context.Context, query string, fn func(snap *engine.Snapshot, env *envelope) (text func() error, err error)) error {
	e, err := g.openEngine(ctx)
	if err != nil {
		return g.fail(query, nil, err)
	}
	defer e.Close()
	snap, err := e.Acquire(ctx)
	if err != nil {
		return g.fail(query, nil, err)
	}
	defer snap.Release()
	g.startCheck(snap)
	env := &envelope{Query: query}
	text, err := fn(snap, env)
	env.Index = g.indexOf(ctx, snap)
	if err != nil {
		var ee *engine.Error
		if errors.As(err, &ee) && ee.Category == engine.NotFound {
			g.setUnknown(ctx, snap.R, env)
		}
		return g.fail(query, env, err)
	}
	if g.json {
		if env.Results == nil && env.Search == nil {
			env.Results = []struct{}{}
		}
		err = writeJSON(g.stdout, env)
	} else {
		err = text()
	}
	if err == nil && env.nothing != "" {
		err = notFound("%s", env.nothing)
	}
	return err
}

// snapshot is ask for the commands whose answer is not an envelope
// (context, trace, impact, status): it opens the engine and acquires a
// snapshot (errors through fail); done releases both.
func (g *globals) snapshot(ctx context.Context, query string) (snap *engine.Snapshot, done func(), err error) {
	e, err := g.openEngine(ctx)
	if err != nil {
		return nil, nil, g.fail(query, nil, err)
	}
	snap, err = e.Acquire(ctx)
	if err != nil {
		e.Close()
		return nil, nil, g.fail(query, nil, err)
	}
	return snap, func() { snap.Release(); e.Close() }, nil
}

// errorView is an engine error in a JSON answer.
type errorView struct {
	Category   engine.Category    `json:"category"`
	Message    string             `json:"message"`
	Candidates []engine.Candidate `json:"candidates,omitempty"`
}

// fail reports an engine error: with --json also on stdout (in env, when
// the index answered), and as the command's error with the exit code of
// its category — 3 not_found, 2 invalid_argument, outside_repository and
// ambiguous (the argument must change), 1 otherwise.
func (g *globals) fail(query string, env *envelope, err error) error {
	var ee *engine.Error
	if !errors.As(err, &ee) {
		return err
	}
	if g.json {
		if env == nil {
			env = &envelope{Query: query}
		}
		env.Results = []struct{}{}
		env.Error = &errorView{Category: ee.Category, Message: ee.Message, Candidates: ee.Candidates}
		if werr := writeJSON(g.stdout, env); werr != nil {
			return werr
		}
	}
	var b strings.Builder
	b.WriteString(ee.Error())
	for _, c := range ee.Candidates {
		fmt.Fprintf(&b, "\n  %s (%s) %s:%d-%d  %s", c.QualifiedName, c.Kind, c.Path, c.StartLine, c.EndLine, c.SymbolID)
	}
	code := 1
	switch ee.Category {
	case engine.NotFound:
		code = 3
	case engine.InvalidArgument, engine.OutsideRepository, engine.Ambiguous:
		code = 2
	}
	return &exitError{code: code, err: errors.New(b.String())}
}

// engineOptions are the engine's options the global flags set: the store
// (--store, --repo-name, CAIRN_PG_ANN) and the index directory.
func (g *globals) engineOptions() (engine.Options, error) {
	opts := engine.Options{IndexDir: g.indexDir, Embedder: os.Getenv("CAIRN_EMBEDDER"), EmbedHTTP: embedHTTP(), SearchSlots: searchSlots(), HistoryCommits: maxCommits(historyEnv()),
		WorktreeFullScan: os.Getenv("CAIRN_WORKTREE_CHECK") == "full"}
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
