package fuse

import (
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// maxUnwritten bounds the functions the unwritten generator ranks.
const maxUnwritten = 24

// unwritten ranks the functions that use a type the query names without
// writing a field of it the query also names: "WireLength is not set on
// the stats.InPayload passed to HandleRPC" is fixed where an InPayload is
// built and its WireLength left out, and those places are neither the
// field's writers (trace) nor anything the words of the issue point at.
// It runs only when a type (at most three definitions) and one of its
// fields are both named; methods of the type itself and tests do not
// count.
func (s *search) unwritten() error {
	if !s.on[GenUnwritten] || s.q.Identifier != "" {
		return nil
	}
	var names []string
	for i, id := range s.q.Identifiers {
		if i >= 30 {
			break
		}
		names = append(names, id.Name)
	}
	rank := 0
	seen := map[graph.SymbolID]bool{}
	for _, tn := range names {
		types, err := s.definitions(tn)
		if err != nil {
			return err
		}
		if len(types) == 0 || len(types) > 3 {
			continue
		}
		for _, t := range types {
			if !t.Kind.IsType() || t.IsTest {
				continue
			}
			for _, fn := range names {
				if strings.Contains(fn, ".") || fn == t.Name {
					continue
				}
				fields, err := graph.FindDefinitions(s.ctx, s.e.R, t.Name+"."+fn)
				if err != nil {
					return err
				}
				for _, f := range fields {
					if f.Kind != graph.KindField || f.Path != t.Path {
						continue
					}
					writes, err := s.e.R.Edges(s.ctx, []graph.SymbolID{f.ID}, graph.In, graph.EdgeWrites)
					if err != nil {
						return err
					}
					writers := map[graph.SymbolID]bool{}
					for _, e := range writes {
						writers[e.From] = true
					}
					uses, err := s.e.R.Edges(s.ctx, []graph.SymbolID{t.ID}, graph.In, graph.EdgeTypeUse, graph.EdgeReferences)
					if err != nil {
						return err
					}
					for _, e := range uses {
						if e.Ambiguous || writers[e.From] || seen[e.From] || rank >= maxUnwritten {
							continue
						}
						seen[e.From] = true
						defs, err := s.e.R.SymbolsByID(s.ctx, e.From)
						if err != nil {
							return err
						}
						if len(defs) == 0 {
							continue
						}
						d := &defs[0]
						if !d.Kind.IsCallable() || d.IsTest || d.Container == t.QualifiedName() ||
							s.e.category(d.Path)&graph.FileTest != 0 {
							continue
						}
						if ref, ok := s.chunkOf(d); ok {
							rank++
							s.add(GenUnwritten, ref, rank, "uses "+t.Name+" without writing "+f.Name+", both named in the query")
						}
					}
				}
			}
		}
	}
	return nil
}
