package bm25

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestQuestionWords: a question's opening word matches no code — README's
// demo question "where is a generation of the index committed …" ranked
// Engine.Where and DB.Where third and eighth in BM25 — while a query that
// is the word alone still finds it.
func TestQuestionWords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, nil)
	b.Begin(ctx, dir, true)
	put := func(path, name, text string, id int64) {
		ff := &graph.FileFacts{File: graph.File{Path: path}, Chunks: []graph.Chunk{{Path: path, Name: name, Text: text, Kind: graph.ChunkFunction}}}
		b.Put(ctx, ff, []int64{id})
	}
	put("db/query.go", "Query.Where", "func (q *Query) Where(cond string) *Query { q.where = append(q.where, cond); return q }", 1)
	put("store/writer.go", "Writer.Publish", "func (w *Writer) Publish(generation int) error { return w.swap(generation) }", 2)
	put("store/reader.go", "Reader.Open", "func (r *Reader) Open(path string) error { return nil }", 3)
	x := finish(t, b, dir)
	for _, q := range []string{"where is the generation published", "why is the generation lost"} {
		hits, err := x.Search(ctx, Query{Text: q}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].ChunkID != 2 {
			t.Errorf("%q: hits %v, want Writer.Publish (2) first", q, hits)
		}
		for _, h := range hits {
			if h.ChunkID == 1 {
				t.Errorf("%q: Query.Where matched a question word: %v", q, hits)
			}
		}
		files, err := x.SearchFiles(ctx, Query{Text: q}, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range files {
			if h.ChunkID == 1 {
				t.Errorf("%q: db/query.go matched a question word: %v", q, files)
			}
		}
	}
	if hits, err := x.Search(ctx, Query{Text: "Where"}, 5); err != nil || len(hits) == 0 || hits[0].ChunkID != 1 {
		t.Errorf("a query of the word alone: %v %v", hits, err)
	}
}
