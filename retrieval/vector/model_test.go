package vector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/embed"
)

// TestModelKeptAcrossRuns: an incremental run loads the built-in model once
// per process, and loads it again when the file under that name changed.
func TestModelKeptAcrossRuns(t *testing.T) {
	train := func(seed uint64) *embed.PPMI {
		tr := embed.NewTrainer(embed.PPMIOptions{Dim: 8, Oversample: 2, MinCount: 1, Seed: seed})
		for i := 0; i < 400; i++ {
			tr.Add(fmt.Sprintf("func handler%d(w ResponseWriter, r *Request) { serve%d(w, r.URL, cache%d) }", i%37, i%23, i%11))
		}
		m, err := tr.Train(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	path := filepath.Join(t.TempDir(), "vec-000001.ppmi")
	if err := train(1).Save(path); err != nil {
		t.Fatal(err)
	}
	a, err := loadModel(path, "", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadModel(path, "", "")
	if err != nil || a != b {
		t.Fatalf("second load: %p, %v; want the model kept (%p)", b, err, a)
	}
	// The same name, rewritten (an epoch rebuilt from scratch).
	if err := train(2).Save(path); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	os.Chtimes(path, later, later)
	c, err := loadModel(path, "", "")
	if err != nil || c == a {
		t.Fatalf("after rewrite: %p, %v; want a fresh load", c, err)
	}
	if c.Model() == a.Model() {
		t.Errorf("reloaded model has the old fingerprint %s", c.Model())
	}
}

// TestModelChecksum: a full run records the built-in model file's checksum
// beside its name; search loads the model against the checksum (not by
// hashing it again) with the same name and answers, refuses a file whose
// bytes changed, and still loads an index recorded without a checksum.
func TestModelChecksum(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewBuilder(nil, Options{PPMI: embed.PPMIOptions{Dim: 8, Oversample: 2, MinCount: 1, Seed: 1}})
	if err := b.Begin(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400; i++ {
		text := fmt.Sprintf("func handler%d(w ResponseWriter, r *Request) { serve%d(w, r.URL, cache%d) }", i%37, i%23, i%11)
		b.Put(ctx, &graph.FileFacts{File: graph.File{Path: fmt.Sprintf("f%d.go", i)}, Chunks: []graph.Chunk{{Path: fmt.Sprintf("f%d.go", i), Name: "h", Text: text, Hash: fmt.Sprint(i)}}}, []int64{int64(i + 1)})
	}
	meta, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if meta[MetaModelSum] == "" || meta[MetaModelFile] == "" {
		t.Fatalf("no model checksum recorded: %v", meta)
	}
	modelFile := filepath.Join(dir, meta[MetaModelFile])
	hashed, err := embed.LoadPPMI(modelFile)
	if err != nil || hashed.Model() != meta[MetaModel] {
		t.Fatalf("the model file hashes to %v (%v), recorded %s", hashed, err, meta[MetaModel])
	}
	search := func(meta map[string]string) ([]Scored, error) {
		x, err := Open(dir, meta, nil)
		if err != nil {
			return nil, err
		}
		return x.SearchText(ctx, "serve the request from cache", 5)
	}
	want, err := search(meta)
	if err != nil || len(want) == 0 {
		t.Fatalf("search: %v, %v", want, err)
	}
	old := map[string]string{}
	for k, v := range meta {
		if k != MetaModelSum {
			old[k] = v
		}
	}
	if got, err := search(old); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("without a recorded checksum: %v, %v; want %v", got, err, want)
	}
	good, _ := os.ReadFile(modelFile)
	bad := slices.Clone(good)
	bad[len(bad)/2] ^= 0x40 // a vector's byte: same size, another model
	os.WriteFile(modelFile, bad, 0o644)
	if _, err := search(meta); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("a changed model file searched: %v", err)
	}
	if _, err := search(old); err == nil {
		t.Error("a changed model file searched without a recorded checksum")
	}
}
