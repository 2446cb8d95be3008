package bm25

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

func facts(path string, texts ...string) *graph.FileFacts {
	ff := &graph.FileFacts{File: graph.File{Path: path}}
	for i, t := range texts {
		ff.Chunks = append(ff.Chunks, graph.Chunk{Path: path, Name: fmt.Sprintf("f%d", i), Text: t, Kind: graph.ChunkFunction})
	}
	return ff
}

// TestSegmentsAndDeltas builds a base segment, then deltas; replaced chunks
// stay in older segments but are dead; too many deltas get merged.
func TestSegmentsAndDeltas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := map[int64]bool{}
	liveFn := func(_ context.Context, ids []int64) (map[int64]bool, error) {
		out := map[int64]bool{}
		for _, id := range ids {
			if live[id] {
				out[id] = true
			}
		}
		return out, nil
	}
	b := NewBuilder(nil, liveFn)
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	b.Put(ctx, facts("a.go", "func parseHTTPRequest(r io.Reader) {}", "func writeResponse() {}"), []int64{1, 2})
	live[1], live[2] = true, true
	meta, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	search := func(meta map[string]string, q string) []int64 {
		x, err := Open(dir, meta)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		hits, err := x.Search(ctx, Query{Text: q}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range hits {
			ids = append(ids, h.ChunkID)
		}
		return ids
	}
	// camelCase parts match, the whole identifier matches
	if got := search(meta, "http request parsing"); len(got) == 0 || got[0] != 1 {
		t.Errorf("parts query: %v", got)
	}
	if got := search(meta, "parseHTTPRequest"); len(got) == 0 || got[0] != 1 {
		t.Errorf("identifier query: %v", got)
	}
	// Deltas: chunk 1 replaced by 100+i each time.
	var prevMeta map[string]string
	for i := 0; i < MaxDeltas+2; i++ {
		prevMeta = meta
		b := NewBuilder(Segments(meta), liveFn)
		if err := b.Begin(ctx, dir, false); err != nil {
			t.Fatal(err)
		}
		id := int64(100 + i)
		b.Put(ctx, facts("a.go", fmt.Sprintf("func parseHTTPRequest%d() {}", i)), []int64{id})
		for k := range live {
			if k != 2 {
				delete(live, k)
			}
		}
		live[id] = true
		if meta, err = b.Finish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(Segments(meta)); n > MaxDeltas+1 {
		t.Errorf("%d segments after merging", n)
	}
	// The merged delta holds only live documents.
	got := search(meta, "parseHTTPRequest9")
	if len(got) == 0 || got[0] != int64(100+MaxDeltas+1) {
		t.Errorf("latest chunk not found first: %v", got)
	}
	// A merge ran when the ninth delta arrived, over the six smallest (of
	// equal sizes, the newest: 103–108) to leave four deltas: the dead
	// documents 103–107 are gone; 108, live then, and the older dead ones
	// wait in their deltas for a later merge (readers drop them through the
	// store, as the base's dead document 1).
	dead := map[int64]bool{}
	for _, id := range search(meta, "parse http request") {
		dead[id] = id != int64(100+MaxDeltas+1) && id != 2
	}
	for id := int64(103); id <= 107; id++ {
		if _, ok := dead[id]; ok {
			t.Errorf("dead document %d survived the merge: %v", id, dead)
		}
	}
	if !dead[100] || !dead[108] {
		t.Errorf("documents in the index after the merge: %v", dead)
	}
	// Orphan segment directories (crashed runs) are removed; the previous
	// generation's segments stay for its readers.
	entries, _ := os.ReadDir(dir)
	want := map[string]bool{}
	for _, s := range append(Segments(meta), Segments(prevMeta)...) {
		want[s] = true
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "bm25-") && !want[e.Name()] {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if _, err := Open(filepath.Join(dir, "nowhere"), map[string]string{}); err != ErrNoSegments {
		t.Errorf("no segments: %v", err)
	}
}

func TestFileDocuments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, nil)
	b.Begin(ctx, dir, true)
	b.Put(ctx, facts("net/retry.go", "package net", "func backoff() {}"), []int64{1, 2})
	b.Put(ctx, facts("db/tx.go", "package db", "func commit() {}"), []int64{3, 4})
	x := finish(t, b, dir)
	hits, err := x.SearchFiles(ctx, Query{Text: "retry with backoff"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ChunkID != 1 {
		t.Errorf("file hits %v, want the file document of chunk 1", hits)
	}
}

// finish commits b's segment and opens the index it makes, for the rest of
// the test.
func finish(t *testing.T, b *Builder, dir string) *Index {
	t.Helper()
	meta, err := b.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	x, err := Open(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	return x
}
