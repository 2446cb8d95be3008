package bm25

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestQuestionTerms: a question's function words match no code (a method
// Where is no answer to "where is …"), and its inflected words meet the
// identifiers code spells in the base form ("committed" meets Commit) —
// README's own demo question ranked Writer.Commit of the embedded store
// 196th in BM25.
func TestQuestionTerms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, nil)
	b.Begin(ctx, dir, true)
	put := func(path, name, text string, id int64) {
		ff := &graph.FileFacts{File: graph.File{Path: path}, Chunks: []graph.Chunk{{Path: path, Name: name, Text: text, Kind: graph.ChunkFunction}}}
		b.Put(ctx, ff, []int64{id})
	}
	put("db/query.go", "Query.Where", "func (q *Query) Where(cond string) *Query { q.where = append(q.where, cond); return q }", 1)
	put("store/writer.go", "Writer.Commit", "func (w *Writer) Commit(gen int) error { return w.tx.Commit() }", 2)
	put("store/reader.go", "Reader.Open", "func (r *Reader) Open(path string) error { return nil }", 3)
	x := finish(t, b, dir)
	hits, err := x.Search(ctx, Query{Text: "where is the generation committed, and what happens when it is killed"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ChunkID != 2 {
		t.Fatalf("hits %v, want Writer.Commit (2) first", hits)
	}
	for _, h := range hits {
		if h.ChunkID == 1 {
			t.Errorf("Query.Where matched the question word where: %v", hits)
		}
	}
	// a name the query spells as code is still found
	if hits, err = x.Search(ctx, Query{Text: "Where", Boosted: []string{"where"}}, 5); err != nil || len(hits) == 0 || hits[0].ChunkID != 1 {
		t.Errorf("a query of a function word alone: %v %v", hits, err)
	}
	files, err := x.SearchFiles(ctx, Query{Text: "where is the generation committed"}, 5)
	if err != nil || len(files) == 0 || files[0].ChunkID != 2 {
		t.Errorf("file hits %v %v, want store/writer.go's first", files, err)
	}
}
