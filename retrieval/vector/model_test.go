package vector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	a, err := loadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadModel(path)
	if err != nil || a != b {
		t.Fatalf("second load: %p, %v; want the model kept (%p)", b, err, a)
	}
	// The same name, rewritten (an epoch rebuilt from scratch).
	if err := train(2).Save(path); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	os.Chtimes(path, later, later)
	c, err := loadModel(path)
	if err != nil || c == a {
		t.Fatalf("after rewrite: %p, %v; want a fresh load", c, err)
	}
	if c.Model() == a.Model() {
		t.Errorf("reloaded model has the old fingerprint %s", c.Model())
	}
}
