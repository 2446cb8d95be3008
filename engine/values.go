package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/fuse"
	"github.com/cairn-dev/cairn/retrieval/query"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// Bounds of the value generator (fuse.GenValue) and of the value items of
// a context pack.
const (
	// valueTraceTime bounds linking and tracing together: the traces run
	// beside the search's other generators and a search waits for them
	// at most this long from its start.
	valueTraceTime = 400 * time.Millisecond
	// maxValueTraces: the strongest values traced (a task is about one
	// value, sometimes two).
	maxValueTraces = 2
	// maxValueSites: the functions taken from one trace.
	maxValueSites = 8
)

// valueFinder is the engine's fuse.ValueFinder over one generation: the
// query's mentions linked to fields, tags, columns and keys
// (query.LinkValues), the strongest traced (trace.Trace), and the
// functions on their paths (trace.Result.Evidence).
type valueFinder struct {
	r     graph.Reader
	texts TextFinder // nil: the trace reads every file
	files trace.Files
	root  string
	// limit bounds a search's linking and tracing (valueTraceTime).
	limit time.Duration
}

func (f *valueFinder) FindValues(ctx context.Context, q query.Parsed) (fuse.Values, error) {
	var out fuse.Values
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, f.limit)
	defer cancel()
	ix := query.Index{Symbols: f.r, Files: f.r}
	if f.texts != nil {
		ix.Terms = f.texts
	}
	vals, err := query.LinkValues(ctx, ix, q)
	if err != nil {
		if ctx.Err() != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("linking the task's words to values was cut after %s", f.limit))
			return out, nil
		}
		return out, err
	}
	for i, v := range vals {
		if i == maxValueTraces {
			break
		}
		// The call paths are the trace's longest part: cut at three
		// quarters of the bound, the sites and gaps still count.
		o := trace.Options{Root: f.root, Depth: DefaultTraceDepth, Deadline: start.Add(f.limit * 3 / 4)}
		if f.files != nil {
			o.Files = f.files
		}
		if f.texts != nil {
			o.Texts = f.texts
		}
		res, err := trace.Trace(ctx, f.r, v.Target, o)
		switch {
		case ctx.Err() != nil:
			out.Notes = append(out.Notes, fmt.Sprintf("trace of %s (%s %q) cut after %s: its paths are not shown", v.Target, v.Link, v.Mention, time.Since(start).Round(time.Millisecond)))
			return out, nil
		case errors.Is(err, trace.ErrNoTarget):
			continue
		case err != nil:
			out.Notes = append(out.Notes, fmt.Sprintf("trace of %s failed: %v", v.Target, err))
			continue
		}
		ev := res.Evidence(maxValueSites)
		note := fmt.Sprintf("traced %s (%s %q): %d functions on its paths, %d gaps", v.Target, v.Link, v.Mention, len(ev), len(res.Gaps))
		if res.Partial != "" {
			note += "; partial: " + res.Partial
		}
		out.Notes = append(out.Notes, note)
		for _, e := range ev {
			out.Sites = append(out.Sites, fuse.ValueSite{Target: e.Target, Role: e.Role, Symbol: e.Symbol, Path: e.Path, Line: e.Line, Reason: e.Reason})
		}
	}
	return out, nil
}
