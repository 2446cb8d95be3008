package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
)

// ONNX embeds with a local model directory holding model.onnx and
// tokenizer.json (a HuggingFace sentence-embedding export), run by hugot's
// pure-Go backend: the mean of the last hidden state over the attended
// tokens, L2-normalised. No native runtime, no download.
type ONNX struct {
	mu      sync.Mutex
	session *hugot.Session
	pipe    *pipelines.FeatureExtractionPipeline
	model   string
	dim     int
	batch   int
}

// NewONNX loads the model in dir.
func NewONNX(dir string) (*ONNX, error) {
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return nil, fmt.Errorf("onnx embedder: %s: %w (want model.onnx and tokenizer.json)", dir, err)
		}
	}
	sum, err := fileHash(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return nil, fmt.Errorf("onnx embedder: %w", err)
	}
	session, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("onnx embedder: start session: %w", err)
	}
	pipe, err := hugot.NewPipeline(session, hugot.FeatureExtractionConfig{
		ModelPath:    dir,
		Name:         "cairn-embed",
		OnnxFilename: "model.onnx",
		Options:      []hugot.FeatureExtractionOption{pipelines.WithNormalization()},
	})
	if err != nil {
		session.Destroy()
		return nil, fmt.Errorf("onnx embedder: load %s: %w", dir, err)
	}
	return &ONNX{session: session, pipe: pipe, model: "onnx:" + filepath.Base(dir) + ":" + sum, batch: 32}, nil
}

func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// Close releases the session.
func (o *ONNX) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.session != nil {
		o.session.Destroy()
		o.session = nil
	}
}

// Model implements Embedder.
func (o *ONNX) Model() string { return o.model }

// Dim implements Embedder (known after the first Embed).
func (o *ONNX) Dim() int { return o.dim }

// Embed implements Embedder.
func (o *ONNX) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.session == nil {
		return nil, fmt.Errorf("onnx embedder: closed")
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += o.batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := texts[start:min(start+o.batch, len(texts))]
		// The tokenizer ends the process on input it cannot encode, and an
		// empty batch crashes the backend: give it only clean, non-empty text.
		clean := make([]string, len(batch))
		for i, t := range batch {
			t = strings.ToValidUTF8(t, " ")
			if strings.TrimSpace(t) == "" {
				t = "."
			}
			clean[i] = t
		}
		res, err := o.pipe.RunPipeline(clean)
		if err != nil {
			return nil, fmt.Errorf("onnx embedder: %w", err)
		}
		if len(res.Embeddings) != len(clean) {
			return nil, fmt.Errorf("onnx embedder: %d vectors for %d texts", len(res.Embeddings), len(clean))
		}
		for _, v := range res.Embeddings {
			if o.dim == 0 {
				o.dim = len(v)
			}
			v = append([]float32(nil), v...)
			Normalize(v)
			out = append(out, v)
		}
	}
	return out, nil
}
