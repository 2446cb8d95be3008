package bm25

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestMergeLeavesBigDeltas: small deltas piling up after a big one merge
// among themselves; the big one is not rewritten until they match its
// size, and every live document stays searchable.
func TestMergeLeavesBigDeltas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	allLive := func(_ context.Context, ids []int64) (map[int64]bool, error) {
		out := map[int64]bool{}
		for _, id := range ids {
			out[id] = true
		}
		return out, nil
	}
	run := func(meta map[string]string, fresh bool, first int64, n int) map[string]string {
		t.Helper()
		b := NewBuilder(Segments(meta), allLive)
		if err := b.Begin(ctx, dir, fresh); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			id := first + int64(i)
			b.Put(ctx, facts(fmt.Sprintf("f%d.go", id), fmt.Sprintf("func word%d() { return bulkytext%d }", id, id)), []int64{id})
		}
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
	x, err := Open(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, id := range []int64{5, 1500, 10000, 10000 + 3*MaxDeltas - 1} {
		hits, err := x.Search(ctx, Query{Text: fmt.Sprintf("bulkytext%d", id)}, 3)
		if err != nil || len(hits) == 0 || hits[0].ChunkID != id {
			t.Errorf("document %d: %v %v", id, hits, err)
		}
	}
}
