package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

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
}

// TraceResult is a trace with the revision of every file it cites.
//
// Its locations are trace's own (path and line, through Revisions); they
// become Citations when graph's shared citation type lands.
type TraceResult struct {
	trace.Result
	// Revisions cites every path in the answer: path → revision.
	Revisions map[string]string `json:"revisions" jsonschema:"revision of every file the answer cites (path → revision)"`
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
	opts := trace.Options{Depth: depth, Root: s.Root}
	if s.Texts != nil {
		// without it the trace reads every file instead
		opts.Texts = s.Texts
	}
	res, err := trace.Trace(ctx, s.R, o.Target, opts)
	if err != nil {
		return nil, Classify(err)
	}
	out := &TraceResult{Result: *res}
	out.Revisions = s.Revisions(ctx, &out.Result)
	return out, nil
}

// Revisions cites every file an answer names: every "path" in v's JSON,
// path → revision. An adapter that cuts an answer to fit recites what is
// left with it.
func (s *Snapshot) Revisions(ctx context.Context, v any) map[string]string {
	b, err := json.Marshal(v)
	out := map[string]string{}
	if err != nil {
		return out
	}
	// encoding/json escapes every quote inside a string, so "path":" occurs
	// only where a key path has a string value
	key := []byte(`"path":"`)
	for {
		i := bytes.Index(b, key)
		if i < 0 {
			return out
		}
		b = b[i+len(key)-1:] // at the value's opening quote
		j := 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			return out
		}
		var p string
		if json.Unmarshal(b[:j+1], &p) == nil && p != "" {
			if _, done := out[p]; !done {
				out[p], _ = s.Cite(ctx, p)
			}
		}
		b = b[j+1:]
	}
}
