package indexer

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

func TestSymbolsByPath(t *testing.T) {
	var all []graph.Symbol
	add := func(path string, n int) {
		for range n {
			all = append(all, graph.Symbol{Path: path, Name: fmt.Sprint(len(all))})
		}
	}
	add("a.go", 3)
	add("b.go", 1)
	add("c.go", 2)
	add("a.go", 2) // a file's symbols apart from the rest of them
	got := symbolsByPath(all)
	want := map[string][]string{"a.go": {"0", "1", "2", "6", "7"}, "b.go": {"3"}, "c.go": {"4", "5"}}
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for p, names := range want {
		g := got[p]
		if len(g) != len(names) {
			t.Fatalf("%s: %d symbols, want %d", p, len(g), len(names))
		}
		for i := range names {
			if g[i].Name != names[i] || g[i].Path != p {
				t.Fatalf("%s: symbol %d is %s of %s, want %s", p, i, g[i].Name, g[i].Path, names[i])
			}
		}
		if cap(g) != len(g) {
			t.Fatalf("%s: len %d cap %d: an append would write over the next file's", p, len(g), cap(g))
		}
	}
	// b.go's group shares all's array (no copy) ...
	if &got["b.go"][0] != &all[3] {
		t.Error("a contiguous file's symbols were copied")
	}
	// ... and appending to it leaves c.go's alone.
	_ = append(got["b.go"], graph.Symbol{Name: "x"})
	if all[4].Name != "4" {
		t.Error("an append to one file's group overwrote the next file's")
	}
}
