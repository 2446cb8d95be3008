package embed

import (
	"context"
	"os"
	"slices"
	"testing"
)

// TestSpilledTrainerSameModel: a trainer whose documents spill to a file
// trains the same model and embeds every document the same as one that
// keeps them in memory, while what it holds in memory stays below the
// spill threshold (plus one document) however many documents come.
func TestSpilledTrainerSameModel(t *testing.T) {
	opts := PPMIOptions{Dim: 8, Oversample: 4, MinCount: 1}
	mem := NewTrainer(opts)
	opts.SpillDir = t.TempDir()
	spill := NewTrainer(opts)
	spill.docs.spillAt = 256
	docs := corpus(400)
	docs = append(docs, docs[:50]...) // identical documents: ties in contentOrder
	maxBuf := 0
	for _, d := range docs {
		mem.Add(d)
		spill.Add(d)
		maxBuf = max(maxBuf, len(spill.docs.buf))
	}
	if spill.docs.spilled == 0 {
		t.Fatal("nothing spilled")
	}
	if maxBuf > 256+4096 {
		t.Errorf("in-memory buffer reached %d bytes, spill threshold 256", maxBuf)
	}
	m1, err := mem.Train(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m2, err := spill.Train(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m1.Model() != m2.Model() {
		t.Fatalf("models differ: %s in memory, %s spilled", m1.Model(), m2.Model())
	}
	for i := range docs {
		a, err1 := mem.EmbedDoc(i)
		b, err2 := spill.EmbedDoc(i)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("document %d embeds differently", i)
		}
	}
	name := spill.docs.file.Name()
	spill.Close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("spill file %s left behind (%v)", name, err)
	}
}
