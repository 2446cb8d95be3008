package bm25

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestTiesAtTheCut: six documents score the same; asked for the best
// three, Search returns three — the lowest ids — and with Ties all six, so
// that a caller can cut them by something other than the order a store
// wrote them in. A document that scores higher is first either way, and
// ties are kept to at most k more.
func TestTiesAtTheCut(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, nil)
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	put := func(id int64, text string) {
		path := fmt.Sprintf("f%d.go", id)
		ff := &graph.FileFacts{File: graph.File{Path: path}, Chunks: []graph.Chunk{{Path: path, Name: "x", Text: text, Kind: graph.ChunkFunction}}}
		if err := b.Put(ctx, ff, []int64{id}); err != nil {
			t.Fatal(err)
		}
	}
	put(100, "widget widget widget frobnicate")
	for _, id := range []int64{7, 3, 9, 1, 5, 8} {
		put(id, "widget other words here")
	}
	put(50, "nothing relevant at all")
	x := finish(t, b, dir)
	ids := func(q Query, k int) []int64 {
		t.Helper()
		hits, err := x.Search(ctx, q, k)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, h := range hits {
			out = append(out, h.ChunkID)
		}
		return out
	}
	q := Query{Text: "widget frobnicate"}
	if got := ids(q, 3); !slices.Equal(got, []int64{100, 1, 3}) {
		t.Errorf("without ties: %v, want [100 1 3]", got)
	}
	q.Ties = true
	got := ids(q, 3)
	if len(got) != 6 || got[0] != 100 {
		t.Errorf("with ties, k=3: %v, want 100 then five of the six tied (at most k more)", got)
	}
	if got := ids(q, 4); len(got) != 7 || got[0] != 100 {
		t.Errorf("with ties, k=4: %v, want 100 and all six tied", got)
	}
	if got := ids(q, 10); len(got) != 7 {
		t.Errorf("with ties, k beyond the hits: %v, want all seven", got)
	}
}
