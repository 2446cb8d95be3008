package resolve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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
	// Every field, supertypes and long strings (a block of their own) too.
	for i := range syms {
		syms[i].Doc = strings.Repeat("d", i%3)
		syms[i].Signature = fmt.Sprintf("func %s()", syms[i].Name)
		syms[i].Range = graph.Range{StartByte: uint32(i), EndByte: uint32(i + 9), StartLine: 1, EndLine: 2, EndCol: 7}
		syms[i].Exported, syms[i].IsTest = i%2 == 0, i%5 == 0
		switch i % 7 {
		case 0:
			syms[i].Extends = []string{"Base", "Other"}
		case 1:
			syms[i].Implements = []string{"Iface"}
		case 2:
			syms[i].Extends, syms[i].Implements = []string{"B"}, []string{"I", "J"}
		case 3:
			syms[i].Type = strings.Repeat("T", blockSize/3+i)
		}
	}
	m := NewMemSource(syms)
	seen := 0
	for name := range m.byName {
		got, _ := m.SymbolsByName(t.Context(), name)
		var want []graph.Symbol
		for _, s := range syms {
			if s.Name == name {
				want = append(want, s)
			}
		}
		for k := range want {
			want[k].Doc, want[k].Signature = "", "" // not kept: resolution needs neither
		}
		if !slices.EqualFunc(got, want, func(a, b graph.Symbol) bool { return reflect.DeepEqual(a, b) }) {
			t.Fatalf("%q: %d symbols, want %d in the source's order:\n%+v\n%+v", name, len(got), len(want), got, want)
		}
		seen += len(got)
	}
	if seen != len(syms) || m.Len() != len(syms) {
		t.Fatalf("%d symbols grouped (%d in the table), want %d", seen, m.Len(), len(syms))
	}
	// The groups are made anew: a caller's changes are its own.
	before, _ := m.SymbolsByName(t.Context(), syms[0].Name)
	first := before[0]
	before[0].Name = "changed"
	syms[0].Name = "changed"
	after, _ := m.SymbolsByName(t.Context(), first.Name)
	if after[0].Name != first.Name {
		t.Fatal("the source shares a slice with its callers")
	}
	if got, _ := m.SymbolsByName(t.Context(), "absent"); got != nil {
		t.Fatalf("absent: %v", got)
	}
}

// TestMemSourceFull: strings past what the offsets address are refused
// with ErrTableFull (the run then looks names up in the store), not
// wrapped around into other symbols' bytes.
func TestMemSourceFull(t *testing.T) {
	defer func(v int) { maxBlocks = v }(maxBlocks)
	maxBlocks = 3
	m := NewMemSourceCap(0)
	long := strings.Repeat("x", blockSize/4+1) // a block each
	var err error
	for i := 0; i < 5 && err == nil; i++ {
		err = m.Add(&graph.Symbol{Name: fmt.Sprint(i), Type: long})
	}
	if !errors.Is(err, ErrTableFull) {
		t.Fatalf("err = %v, want ErrTableFull", err)
	}
}

// TestNameCacheBounded: the resolver's name cache holds at most two
// generations, and a name asked again and again stays cached while a
// stream of names asked once passes through.
func TestNameCacheBounded(t *testing.T) {
	var syms []graph.Symbol
	for i := range 5000 {
		syms = append(syms, graph.Symbol{Name: fmt.Sprintf("n%d", i), Lang: graph.LangC, Path: "a.c", Parent: -1,
			ID: graph.SymbolID(fmt.Sprintf("cairn c . a.c/n%d().", i))})
	}
	src := &countingSource{Source: NewMemSource(syms)}
	x := NewIndex(t.Context(), src, nil)
	x.cacheGen = 100
	hot := x.entry("n0")
	for i := 1; i < 5000; i++ {
		x.entry(fmt.Sprintf("n%d", i))
		if i%50 == 0 && x.entry("n0") != hot {
			t.Fatalf("after %d names the hot name's entry was made again", i)
		}
		if n := len(x.cache) + len(x.old); n > 2*x.cacheGen {
			t.Fatalf("after %d names the cache holds %d entries, want at most %d", i, n, 2*x.cacheGen)
		}
	}
	if e := x.entry("n1"); len(e.all) != 1 || e.all[0].Name != "n1" {
		t.Fatalf("an evicted name asked again: %+v", e)
	}
	if src.n != 5001 {
		t.Fatalf("%d lookups of the source, want 5001 (each name once, the evicted one again)", src.n)
	}
}

type countingSource struct {
	Source
	n int
}

func (c *countingSource) SymbolsByName(ctx context.Context, name string) ([]graph.Symbol, error) {
	c.n++
	return c.Source.SymbolsByName(ctx, name)
}
