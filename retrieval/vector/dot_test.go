package vector

import (
	"container/heap"
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
		s := &segment{dim: dim, ids: make([]int64, n), scales: make([]float32, n)}
		vecs := make([]float32, n*dim)
		for i := range s.ids {
			s.ids[i] = int64(i + 1)
			w := 1.0
			for j := 0; j < dim; j++ {
				vecs[i*dim+j] = float32(rng.NormFloat64() * w)
				w *= decay
			}
		}
		s.data = make([]int8, n*dim)
		for i := range s.ids {
			s.scales[i] = quantize(vecs[i*dim:(i+1)*dim], s.data[i*dim:(i+1)*dim])
		}
		full := &segment{dim: dim, ids: s.ids, scales: s.scales, data: s.data}
		full.prepared.Do(func() {}) // never prepared: every product in full
		s.prepared.Do(s.measureTails)
		s.searches.Store(1) // bounded from its first search here
		for qi := 0; qi < 30; qi++ {
			q := make([]int8, dim)
			qv := make([]float32, dim)
			copy(qv, vecs[rng.IntN(n)*dim:])
			for j := range qv {
				qv[j] += float32(rng.NormFloat64() * 0.3)
			}
			qs := quantize(qv, q)
			for _, k := range []int{1, 10, 200} {
				a, b := &topK{}, &topK{}
				s.search(q, qs, k, a)
				full.search(q, qs, k, b)
				if len(*a) != len(*b) {
					t.Fatalf("decay %v k %d: %d vs %d hits", decay, k, len(*a), len(*b))
				}
				for len(*a) > 0 {
					x, y := heap.Pop(a).(Scored), heap.Pop(b).(Scored)
					if x != y {
						t.Fatalf("decay %v k %d: %v, full scan %v", decay, k, x, y)
					}
				}
			}
		}
	}
}

// TestPreparedAtTheSecondSearch: a segment searched once is not prepared
// for bounded scans (a one-shot process would pay more than it saves);
// the second search prepares it.
func TestPreparedAtTheSecondSearch(t *testing.T) {
	noSIMD(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const n, dim = 100, 128
	s := &segment{dim: dim, ids: make([]int64, n), scales: make([]float32, n), data: make([]int8, n*dim)}
	for i := range s.ids {
		s.ids[i] = int64(i + 1)
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		s.scales[i] = quantize(v, s.data[i*dim:(i+1)*dim])
	}
	q := make([]int8, dim)
	copy(q, s.data[:dim])
	s.search(q, 0.01, 5, &topK{})
	if s.tails != nil || s.head != nil {
		t.Fatal("prepared at the first search")
	}
	s.search(q, 0.01, 5, &topK{})
	if len(s.tails) != 2 || len(s.head) != n*dim/4 || len(s.mid) != n*dim/4 {
		t.Fatalf("not prepared at the second search: %d tails, head %d, mid %d", len(s.tails), len(s.head), len(s.mid))
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
	s := &segment{dim: dim, ids: make([]int64, n), scales: make([]float32, n), data: make([]int8, n*dim)}
	for i := range s.ids {
		s.ids[i] = int64(i + 1)
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		s.scales[i] = quantize(v, s.data[i*dim:(i+1)*dim])
	}
	for qi := 0; qi < 20; qi++ {
		q := make([]int8, dim)
		copy(q, s.data[rng.IntN(n)*dim:])
		a, b := &topK{}, &topK{}
		s.search(q, 0.01, 50, a)
		simd = false
		s.search(q, 0.01, 50, b)
		simd = true
		for len(*a) > 0 {
			if x, y := heap.Pop(a).(Scored), heap.Pop(b).(Scored); x != y {
				t.Fatalf("query %d: %v with the kernel, %v without", qi, x, y)
			}
		}
	}
}
