package bm25

import (
	"context"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

func TestSpellings(t *testing.T) {
	for name, want := range map[string][]string{
		"ListenAndServe":  {"listenandserve", "listen_and_serve"},
		"new_range_query": {"new_range_query", "newrangequery"},
		"HTTPServer":      {"httpserver", "http_server"},
		"getX":            {"getx", "get_x"},
		"Size":            nil,
		"Server.Start":    nil,
	} {
		if got := spellings(name); !slices.Equal(got, want) {
			t.Errorf("spellings(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestNameQuery: a query that is one name of several parts finds the
// name whole, in any convention's spelling, and its parts in names, but
// not a body (or a file's text) that holds only the parts; without Name
// the same text finds that body too.
func TestNameQuery(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, nil)
	b.Begin(ctx, dir, true)
	chunk := func(path, name, text string) *graph.FileFacts {
		return &graph.FileFacts{File: graph.File{Path: path}, Chunks: []graph.Chunk{{Path: path, Name: name, Text: text, Kind: graph.ChunkFunction}}}
	}
	b.Put(ctx, chunk("a.go", "ListenAndServe", "func ListenAndServe(addr string) error { return nil }"), []int64{1})
	b.Put(ctx, chunk("b.go", "run", "func run() { ListenAndServe(\":80\") }"), []int64{2})
	b.Put(ctx, chunk("c.go", "loop", "func loop() { listen(); and(); serve() }"), []int64{3})
	b.Put(ctx, chunk("d.py", "start", "def start():\n    listen_and_serve(8080)\n"), []int64{4})
	b.Put(ctx, chunk("e.go", "listenOnce", "func listenOnce() {}"), []int64{5})
	x := finish(t, b, dir)
	ids := func(hits []Hit, err error) []int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, h := range hits {
			out = append(out, h.ChunkID)
		}
		slices.Sort(out)
		return out
	}
	name := Query{Text: "ListenAndServe", Boosted: []string{"listenandserve"}, Name: "ListenAndServe"}
	if got, want := ids(x.Search(ctx, name, 10)), []int64{1, 2, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("chunks for the name: %v, want %v (not the body with only its parts, 3)", got, want)
	}
	text := name
	text.Name = ""
	if got := ids(x.Search(ctx, text, 10)); !slices.Contains(got, 3) {
		t.Errorf("chunks for the text: %v, want the body with the parts (3) among them", got)
	}
	if got, want := ids(x.SearchFiles(ctx, name, 10)), []int64{1, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("files for the name: %v, want %v", got, want)
	}
	if got := ids(x.SearchFiles(ctx, text, 10)); !slices.Contains(got, 3) {
		t.Errorf("files for the text: %v, want c.go's (3) among them", got)
	}
}
