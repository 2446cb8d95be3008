package fuse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/query"
)

// ValueFinder traces the values a query talks about (a field, a tag, a
// column, a key the task names or describes) and returns the functions on
// their write and read paths, within a bound of time it keeps itself. The
// engine implements it (query.LinkValues, then trace.Trace and
// trace.Result.Evidence); declared here, where it is used.
type ValueFinder interface {
	FindValues(ctx context.Context, q query.Parsed) (Values, error)
}

// Values is what a ValueFinder found.
type Values struct {
	Sites []ValueSite
	// Notes say what was traced, how each value was linked to the text,
	// and when a trace was cut short.
	Notes []string
}

// ValueSite is a function on a traced value's path, in the order the
// finder ranks them (the gap first).
type ValueSite struct {
	Target string
	Role   string // trace.Role*: gap, write, persist, query, mapper, consumer
	Symbol graph.SymbolID
	Path   string
	Line   int
	Reason string
}

type valueFinds struct {
	v   Values
	err error
}

// valueGrace is how long a search waits for the value generator once its
// other generators are done: the finder keeps its own bound, and a search
// that would wait longer answers without it (Values.Notes says so).
const valueGrace = 100 * time.Millisecond

// startValues starts the value generator beside the others, when the
// query says a value is lost or wrong (query.Parsed.Symptom) and is no
// bare name: the trace reads the index and the files on its own.
func (s *search) startValues() {
	if s.e.Values == nil || !s.on[GenValue] || s.q.Identifier != "" || !s.q.Symptom() {
		return
	}
	s.vals = make(chan valueFinds, 1)
	ctx, cancel := context.WithCancel(s.ctx)
	s.stopValues = cancel
	go func() {
		v, err := s.e.Values.FindValues(ctx, s.q)
		s.vals <- valueFinds{v, err}
	}()
}

// values ranks the functions on the paths of the values the query names
// (ValueFinder), in the finder's order: where the value is lost first,
// then where it is written, stored, read back, mapped and consumed.
func (s *search) values() error {
	if s.vals == nil {
		return nil
	}
	defer s.stopValues()
	var f valueFinds
	select {
	case f = <-s.vals:
	case <-time.After(valueGrace):
		s.stopValues()
		f = <-s.vals
		f.v.Sites = nil
		f.v.Notes = append(f.v.Notes, fmt.Sprintf("value traces cut: still running %s after the other generators were done", valueGrace))
	}
	if f.err != nil {
		if s.ctx.Err() == nil && errors.Is(f.err, context.Canceled) {
			return nil
		}
		return f.err
	}
	s.found = f.v
	rank := 0
	for _, vs := range f.v.Sites {
		var ref graph.ChunkRef
		ok := false
		if vs.Symbol != "" {
			if defs, err := s.e.R.SymbolsByID(s.ctx, vs.Symbol); err == nil && len(defs) > 0 {
				ref, ok = s.chunkOf(&defs[0])
			}
		}
		if !ok && vs.Path != "" {
			ref, ok = s.chunkAt(vs.Path, uint32(vs.Line))
		}
		if !ok {
			continue
		}
		rank++
		s.add(GenValue, ref, rank, vs.Reason)
	}
	return nil
}
