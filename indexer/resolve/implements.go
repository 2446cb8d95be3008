package resolve

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// owner returns the symbol a member's symbol is nested in: the ID without
// its last descriptor ("…/T#m()." → "…/T#", "…/ns/f()." → "…/ns/"), or ""
// for a top-level symbol.
func owner(id graph.SymbolID) string {
	s := string(id)
	// Walk the descriptors (after scheme and package), remembering where
	// each starts; backticks escape names.
	fields := 0
	i := 0
	for ; i < len(s) && fields < 4; i++ {
		if s[i] == ' ' {
			if i+1 < len(s) && s[i+1] == ' ' {
				i++ // an escaped space
				continue
			}
			fields++
		}
	}
	var starts []int
	for i < len(s) {
		starts = append(starts, i)
		// name
		if s[i] == '`' {
			i++
			for i < len(s) {
				if s[i] == '`' {
					if i+1 < len(s) && s[i+1] == '`' {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
		} else if s[i] == '[' || s[i] == '(' {
			// type parameter or parameter: [name] / (name)
			for i < len(s) && s[i] != ']' && s[i] != ')' {
				i++
			}
			i++
			continue
		} else {
			for i < len(s) && strings.IndexByte("/#.:!([", s[i]) < 0 {
				i++
			}
		}
		// suffix
		if i < len(s) && s[i] == '(' {
			for i < len(s) && s[i] != ')' {
				i++
			}
			i++ // ')'
		}
		if i < len(s) {
			i++ // '.', '#', '/', ':', '!'
		}
	}
	if len(starts) < 2 {
		return ""
	}
	last := starts[len(starts)-1]
	if prev := s[:last]; strings.HasSuffix(prev, "/") && len(starts) == 2 {
		return "" // nested only in its file or package namespace: top level
	}
	return s[:last]
}

// GoImplementations derives, from the Go symbols of the whole repository,
// which named types implement which interfaces: a type implements an
// interface when its method set, with the methods of embedded types,
// includes every method name of the interface (with those of embedded
// interfaces). It emits "T implements I" and, per method, "T.m implements
// I.m". Signatures are not compared; names are what tree-sitter gives.
func GoImplementations(syms []graph.Symbol) []graph.Edge {
	types := map[string]*graph.Symbol{} // type id → symbol
	byName := map[string][]*graph.Symbol{}
	methods := map[string]map[string]graph.SymbolID{} // type id → method name → method id
	for i := range syms {
		s := &syms[i]
		if s.Lang != graph.LangGo {
			continue
		}
		if s.Kind.IsType() {
			types[string(s.ID)] = s
			byName[s.Name] = append(byName[s.Name], s)
			continue
		}
		if s.Kind == graph.KindMethod {
			o := owner(s.ID)
			if o == "" {
				continue
			}
			if methods[o] == nil {
				methods[o] = map[string]graph.SymbolID{}
			}
			methods[o][s.Name] = s.ID
		}
	}
	// resolve an embedded type name against the embedding type's package
	embedded := func(t *graph.Symbol) []*graph.Symbol {
		var out []*graph.Symbol
		for _, text := range t.Extends {
			_, name := typeName(text)
			for _, cand := range byName[name] {
				if cand.ID != t.ID && (samePackage(cand, t) || len(byName[name]) == 1) {
					out = append(out, cand)
				}
			}
		}
		return out
	}
	// full method sets, embedded types included
	memo := map[string]map[string]graph.SymbolID{}
	var methodSet func(t *graph.Symbol, depth int) map[string]graph.SymbolID
	methodSet = func(t *graph.Symbol, depth int) map[string]graph.SymbolID {
		if m, ok := memo[string(t.ID)]; ok {
			return m
		}
		m := map[string]graph.SymbolID{}
		memo[string(t.ID)] = m // break cycles
		for n, id := range methods[string(t.ID)] {
			m[n] = id
		}
		if depth < 4 {
			for _, e := range embedded(t) {
				for n, id := range methodSet(e, depth+1) {
					if _, ok := m[n]; !ok {
						m[n] = id
					}
				}
			}
		}
		return m
	}
	// Types in id order: method sets are memoized with cycles cut where
	// they are met, so the order they are first computed in must not be
	// the map's (random) one.
	ordered := make([]*graph.Symbol, 0, len(types))
	for _, t := range types {
		ordered = append(ordered, t)
	}
	slices.SortFunc(ordered, func(a, b *graph.Symbol) int { return strings.Compare(string(a.ID), string(b.ID)) })
	// types by method name, for the intersection
	holders := map[string][]*graph.Symbol{}
	var concrete []*graph.Symbol
	for _, t := range ordered {
		if t.Kind == graph.KindInterface {
			continue
		}
		concrete = append(concrete, t)
		for n := range methodSet(t, 0) {
			holders[n] = append(holders[n], t)
		}
	}
	var edges []graph.Edge
	ifaces := make([]*graph.Symbol, 0)
	for _, t := range ordered {
		if t.Kind == graph.KindInterface {
			ifaces = append(ifaces, t)
		}
	}
	slices.SortFunc(ifaces, func(a, b *graph.Symbol) int { return strings.Compare(string(a.ID), string(b.ID)) })
	for _, iface := range ifaces {
		want := methodSet(iface, 0)
		if len(want) == 0 {
			continue // the empty interface: everything implements it
		}
		// start from the rarest method name
		var rarest string
		for n := range want {
			if rarest == "" || len(holders[n]) < len(holders[rarest]) || (len(holders[n]) == len(holders[rarest]) && n < rarest) {
				rarest = n
			}
		}
		cands := holders[rarest]
		preciseIface := !iface.ID.IsHeuristic()
		slices.SortFunc(cands, func(a, b *graph.Symbol) int { return strings.Compare(string(a.ID), string(b.ID)) })
		for _, t := range cands {
			if preciseIface && !t.ID.IsHeuristic() {
				continue // both from a SCIP index: it gave the relation precisely
			}
			have := methodSet(t, 0)
			ok := true
			for n := range want {
				if _, found := have[n]; !found {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			edges = append(edges, graph.Edge{From: t.ID, To: iface.ID, Kind: graph.EdgeImplements,
				Confidence: graph.ConfResolved, Path: t.Path, Range: t.NameRange})
			names := make([]string, 0, len(want))
			for n := range want {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				edges = append(edges, graph.Edge{From: have[n], To: want[n], Kind: graph.EdgeImplements,
					Confidence: graph.ConfResolved, Path: t.Path, Range: t.NameRange})
			}
		}
	}
	return edges
}
