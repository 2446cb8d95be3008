package lsp

import (
	"context"
	"maps"
	"slices"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
)

// bufFacts are an open buffer's facts, extracted in memory
// (engine.Snapshot.Buffer) for one content and generation; nil ff: the
// buffer is what that generation indexed.
type bufFacts struct {
	content string
	gen     int64
	ff      *graph.FileFacts
}

// live returns the facts of every open buffer that differs from what the
// snapshot indexed, by path: the buffers answers follow. Each buffer is
// extracted once per content and generation.
func (s *Server) live(ctx context.Context, snap *engine.Snapshot) map[string]*graph.FileFacts {
	s.mu.Lock()
	open := maps.Clone(s.raw)
	s.mu.Unlock()
	out := map[string]*graph.FileFacts{}
	for rel, content := range open {
		s.mu.Lock()
		b, ok := s.bufs[rel]
		s.mu.Unlock()
		if !ok || b.content != content || b.gen != snap.Meta.Generation {
			ff, err := snap.Buffer(ctx, rel, []byte(content))
			if err != nil {
				continue // (not indexable: answers come from the index)
			}
			b = bufFacts{content: content, gen: snap.Meta.Generation, ff: ff}
			s.mu.Lock()
			if _, still := s.raw[rel]; still {
				s.bufs[rel] = b
			}
			s.mu.Unlock()
		}
		if b.ff != nil {
			out[rel] = b.ff
		}
	}
	return out
}

// follow moves definitions into the open buffers: one in an edited file is
// replaced by the buffer's definition of the same symbol (same id, else same
// name, kind and container), or dropped when the buffer no longer defines
// it; when none is left, the buffers' definitions named word are the
// answer (a definition typed but not saved). views stay aligned with defs.
func (s *Server) follow(ctx context.Context, snap *engine.Snapshot, live map[string]*graph.FileFacts, defs []graph.Symbol, views []graph.SymbolView, word string) ([]graph.Symbol, []graph.SymbolView) {
	if len(live) == 0 {
		return defs, views
	}
	cite := snap.CiteFunc(ctx)
	var od []graph.Symbol
	var ov []graph.SymbolView
	type key struct {
		path string
		at   uint32
	}
	seen := map[key]bool{}
	add := func(d *graph.Symbol, v graph.SymbolView) {
		if k := (key{d.Path, d.NameRange.StartByte}); !seen[k] {
			seen[k] = true
			od, ov = append(od, *d), append(ov, v)
		}
	}
	for i := range defs {
		d := &defs[i]
		bf := live[d.Path]
		if bf == nil {
			add(d, views[i])
			continue
		}
		if m := sameSymbol(bf, d); m != nil {
			add(m, graph.ViewSymbol(m, cite))
		}
	}
	if len(od) == 0 {
		for _, rel := range sortedKeys(live) {
			for i := range live[rel].Symbols {
				if sym := &live[rel].Symbols[i]; sym.Name == word {
					add(sym, graph.ViewSymbol(sym, cite))
				}
			}
		}
	}
	return od, ov
}

// sameSymbol finds d's definition in a buffer's facts.
func sameSymbol(bf *graph.FileFacts, d *graph.Symbol) *graph.Symbol {
	for i := range bf.Symbols {
		if bf.Symbols[i].ID == d.ID {
			return &bf.Symbols[i]
		}
	}
	for i := range bf.Symbols {
		if b := &bf.Symbols[i]; b.Name == d.Name && b.Kind == d.Kind && b.Container == d.Container {
			return b
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
