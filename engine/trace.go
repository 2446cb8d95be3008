package engine

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/retrieval/trace"
)

// Trace depths.
const (
	DefaultTraceDepth = 8
	MaxTraceDepth     = 12
)

// TraceOptions ask Trace to follow one value.
type TraceOptions struct {
	// Target is the value: a field (Task.ArtifactURL), a column
	// (tasks.artifact_url), a JSON or map key, a config key
	// (config:server.port) or a variable.
	Target string
	// Depth is the longest call path followed: default
	// DefaultTraceDepth, at most MaxTraceDepth.
	Depth int
	// Budget bounds the time the trace follows call paths in (default
	// DefaultTraceBudget; negative: no bound); past it the answer is
	// partial and says so (trace.Result.Partial).
	Budget time.Duration
}

// DefaultTraceBudget is a trace's time bound: its sites and gaps are
// always whole; past it, call paths and flows are cut and said to be.
const DefaultTraceBudget = 10 * time.Second

// TraceResult is a trace. Every location in it is a trace.Loc, the shape
// of graph.Citation (path, start and end line, column, revision, stale),
// cited through the snapshot.
type TraceResult struct {
	trace.Result
}

// Trace follows one value through the code: who writes and who reads it,
// through which call paths from which entry points, and where its path
// breaks. It reads the text index only (no vectors).
func (s *Snapshot) Trace(ctx context.Context, o TraceOptions) (*TraceResult, error) {
	if strings.TrimSpace(o.Target) == "" {
		return nil, Errorf(InvalidArgument, "empty target")
	}
	depth, err := bounded("depth", o.Depth, DefaultTraceDepth, 1, MaxTraceDepth)
	if err != nil {
		return nil, err
	}
	opts := trace.Options{Depth: depth, Root: s.Root, Cite: s.CiteFunc(ctx)}
	if b := cmp.Or(o.Budget, DefaultTraceBudget); b > 0 {
		opts.Deadline = time.Now().Add(b)
	}
	if s.Files != nil {
		opts.Files = s.Files
	}
	if s.Texts != nil {
		// without it the trace reads every file instead
		opts.Texts = s.Texts
	}
	res, err := trace.Trace(ctx, s.R, o.Target, opts)
	if err != nil {
		return nil, Classify(err)
	}
	return &TraceResult{Result: *res}, nil
}
