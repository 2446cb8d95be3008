package vector

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestMergeLeavesBigDeltas: single-file deltas piling up after a big one
// (a checkout) merge among themselves; the big delta is neither checked for
// liveness nor rewritten until they match its size, and every live vector
// stays in the index.
func TestMergeLeavesBigDeltas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	checked := map[int64]int{}
	live := func(_ context.Context, ids []int64) (map[int64]bool, error) {
		out := map[int64]bool{}
		for _, id := range ids {
			checked[id]++
			out[id] = true
		}
		return out, nil
	}
	fe := &fakeEmbedder{}
	run := func(meta map[string]string, fresh bool, first int64, n int) map[string]string {
		t.Helper()
		b := NewBuilder(meta, Options{Embedder: fe, Live: live})
		if err := b.Begin(ctx, dir, fresh); err != nil {
			t.Fatal(err)
		}
		f := &graph.FileFacts{File: graph.File{Path: "a.go"}}
		var ids []int64
		for i := 0; i < n; i++ {
			id := first + int64(i)
			f.Chunks = append(f.Chunks, graph.Chunk{Path: "a.go", Name: "x", Text: fmt.Sprintf("text %d", id), Hash: fmt.Sprint(id)})
			ids = append(ids, id)
		}
		b.Put(ctx, f, ids)
		m, err := b.Finish(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	meta := run(nil, true, 1, 10)
	meta = run(meta, false, 1000, 2000) // a checkout
	big := Segments(meta)[1]
	for i := 0; i < 3*MaxDeltas; i++ {
		meta = run(meta, false, int64(10000+i), 1) // single-file edits
		segs := Segments(meta)
		if !slices.Contains(segs, big) {
			t.Fatalf("edit %d: the big delta was merged already: %v", i, segs)
		}
		if len(segs) > MaxDeltas+1 {
			t.Fatalf("edit %d: %d segments", i, len(segs))
		}
	}
	if checked[1500] != 0 {
		t.Errorf("the big delta's vectors were checked %d times", checked[1500])
	}
	x, err := Open(dir, meta, fe)
	if err != nil {
		t.Fatal(err)
	}
	if want := 10 + 2000 + 3*MaxDeltas; x.Len() != want {
		t.Errorf("%d vectors, want %d", x.Len(), want)
	}
}
