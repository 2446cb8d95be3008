package engine

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/retrieval/impact"
)

// Impact bounds.
const (
	DefaultImpactDepth = 3
	MaxImpactDepth     = 6
	DefaultTestDepth   = 12
	MaxTestDepth       = 32
	DefaultImpactLimit = 20000
	MaxImpactLimit     = 200000
)

// ImpactOptions ask Impact what a change affects. Exactly one of Name,
// Diff, Staged and Working says which change.
type ImpactOptions struct {
	// Name is the symbol to change: a name, a qualified name or a symbol
	// id. It must denote one definition (else an Ambiguous error lists
	// them) unless All is set; Path and Kind narrow it.
	Name string
	Path string
	Kind string
	// All analyses every definition Name denotes.
	All bool
	// Diff analyses the changes since this git revision; Staged the
	// staged changes; Working the working tree's changes against HEAD.
	Diff    string
	Staged  bool
	Working bool
	// Depth is the levels of dependents listed: default
	// DefaultImpactDepth, at most MaxImpactDepth.
	Depth int
	// TestDepth is how far up the graph tests are looked for: default
	// DefaultTestDepth, at most MaxTestDepth.
	TestDepth int
	// Limit caps the symbols visited: default DefaultImpactLimit, at most
	// MaxImpactLimit.
	Limit int
}

// ImpactResult is an impact analysis. Every symbol in it is a
// graph.SymbolView cited through the snapshot (path, lines, revision,
// stale); why each changed symbol was chosen is its Why (named, lines
// changed, file deleted).
type ImpactResult struct {
	impact.Result
}

// Impact analyses what changing a symbol, or a diff, affects: transitive
// dependents, implementations, the tests that reach it with commands to
// run them, owners and a risk summary.
func (s *Snapshot) Impact(ctx context.Context, o ImpactOptions) (*ImpactResult, error) {
	modes := 0
	for _, on := range []bool{o.Name != "", o.Diff != "", o.Staged, o.Working} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return nil, Errorf(InvalidArgument, "give exactly one of a symbol, a diff revision, staged or working")
	}
	if o.Name == "" && (o.Path != "" || o.Kind != "" || o.All) {
		return nil, Errorf(InvalidArgument, "path, kind and all narrow a symbol: give one")
	}
	depth, err := bounded("depth", o.Depth, DefaultImpactDepth, 1, MaxImpactDepth)
	if err != nil {
		return nil, err
	}
	testDepth, err := bounded("test depth", o.TestDepth, DefaultTestDepth, 1, MaxTestDepth)
	if err != nil {
		return nil, err
	}
	limit, err := bounded("limit", o.Limit, DefaultImpactLimit, 1, MaxImpactLimit)
	if err != nil {
		return nil, err
	}
	io := impact.Options{Depth: depth, TestDepth: testDepth, Limit: limit, Root: s.Root, Cite: s.CiteFunc(ctx)}
	if s.Files != nil {
		io.Files = s.Files
	}
	var res *impact.Result
	if o.Name != "" {
		defs, err := s.Resolve(ctx, o.Name, o.Path, o.Kind, !o.All)
		if err != nil {
			return nil, err
		}
		if res, err = impact.Analyze(ctx, s.R, impact.Named(defs), io); err != nil {
			return nil, Classify(fmt.Errorf("impact of %s: %w", Quote(o.Name), err))
		}
		res.Target = o.Name
	} else {
		if o.Diff != "" && !isRevision(o.Diff) {
			return nil, Errorf(InvalidArgument, "diff %s is not a revision", Quote(o.Diff))
		}
		if res, err = impact.ForDiff(ctx, s.R, impact.Diff{Rev: o.Diff, Staged: o.Staged}, io); err != nil {
			return nil, Classify(err)
		}
	}
	return &ImpactResult{Result: *res}, nil
}
