package bm25

import (
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// TestSharedAnalysis: a file's chunks analysed once give each body and the
// file's ftext exactly what bleve's own analysis of those texts gives —
// the number of tokens and every term's frequency — whichever document is
// analysed first, and with documents analysed concurrently.
func TestSharedAnalysis(t *testing.T) {
	chunks := []string{
		"func (s *Server) ListenAndServe() error {\n\treturn s.serveHTTP(nil)\n}",
		"// serveHTTP answers HTTP requests; ünïcode_names and HTTP2Server too\ntype HTTP2Server struct{ maxConcurrentStreams uint32 }",
		"",
		"x = " + strings.Repeat("a", 80) + " // a word past 64 bytes is no term\nlisten_and_serve(ListenAndServe)",
		"package main", // the file's last chunk ends without a newline
	}
	im := newMapping(false)
	reference := func(field, text string) analysed {
		doc := document.NewDocument("x")
		var data any = Doc{Body: text}
		if field == "ftext" {
			data = FileDoc{FText: text}
		}
		if err := im.MapDocument(doc, data); err != nil {
			t.Fatal(err)
		}
		for _, f := range doc.Fields {
			if f.Name() == field {
				f.Analyze()
				return analysed{f.AnalyzedLength(), f.AnalyzedTokenFrequencies()}
			}
		}
		t.Fatalf("no %s field", field)
		return analysed{}
	}
	same := func(what string, got, want analysed) {
		t.Helper()
		if got.length != want.length || len(got.freqs) != len(want.freqs) {
			t.Errorf("%s: %d tokens, %d terms; bleve: %d tokens, %d terms", what, got.length, len(got.freqs), want.length, len(want.freqs))
			return
		}
		for term, w := range want.freqs {
			g, ok := got.freqs[term]
			if !ok || g.Frequency() != w.Frequency() || string(g.Term) != string(w.Term) {
				t.Errorf("%s: term %q: got %v, bleve %d", what, term, g, w.Frequency())
			}
		}
	}
	var file strings.Builder
	for _, c := range chunks {
		file.WriteString(c)
		file.WriteByte('\n')
	}
	for _, fileFirst := range []bool{false, true} {
		fa := newFileAnalysis(chunks)
		fields := make([]*sharedField, len(chunks)+1)
		for i := range chunks {
			fields[i] = &sharedField{fa: fa, i: i}
		}
		fields[len(chunks)] = &sharedField{fa: fa, i: -1}
		if fileFirst {
			fields[0], fields[len(chunks)] = fields[len(chunks)], fields[0]
		}
		var wg sync.WaitGroup
		for _, f := range fields {
			wg.Add(1)
			go func() { defer wg.Done(); f.Analyze() }()
		}
		wg.Wait()
		for _, f := range fields {
			if f.i < 0 {
				same("ftext", f.a, reference("ftext", file.String()))
			} else {
				same("body "+string(rune('0'+f.i)), f.a, reference("body", chunks[f.i]))
			}
		}
	}
	var _ index.Field = &sharedField{}
}
