package vector

import (
	"container/heap"
	"fmt"
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
	}{{"plain", naiveDot}, {"unrolled", dot}, {"simd", dotSIMD}} {
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

// TestBoundedScanIsExact: the scan with early exits finds exactly what
// the full scan finds, on vectors whose energy decays with the coordinate
// (as an SVD's do, the case the exits are for) and on flat ones (where
// they rarely fire), for small and large k.
func TestBoundedScanIsExact(t *testing.T) {
	noSIMD(t) // with AVX2 the full scan runs, and this test is for the other
	rng := rand.New(rand.NewPCG(3, 4))
	const n, dim = 4000, 128
	for _, decay := range []float64{0.97, 1} {
		s := randomSegment(rng, n, dim, decay)
		full := &segment{dim: dim, ids: s.ids, scales: s.scales, data: s.data}
		full.prepared.Do(func() {}) // never prepared: every product in full
		s.prepared.Do(s.prepare)
		s.searches.Store(1) // bounded from its first search here
		for qi := 0; qi < 30; qi++ {
			q := make([]int8, dim)
			qv := s.vectorAt(rng.IntN(n))
			for j := range qv {
				qv[j] += float32(rng.NormFloat64() * 0.3)
			}
			qs := quantize(qv, q)
			for _, k := range []int{1, 10, 200} {
				a, b := &topK{}, &topK{}
				s.search(q, qs, k, a)
				full.search(q, qs, k, b)
				sameTop(t, fmt.Sprintf("decay %v k %d", decay, k), a, b)
			}
		}
	}
}

// TestPreparedAtTheSecondSearch: a segment searched once is not prepared
// for bounded scans (a one-shot process would pay more than it saves);
// the second search prepares it.
func TestPreparedAtTheSecondSearch(t *testing.T) {
	noSIMD(t)
	const n, dim = 100, 128
	s := randomSegment(rand.New(rand.NewPCG(5, 6)), n, dim, 1)
	q := make([]int8, dim)
	copy(q, s.data[:dim])
	s.search(q, 0.01, 5, &topK{})
	if s.c1 != 0 || s.head != nil {
		t.Fatal("prepared at the first search")
	}
	s.search(q, 0.01, 5, &topK{})
	if s.c1 != dim/2 || len(s.tails[1]) != n || len(s.head) != n*dim/4 || len(s.mid) != n*dim/4 {
		t.Fatalf("not prepared at the second search: cut at %d, %d tails, head %d, mid %d", s.c1, len(s.tails[1]), len(s.head), len(s.mid))
	}
}

// TestDotSIMD: the vector kernel equals the plain product at every length
// (multiples of 32 and the remainders after them), over the whole range of
// stored values and the query's (-127..127: quantize never makes -128).
func TestDotSIMD(t *testing.T) {
	if !simd {
		t.Skip("no vector kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 200; n++ {
		for rep := 0; rep < 20; rep++ {
			r, q := make([]int8, n+7), make([]int8, n)
			for i := range r {
				r[i] = int8(rng.IntN(256) - 128)
			}
			for i := range q {
				q[i] = int8(rng.IntN(255) - 127)
			}
			if rep == 0 {
				for i := range q {
					r[i], q[i] = -128, 127
				}
			}
			if rep == 1 {
				for i := range q {
					r[i], q[i] = -127, -127
				}
			}
			if got, want := dotSIMD(r, q), naiveDot(r, q); got != want {
				t.Fatalf("n=%d rep=%d: %d, want %d", n, rep, got, want)
			}
		}
	}
}

// noSIMD makes the scan use the plain products for the rest of the test.
func noSIMD(t *testing.T) {
	old := simd
	simd = false
	t.Cleanup(func() { simd = old })
}

// TestSIMDScanIsExact: the scan with the vector kernel finds exactly what
// the plain one finds.
func TestSIMDScanIsExact(t *testing.T) {
	if !simd {
		t.Skip("no vector kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	const n, dim = 3000, 96
	s := randomSegment(rng, n, dim, 1)
	for qi := 0; qi < 20; qi++ {
		q := make([]int8, dim)
		copy(q, s.data[rng.IntN(n)*dim:])
		a, b := &topK{}, &topK{}
		s.search(q, 0.01, 50, a)
		simd = false
		s.search(q, 0.01, 50, b)
		simd = true
		sameTop(t, fmt.Sprintf("query %d, with the kernel and without", qi), a, b)
	}
}

// randomSegment holds n quantised random vectors whose coordinates'
// spread shrinks by decay from one to the next (1: all alike).
func randomSegment(rng *rand.Rand, n, dim int, decay float64) *segment {
	s := &segment{dim: dim, ids: make([]int64, n), scales: make([]float32, n), data: make([]int8, n*dim)}
	v := make([]float32, dim)
	for i := range s.ids {
		s.ids[i] = int64(i + 1)
		w := 1.0
		for j := range v {
			v[j] = float32(rng.NormFloat64() * w)
			w *= decay
		}
		s.scales[i] = quantize(v, s.data[i*dim:(i+1)*dim])
	}
	return s
}

// sameTop fails unless two scans kept the same hits.
func sameTop(t *testing.T, what string, a, b *topK) {
	t.Helper()
	if len(*a) != len(*b) {
		t.Fatalf("%s: %d vs %d hits", what, len(*a), len(*b))
	}
	for len(*a) > 0 {
		if x, y := heap.Pop(a).(Scored), heap.Pop(b).(Scored); x != y {
			t.Fatalf("%s: %v against %v", what, x, y)
		}
	}
}
