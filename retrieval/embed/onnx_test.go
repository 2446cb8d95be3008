package embed_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/embed/embedtest"
)

// TestONNXTinyBERT generates a small random-weight BERT encoder (one
// transformer layer: embeddings, self-attention, feed-forward, layer norm)
// and its WordPiece tokenizer, and embeds through hugot's pure-Go backend.
func TestONNXTinyBERT(t *testing.T) {
	dir := t.TempDir()
	cfg := embedtest.Config{Vocab: embedtest.DefaultVocab(), Hidden: 16, Heads: 2, Intermediate: 32, Layers: 1, MaxPositions: 64, Seed: 42}
	if err := embedtest.WriteDir(dir, cfg); err != nil {
		t.Fatal(err)
	}
	e, err := embed.NewONNX(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	texts := []string{"parse the file and return error", "http server client", "", strings.Repeat("read the file ", 40)}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) || e.Dim() != 16 {
		t.Fatalf("%d vectors of dim %d", len(vs), e.Dim())
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("vector %d has norm² %.4f", i, n)
		}
	}
	if embed.Dot(vs[0], vs[1]) > 0.9999 {
		t.Error("different texts gave the same vector")
	}
	// The same text alone gives the same vector as in a batch (masking).
	one, err := e.Embed(context.Background(), texts[:1])
	if err != nil {
		t.Fatal(err)
	}
	if d := embed.Dot(one[0], vs[0]); d < 0.9999 {
		t.Errorf("batched and single embeddings differ (cos %.5f)", d)
	}
	if !strings.HasPrefix(e.Model(), "onnx:") {
		t.Errorf("model %q", e.Model())
	}
	if _, err := embed.NewONNX(t.TempDir()); err == nil || !strings.Contains(err.Error(), "model.onnx") {
		t.Errorf("empty dir: %v", err)
	}
}
