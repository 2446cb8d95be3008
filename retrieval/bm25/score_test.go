package bm25

import (
	"cmp"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/cairn-dev/cairn/retrieval/internal/ties"
	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// goCorpus splits the Go files of a few standard library packages into
// function-sized chunks: real code, real term statistics.
func goCorpus(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, pkg := range []string{"strings", "bufio", "bytes", "strconv", "sort", "encoding/json", "net/url"} {
		dir := filepath.Join(runtime.GOROOT(), "src", pkg)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Skipf("no Go sources: %v", err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(string(b), "\nfunc ")
			for i := 1; i < len(parts); i++ {
				parts[i] = "func " + parts[i]
			}
			out[pkg+"/"+e.Name()] = parts
		}
	}
	return out
}

var scoreQueries = []string{
	"unquote a string literal with escapes",
	"json decoder reads the next token from the input stream",
	"parseFloat returns an error for out of range values",
	"url query escaping of reserved characters in the path",
	"buffered reader ReadLine returns the line without the end of line bytes",
	"sort stable insertion",
	"Builder grows its buffer",
	"x",
}

// bleveReference runs the query the old way: bleve's own disjunction of
// term queries, sorted by score then id (scores that tie to 36 bits
// tied: bleve sums a document's clauses in another order).
func bleveReference(t *testing.T, x *Index, cs []clause, k int) []Hit {
	t.Helper()
	var qs []query.Query
	for _, c := range cs {
		tq := bleve.NewTermQuery(c.term)
		tq.SetField(c.field)
		tq.SetBoost(c.boost)
		qs = append(qs, tq)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), k+100, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := x.alias.SearchInContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	hits := res.Hits
	slices.SortFunc(hits, func(a, b *search.DocumentMatch) int {
		return cmp.Or(ties.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	var out []Hit
	for _, h := range hits[:min(k, len(hits))] {
		id, _ := strconv.ParseInt(strings.TrimPrefix(h.ID, "f"), 10, 64)
		out = append(out, Hit{id, h.Score})
	}
	return out
}

// buildCorpus indexes the corpus as one segment and opens it.
func buildCorpus(t *testing.T, dir string, corpus map[string][]string) *Index {
	t.Helper()
	ctx := context.Background()
	var paths []string
	for p := range corpus {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	b := NewBuilder(nil, nil)
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	var next int64
	for _, p := range paths {
		ids := make([]int64, len(corpus[p]))
		for i := range ids {
			next++
			ids[i] = next
		}
		if err := b.Put(ctx, facts(p, corpus[p]...), ids); err != nil {
			t.Fatal(err)
		}
	}
	return finish(t, b, dir)
}

func sameHits(t *testing.T, what string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].ChunkID != want[i].ChunkID || math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
			t.Fatalf("%s: hit %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestSameAsBleve: the term-at-a-time scorer ranks and scores exactly as
// bleve's disjunction of term queries does, on real code, for chunk and
// file queries, with and without boosted identifiers.
func TestSameAsBleve(t *testing.T) {
	ctx := context.Background()
	corpus := goCorpus(t)
	x := buildCorpus(t, t.TempDir(), corpus)
	for _, q := range scoreQueries {
		code, prose := terms(q, tokens.Code), terms(q, tokens.Text)
		for _, cs := range [][]clause{
			chunkClauses(code, code, prose, nil),
			chunkClauses(code, code, prose, []string{"readline", "parsefloat"}),
			fileClauses(code, code),
		} {
			for _, k := range []int{1, 10, 300} {
				got, err := x.run(ctx, cs, k, false)
				if err != nil {
					t.Fatal(err)
				}
				want := bleveReference(t, x, cs, k)
				if len(want) == 0 && q != "x" {
					t.Fatalf("%q: no hits at all", q)
				}
				sameHits(t, q+" k="+strconv.Itoa(k), got, want)
			}
		}
	}
}
