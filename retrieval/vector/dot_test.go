package vector

import (
	"math/rand/v2"
	"testing"
)

func naiveDot(r, q []int8) int32 {
	var acc int32
	for i := range q {
		acc += int32(r[i]) * int32(q[i])
	}
	return acc
}

// TestDot: the unrolled product equals the plain one at every length,
// extremes included.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 70; n++ {
		r, q := make([]int8, n), make([]int8, n)
		for i := range r {
			r[i], q[i] = int8(rng.IntN(256)-128), int8(rng.IntN(256)-128)
		}
		if n == 64 {
			for i := range r {
				r[i], q[i] = -128, -128
			}
		}
		if got, want := dot(r, q), naiveDot(r, q); got != want {
			t.Fatalf("n=%d: dot %d, want %d", n, got, want)
		}
	}
}

// BenchmarkDot scans 74,000 vectors of 128 dimensions (mono1m's chunks).
func BenchmarkDot(b *testing.B) {
	n, dim := 74000, 128
	data := make([]int8, n*dim)
	for i := range data {
		data[i] = int8(rand.IntN(256) - 128)
	}
	q := data[:dim]
	for _, v := range []struct {
		name string
		f    func(r, q []int8) int32
	}{{"plain", naiveDot}, {"unrolled", dot}} {
		b.Run(v.name, func(b *testing.B) {
			var s int32
			for b.Loop() {
				for i := 0; i < n; i++ {
					s += v.f(data[i*dim:(i+1)*dim], q)
				}
			}
			_ = s
		})
	}
}
