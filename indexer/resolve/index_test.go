package resolve

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// randomSymbols makes definitions of a few names in several languages,
// kinds and owning types, so that every grouping has mixed and uniform
// cases.
func randomSymbols(r *rand.Rand, n int) []graph.Symbol {
	names := []string{"Get", "get", "Server", "handle", "Close", "only"}
	langs := []graph.Language{graph.LangGo, graph.LangPython, graph.LangTypeScript, graph.LangTSX, graph.LangJavaScript}
	var out []graph.Symbol
	for i := range n {
		name := names[r.IntN(len(names))]
		lang := langs[r.IntN(len(langs))]
		s := graph.Symbol{Name: name, Lang: lang, Path: fmt.Sprintf("f%d.x", r.IntN(5)), Parent: -1}
		switch r.IntN(3) {
		case 0: // a type
			s.Kind = graph.KindClass
			s.ID = graph.SymbolID(fmt.Sprintf("cairn %s . . `m%d`/%s#", lang, i, name))
		case 1: // a member of one of two types
			s.Kind = graph.KindMethod
			s.Container = fmt.Sprintf("T%d", r.IntN(2))
			s.ID = graph.SymbolID(fmt.Sprintf("cairn %s . . `m`/%s#%s().", lang, s.Container, name))
		default: // a top-level function
			s.Kind = graph.KindFunction
			s.ID = graph.SymbolID(fmt.Sprintf("cairn %s . . `m%d`/%s().", lang, i, name))
		}
		out = append(out, s)
	}
	return out
}

// refEntry is the grouping written the plain way, each group a copy.
type refEntry struct {
	all, types []graph.Symbol
	byLang     map[graph.Language][]graph.Symbol
	members    map[string][]graph.Symbol
	nmembers   int
}

func referenceEntry(name string, all []graph.Symbol) *refEntry {
	e := &refEntry{byLang: map[graph.Language][]graph.Symbol{}, members: map[string][]graph.Symbol{}}
	for _, s := range all {
		if s.Name != name {
			continue
		}
		e.all = append(e.all, s)
		e.byLang[langFamily(s.Lang)] = append(e.byLang[langFamily(s.Lang)], s)
		if s.Kind.IsType() {
			e.types = append(e.types, s)
		}
		if s.Container != "" {
			if o := owner(s.ID); o != "" {
				e.members[o] = append(e.members[o], s)
				e.nmembers++
			}
		}
	}
	return e
}

func TestNameEntryMatchesCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for trial := range 400 {
		syms := randomSymbols(r, 1+r.IntN(6))
		// uniform cases too: one name, one language, one owner, only types
		if trial%4 == 0 {
			for i := range syms {
				syms[i].Name, syms[i].Lang = "only", graph.LangGo
			}
		}
		for _, name := range []string{"Get", "get", "only", "absent"} {
			var of []graph.Symbol // what a case-insensitive source returns
			for _, s := range syms {
				if equalFold(s.Name, name) {
					of = append(of, s)
				}
			}
			got, want := newNameEntry(name, of), referenceEntry(name, of)
			fams := []graph.Language{graph.LangGo, graph.LangPython, graph.LangTypeScript, graph.LangC, graph.LangJava, graph.LangRuby}
			if len(want.all) == 0 {
				if len(got.all) != 0 || got.types != nil || got.nmembers != 0 {
					t.Fatalf("%q over %v: got %+v, want an empty entry", name, of, got)
				}
				for _, f := range fams {
					if got.byLang(f) != nil {
						t.Fatalf("%q over %v: an empty entry has %s definitions", name, of, f)
					}
				}
				continue
			}
			cases++
			if !reflect.DeepEqual(got.all, want.all) || !reflect.DeepEqual(got.types, want.types) || got.nmembers != want.nmembers {
				t.Fatalf("%q over %v:\ngot  %+v\nwant %+v", name, of, got, want)
			}
			for _, f := range fams {
				if g, w := got.byLang(f), want.byLang[f]; !reflect.DeepEqual(g, w) {
					t.Fatalf("%q over %v, family %s:\ngot  %v\nwant %v", name, of, f, g, w)
				}
			}
			owners := []string{"nobody"}
			for o := range want.members {
				owners = append(owners, o)
			}
			for _, o := range owners {
				if g, w := got.ownedBy(o), want.members[o]; !reflect.DeepEqual(g, w) {
					t.Fatalf("%q over %v, owner %s:\ngot  %v\nwant %v", name, of, o, g, w)
				}
			}
			// A caller appending to a group must not write into another.
			groups := [][]graph.Symbol{got.all, got.types}
			for _, f := range fams {
				groups = append(groups, got.byLang(f))
			}
			for _, o := range owners {
				groups = append(groups, got.ownedBy(o))
			}
			for _, g := range groups {
				if cap(g) != len(g) {
					t.Fatalf("%q: a group with room after it (len %d, cap %d)", name, len(g), cap(g))
				}
			}
		}
	}
	if cases < 300 {
		t.Fatalf("only %d non-empty cases", cases)
	}
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

func TestMemSourceGroupsByName(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	syms := randomSymbols(r, 500)
	m := NewMemSource(syms)
	seen := 0
	for name, got := range m.byName {
		var want []graph.Symbol
		for _, s := range syms {
			if s.Name == name {
				want = append(want, s)
			}
		}
		if !slices.EqualFunc(got, want, func(a, b graph.Symbol) bool { return reflect.DeepEqual(a, b) }) {
			t.Fatalf("%q: %d symbols, want %d in the source's order", name, len(got), len(want))
		}
		if cap(got) != len(got) {
			t.Fatalf("%q: len %d cap %d: an append would overwrite the next name's", name, len(got), cap(got))
		}
		seen += len(got)
	}
	if seen != len(syms) {
		t.Fatalf("%d symbols grouped, want %d", seen, len(syms))
	}
	// The groups are copies: the caller's slice may change afterwards.
	before, _ := m.SymbolsByName(t.Context(), syms[0].Name)
	first := before[0]
	syms[0].Name = "changed"
	after, _ := m.SymbolsByName(t.Context(), first.Name)
	if after[0].Name != first.Name {
		t.Fatal("the source shares the caller's slice")
	}
}

// TestSharedUnique: the bare-name candidates share the name's slice (no
// copy kept per name) when every symbol is kept and none repeats, clipped
// so that an append cannot write into it; otherwise they are the filtered,
// deduplicated copy.
func TestSharedUnique(t *testing.T) {
	ss := []graph.Symbol{{ID: "a", Parent: -1}, {ID: "b", Parent: -1}, {ID: "c", Parent: -1}}
	top := func(s *graph.Symbol) bool { return s.Parent < 0 }
	got := sharedUnique(ss[:3:3], top)
	if len(got) != 3 || &got[0] != &ss[0] || cap(got) != 3 {
		t.Fatalf("all kept, all distinct: %v (cap %d), want ss itself", got, cap(got))
	}
	ss[1].Parent = 0
	got = sharedUnique(ss, top)
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "c" || &got[0] == &ss[0] {
		t.Fatalf("one filtered out: %v, want a copy of a and c", got)
	}
	dup := []graph.Symbol{{ID: "a", Parent: -1}, {ID: "a", Parent: -1}}
	if got := sharedUnique(dup, top); len(got) != 1 {
		t.Fatalf("a repeated id: %v, want it once", got)
	}
}
