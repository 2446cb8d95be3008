package embed

import (
	"context"
	"math/rand/v2"
	"testing"
)

// benchCSR is a random sparse V × V matrix with about perRow entries a row.
func benchCSR(V, perRow int) *csr {
	rng := rand.New(rand.NewPCG(7, 7))
	m := &csr{n: V, rowPtr: make([]int32, V+1)}
	for i := 0; i < V; i++ {
		c := 0
		for j := rng.IntN(V / perRow); j < V && c < perRow; j += 1 + rng.IntN(2*V/perRow) {
			m.col = append(m.col, int32(j))
			m.val = append(m.val, rng.Float32())
			c++
		}
		m.rowPtr[i+1] = int32(len(m.col))
	}
	return m
}

func BenchmarkRandomizedSVD(b *testing.B) {
	A := benchCSR(30000, 100)
	b.ResetTimer()
	for range b.N {
		if _, _, err := randomizedSVD(context.Background(), A, 128, 16, 2, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOrthonormalize(b *testing.B) {
	Y := randomDense(rand.New(rand.NewPCG(1, 1)), 30000, 144)
	for range b.N {
		orthonormalize(Y)
	}
}

func BenchmarkGramSchmidt(b *testing.B) {
	Y := randomDense(rand.New(rand.NewPCG(1, 1)), 30000, 144)
	for range b.N {
		gramSchmidt(Y)
	}
}
