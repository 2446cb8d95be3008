package vector

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/embed"
)

func randomUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	embed.Normalize(v)
	return v
}

// TestQuantisedSearchMatchesExact: the int8 scan finds what float search
// finds (recall@10 of quantised against exact float32 ranking).
func TestQuantisedSearchMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	dir := t.TempDir()
	const n, dim = 5000, 64
	vecs := make([][]float32, n)
	w, err := createSegment(filepath.Join(dir, "vec-000001.bin"), dim, "m")
	if err != nil {
		t.Fatal(err)
	}
	for i := range vecs {
		vecs[i] = randomUnit(rng, dim)
		w.add(int64(i+1), vecs[i])
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	seg, err := readSegment(filepath.Join(dir, "vec-000001.bin"))
	if err != nil {
		t.Fatal(err)
	}
	x := &Index{segs: []*segment{seg}}
	hits, total := 0, 0
	for q := 0; q < 50; q++ {
		qv := randomUnit(rng, dim)
		type sc struct {
			id int64
			s  float32
		}
		exact := make([]sc, n)
		for i, v := range vecs {
			exact[i] = sc{int64(i + 1), embed.Dot(qv, v)}
		}
		slices.SortFunc(exact, func(a, b sc) int {
			if a.s > b.s {
				return -1
			}
			return 1
		})
		got, err := x.Search(qv, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]bool{}
		for _, e := range exact[:10] {
			want[e.id] = true
		}
		for _, g := range got {
			if want[g.ChunkID] {
				hits++
			}
		}
		total += 10
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Fatal("results not in descending order")
			}
		}
	}
	if recall := float64(hits) / float64(total); recall < 0.9 {
		t.Errorf("recall@10 of the quantised scan = %.2f", recall)
	}
}

func TestSegmentCorruption(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "vec-000001.bin")
	w, _ := createSegment(p, 8, "model")
	w.add(1, randomUnit(rand.New(rand.NewPCG(2, 2)), 8))
	w.close()
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-3], 0o644)
	if _, err := readSegment(p); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated segment: %v", err)
	}
	os.WriteFile(p, []byte("garbage"), 0o644)
	if _, err := readSegment(p); err == nil {
		t.Error("garbage accepted")
	}
}

// fakeEmbedder stands for an external model in builder tests.
type fakeEmbedder struct{ calls int }

func (f *fakeEmbedder) Model() string { return "fake:1" }
func (f *fakeEmbedder) Dim() int      { return 4 }
func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.calls += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := []float32{float32(len(t)), 1, 0, 0}
		embed.Normalize(v)
		out[i] = v
	}
	return out, nil
}

var _ embed.Embedder = (*fakeEmbedder)(nil)

func TestBuilderExternalWithCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cache, err := OpenCache(filepath.Join(dir, "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	fe := &fakeEmbedder{}
	ff := func(texts ...string) *graph.FileFacts {
		f := &graph.FileFacts{File: graph.File{Path: "a.go"}}
		for _, s := range texts {
			f.Chunks = append(f.Chunks, graph.Chunk{Path: "a.go", Name: "x", Text: s, Hash: "h-" + s})
		}
		return f
	}
	b := NewBuilder(nil, Options{Embedder: fe, Cache: cache})
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	b.Put(ctx, ff("one", "two", "three"), []int64{1, 2, 3})
	meta, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fe.calls != 3 || meta[MetaModel] != "fake:1" || len(Segments(meta)) != 1 {
		t.Fatalf("calls %d meta %v", fe.calls, meta)
	}
	// Incremental run: one changed chunk, one unchanged text in a new chunk.
	b2 := NewBuilder(meta, Options{Embedder: fe, Cache: cache})
	if err := b2.Begin(ctx, dir, false); err != nil {
		t.Fatal(err)
	}
	b2.Put(ctx, ff("one", "four"), []int64{4, 5})
	meta2, err := b2.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fe.calls != 4 {
		t.Errorf("embedder saw %d texts in all, want 4 (one cached)", fe.calls)
	}
	x, err := Open(dir, meta2, fe)
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != 5 || len(Segments(meta2)) != 2 {
		t.Errorf("%d vectors in %v", x.Len(), Segments(meta2))
	}
	// Another embedder cannot query these vectors.
	if _, err := Open(dir, meta2, &otherEmbedder{}); err == nil || !strings.Contains(err.Error(), "re-index") {
		t.Errorf("mismatched embedder: %v", err)
	}
}

type otherEmbedder struct{ fakeEmbedder }

func (o *otherEmbedder) Model() string { return "other:2" }

// TestOpenLoadsOnFirstSearch: Open reads no vector (a one-shot command that
// never searches does not pay for them), and a segment that cannot be read
// is an error of the search, not an empty answer.
func TestOpenLoadsOnFirstSearch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fe := &fakeEmbedder{}
	b := NewBuilder(nil, Options{Embedder: fe})
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	b.Put(ctx, &graph.FileFacts{File: graph.File{Path: "a.go"}, Chunks: []graph.Chunk{{Path: "a.go", Name: "x", Text: "one", Hash: "h1"}}}, []int64{1})
	meta, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, Segments(meta)[0])
	good, _ := os.ReadFile(seg)
	os.WriteFile(seg, []byte("garbage"), 0o644)
	x, err := Open(dir, meta, fe)
	if err != nil {
		t.Fatalf("Open read the segment: %v", err)
	}
	if _, err := x.SearchText(ctx, "one", 3); err == nil {
		t.Fatal("a garbage segment searched without error")
	}
	os.WriteFile(seg, good, 0o644)
	x, err = Open(dir, meta, fe)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := x.SearchText(ctx, "one", 3)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != 1 {
		t.Fatalf("search = %v, %v", hits, err)
	}
	os.Remove(seg)
	if _, err := Open(dir, meta, fe); err == nil {
		t.Error("Open accepted a missing segment")
	}
}

// TestSegmentMapped: a segment read from its file is mapped, not copied
// (a one-shot search on the Linux kernel spent 100 ms reading and copying
// a 121 MB segment), reads the same vectors as one in memory, and is
// unmapped once nothing holds it.
func TestSegmentMapped(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps")
	}
	rng := rand.New(rand.NewPCG(2, 3))
	path := filepath.Join(t.TempDir(), "vec-000001.bin")
	const n, dim = 300, 64
	w, err := createSegment(path, dim, "m")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		w.add(int64(i+1), randomUnit(rng, dim))
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	mapped := func() bool {
		b, _ := os.ReadFile("/proc/self/maps")
		return strings.Contains(string(b), path)
	}
	seg, err := readSegment(path)
	if err != nil {
		t.Fatal(err)
	}
	if seg.raw == nil || !mapped() {
		t.Fatal("the segment was read into memory, not mapped")
	}
	// The same vectors as a copy in memory.
	mem := &segment{dim: dim, ids: seg.ids, scales: seg.scales, data: make([]int8, n*dim)}
	for i := range n {
		copy(mem.data[i*dim:], seg.row(i))
	}
	for q := range 5 {
		qv := randomUnit(rng, dim)
		a, _ := (&Index{segs: []*segment{seg}}).Search(qv, 10)
		b, _ := (&Index{segs: []*segment{mem}}).Search(qv, 10)
		if !slices.Equal(a, b) {
			t.Fatalf("query %d: mapped %v, in memory %v", q, a, b)
		}
	}
	seg = nil
	for range 50 {
		runtime.GC()
		if !mapped() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the segment is still mapped after nothing holds it")
}
