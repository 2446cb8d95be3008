package indexer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/resolve"
)

func TestPositionsByPath(t *testing.T) {
	var all []graph.Symbol
	add := func(path string, n int) {
		for range n {
			all = append(all, graph.Symbol{Path: path, Name: fmt.Sprint(len(all) % 3)}) // names shared across files
		}
	}
	add("a.go", 3)
	add("b.go", 1)
	add("c.go", 2)
	add("a.go", 2) // a file's symbols apart from the rest of them
	ms := resolve.NewMemSourceCap(len(all))
	for i := range all {
		if err := ms.Add(&all[i]); err != nil {
			t.Fatal(err)
		}
	}
	order := ms.Group()
	for i := range all {
		if s := ms.Symbol(order[i]); s.Path != all[i].Path || s.Name != all[i].Name {
			t.Fatalf("position of symbol %d holds %s of %s, want %s of %s", i, s.Name, s.Path, all[i].Name, all[i].Path)
		}
	}
	got := positionsByPath(ms, order)
	want := map[string][]int{"a.go": {0, 1, 2, 6, 7}, "b.go": {3}, "c.go": {4, 5}}
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for p, idx := range want {
		g := got[p]
		if len(g) != len(idx) {
			t.Fatalf("%s: %d symbols, want %d", p, len(g), len(idx))
		}
		for i, k := range idx {
			if g[i] != order[k] {
				t.Fatalf("%s: symbol %d at %d, want %d (symbol %d)", p, i, g[i], order[k], k)
			}
		}
		if cap(g) != len(g) {
			t.Fatalf("%s: len %d cap %d: an append would write over the next file's", p, len(g), cap(g))
		}
	}
	if &got["b.go"][0] != &order[3] {
		t.Error("a contiguous file's positions were copied")
	}
}

// TestOneSymbolTable: the resolver's in-memory symbol table is compact —
// a symbol costs under 3/4 of a graph.Symbol and its strings, and
// grouping it by name and its positions by file allocate little more (a
// table of graph.Symbols, or a copy grouped by file, fails it) — and it
// gives back every symbol as it was added, in its name's group.
func TestOneSymbolTable(t *testing.T) {
	const n = 100_000
	syms := make([]graph.Symbol, n)
	for i := range syms {
		syms[i] = graph.Symbol{Path: fmt.Sprintf("f%05d.c", i/10), Name: fmt.Sprintf("s%d", i%37),
			ID: graph.SymbolID(fmt.Sprintf("cairn c . f%05d.c/s%d#%d.", i/10, i%37, i)), Parent: int32(i%3) - 1}
	}
	want := slices.Clone(syms)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ms, err := loadTableFrom(syms)
	if err != nil {
		t.Fatal(err)
	}
	order := ms.Group()
	byPath := positionsByPath(ms, order)
	runtime.ReadMemStats(&after)
	perSym := int(unsafe.Sizeof(graph.Symbol{})) // and its strings, each an allocation of its own
	strs := 0
	for i := range want {
		strs += len(want[i].ID) + len(want[i].Name)
	}
	perSym += strs / n
	if got, bound := int(after.TotalAlloc-before.TotalAlloc), n*perSym*3/4; got > bound {
		t.Errorf("building the table for %d symbols (%d bytes each as graph.Symbol and strings) allocated %d bytes, want at most %d", n, perSym, got, bound)
	}
	for i := range want {
		if s := ms.Symbol(order[i]); !reflect.DeepEqual(s, want[i]) {
			t.Fatalf("symbol %d: %+v, want %+v", i, s, want[i])
		}
	}
	for name := range 37 {
		got, _ := ms.SymbolsByName(t.Context(), fmt.Sprintf("s%d", name))
		if len(got) == 0 {
			t.Fatalf("s%d: no group", name)
		}
		for i, s := range got {
			if s.Name != fmt.Sprintf("s%d", name) || (i > 0 && s.Path < got[i-1].Path) {
				t.Fatalf("s%d's group holds %s of %s at %d", name, s.Name, s.Path, i)
			}
		}
	}
	runtime.KeepAlive(byPath)
}

// loadTableFrom is loadTable over a slice (the store's AllSymbols).
func loadTableFrom(syms []graph.Symbol) (*resolve.MemSource, error) {
	ms := resolve.NewMemSourceCap(len(syms))
	for _, s := range syms {
		s.Doc, s.Signature = "", ""
		if err := ms.Add(&s); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// TestUseMemTable: a full run loads the symbol table; an incremental one
// when it writes at least memResolveAt files that are also a twentieth of
// the repository — a checkout of 3,000 files of the kernel's 68,000 looks
// its names up instead.
func TestUseMemTable(t *testing.T) {
	for _, c := range []struct {
		full           bool
		written, files int
		want           bool
	}{
		{true, 1, 100000, true},
		{false, 299, 1000, false},
		{false, 300, 6000, true},
		{false, 3000, 68000, false},
		{false, 3400, 68000, true},
		{false, 10, 10, false},
	} {
		if got := useMemTable(c.full, c.written, c.files); got != c.want {
			t.Errorf("useMemTable(%v, %d, %d) = %v, want %v", c.full, c.written, c.files, got, c.want)
		}
	}
}

// TestRerank: centrality is recomputed by a full run and by one that
// resolved more than a tenth of the analysed files.
func TestRerank(t *testing.T) {
	for _, c := range []struct {
		full           bool
		todo, analysed int
		want           bool
	}{
		{true, 0, 100, true},
		{false, 10, 100, false},
		{false, 11, 100, true},
		{false, 3000, 56000, false},
		{false, 6000, 56000, true},
	} {
		if got := rerank(c.full, c.todo, c.analysed); got != c.want {
			t.Errorf("rerank(%v, %d, %d) = %v, want %v", c.full, c.todo, c.analysed, got, c.want)
		}
	}
}

// TestTableFewObjects: the loaded symbol table holds no strings of its
// own. The symbols come as the store's driver gives them — every string
// its own allocation — and after the load only the table's records, its
// blocks of bytes and lists are live: on the Linux kernel the ~20 M small
// strings (and the 4.8 M pointerful graph.Symbols) were what the
// collector marked and scanned at every cycle of the resolution.
func TestTableFewObjects(t *testing.T) {
	const n = 50_000
	read := func(i int) graph.Symbol { // fresh strings, as a driver reads them
		return graph.Symbol{ID: graph.SymbolID(fmt.Sprintf("cairn c . f%d.c/s%d().", i/10, i)), Name: fmt.Sprintf("s%d", i),
			Path: fmt.Sprintf("f%05d.c", i/10), Package: fmt.Sprintf("pkg%d", i/10), Container: fmt.Sprintf("T%d", i/3),
			Type: fmt.Sprintf("struct t%d *", i), Extends: []string{fmt.Sprintf("B%d", i)}, Doc: "doc", Signature: "int s(void)"}
	}
	liveObjects := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapObjects
	}
	before := liveObjects()
	ms := resolve.NewMemSourceCap(n)
	for i := range n {
		s := read(i)
		s.Doc, s.Signature = "", ""
		if err := ms.Add(&s); err != nil {
			t.Fatal(err)
		}
	}
	order := ms.Group()
	if grown := liveObjects() - before; grown > 200 {
		t.Errorf("a table of %d symbols left %d more live heap objects, want a few blocks", n, grown)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		want := read(i)
		want.Doc, want.Signature = "", ""
		if s := ms.Symbol(order[i]); !reflect.DeepEqual(s, want) {
			t.Fatalf("symbol %d: %+v, want %+v without doc and signature", i, s, want)
		}
	}
	runtime.KeepAlive(ms)
}

// scanOnly is a reader whose symbols come only through ScanSymbols.
type scanOnly struct {
	graph.Reader
	syms []graph.Symbol
}

func (r scanOnly) AllSymbols(context.Context, func(graph.Symbol) error) error {
	return errors.New("AllSymbols: sorted by path, not wanted")
}

func (r scanOnly) ScanSymbols(_ context.Context, fn func(graph.Symbol) error) error {
	for _, s := range r.syms {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// TestLoadTableScans: the run's table is read in the store's order where
// the store has one (graph.SymbolScanner), not AllSymbols's order by path,
// which the embedded store sorted for in memory (1.2 GB on the kernel).
func TestLoadTableScans(t *testing.T) {
	r := scanOnly{syms: []graph.Symbol{{Name: "b", Path: "z.c", Parent: -1}, {Name: "a", Path: "a.c", Parent: -1}}}
	ms, err := loadTable(context.Background(), r, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ms.Len() != 2 {
		t.Fatalf("%d symbols", ms.Len())
	}
}
