package embed

import (
	"context"
	"math"
)

// Embedder embeds texts.
type Embedder interface {
	// Model identifies the model and its version: vectors from embedders
	// with different Model strings are not comparable.
	Model() string
	// Dim is the vector length (0 until known, for remote models).
	Dim() int
	// Embed returns one vector per text, L2-normalised.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Normalize scales v to unit length in place (a zero vector stays zero).
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// Dot is the inner product of two vectors of equal length.
func Dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
