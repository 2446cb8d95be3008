package bm25

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// allLive says every document is live.
func allLive(_ context.Context, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// TestMergeLeavesBigDeltas: small deltas piling up after a big one merge
// among themselves; the big one is not rewritten until they match its
// size, and every live document stays searchable.
func TestMergeLeavesBigDeltas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
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

// TestCommonTermsDoNotSelect: in a large index a term most chunks hold
// ("the") does not make a document a candidate when the query has other
// terms; alone, it still finds documents. File counts are recorded per
// segment, merged segments included.
func TestCommonTermsDoNotSelect(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, allLive)
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	// 1,000 files of 2 chunks: every chunk says "the"; chunk 7 also says
	// "zebra", chunk 9 says "the" many times over
	id := int64(1)
	for f := 0; f < 1000; f++ {
		texts := []string{fmt.Sprintf("func a%d() { the(x) }", f), fmt.Sprintf("func b%d() { the(y) }", f)}
		if f == 3 {
			texts[0] = "func zeb() { the(zebra) }"
		}
		if f == 4 {
			texts[0] = "func many() { the(the, the, the, the) }"
		}
		b.Put(ctx, facts(fmt.Sprintf("f%d.go", f), texts...), []int64{id, id + 1})
		id += 2
	}
	meta, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Open(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	hits, err := x.Search(ctx, Query{Text: "the zebra"}, 50)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != 7 {
		t.Errorf("the zebra: want chunk 7 alone, got %v %v", hits, err)
	}
	hits, err = x.Search(ctx, Query{Text: "the"}, 5)
	if err != nil || len(hits) != 5 || hits[0].ChunkID != 9 {
		t.Errorf("the: want 5 hits led by chunk 9, got %v %v", hits, err)
	}
	fh, err := x.SearchFiles(ctx, Query{Text: "the zebra"}, 50)
	if err != nil || len(fh) != 1 || fh[0].ChunkID != 7 {
		t.Errorf("files, the zebra: want the file of chunk 7 alone, got %v %v", fh, err)
	}
	if st, err := x.stats(ctx); err != nil || st.chunks != 2000 || st.files != 1000 {
		t.Errorf("counted %d chunks, %d files; want 2000, 1000 (%v)", st.chunks, st.files, err)
	}

	// a merged segment records its file documents too
	m, err := b.merge(ctx, Segments(meta), "bm25-000009")
	if err != nil {
		t.Fatal(err)
	}
	_ = m
	y, err := Open(dir, map[string]string{MetaKey: "bm25-000009"})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if st, err := y.stats(ctx); err != nil || st.files != 1000 {
		t.Errorf("merged segment: %d files, want 1000 (%v)", st.files, err)
	}
}
