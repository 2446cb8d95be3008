package embed

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomDense(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return m
}

// checkBasis fails unless Q's nonzero columns are orthonormal, there are
// want of them, and they span Y's columns.
func checkBasis(t *testing.T, Y, Q *mat.Dense, want int) {
	t.Helper()
	var G mat.Dense
	G.Mul(Q.T(), Q)
	_, l := Q.Dims()
	rank := 0
	for i := 0; i < l; i++ {
		if G.At(i, i) > 0.5 {
			rank++
		}
		for j := 0; j < l; j++ {
			want := 0.0
			if i == j && G.At(i, i) > 0.5 {
				want = 1
			}
			if d := math.Abs(G.At(i, j) - want); d > 1e-10 {
				t.Fatalf("QᵀQ[%d,%d] = %g, want %g", i, j, G.At(i, j), want)
			}
		}
	}
	if rank != want {
		t.Fatalf("rank %d, want %d", rank, want)
	}
	var P, R mat.Dense
	P.Mul(Q.T(), Y)
	R.Mul(Q, &P)
	R.Sub(&R, Y)
	if n := mat.Norm(&R, 2) / mat.Norm(Y, 2); n > 1e-10 {
		t.Fatalf("Q does not span Y: residual %g", n)
	}
}

func TestOrthonormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	Y := randomDense(rng, 501, 40)
	checkBasis(t, Y, orthonormalize(Y), 40)
	checkBasis(t, Y, gramSchmidt(Y), 40)
	if Q := mat.DenseCopyOf(Y); !choleskyQRStep(Q) {
		t.Fatal("Cholesky QR refused a well-conditioned block")
	}
	// A column that repeats another: the Gram matrix is singular, Cholesky
	// QR refuses it and Gram-Schmidt gives a zero column in its place.
	for i := 0; i < 501; i++ {
		Y.Set(i, 7, Y.At(i, 3))
	}
	if Q := mat.DenseCopyOf(Y); choleskyQRStep(Q) {
		t.Fatal("Cholesky QR accepted a rank-deficient block")
	}
	checkBasis(t, Y, orthonormalize(Y), 39)
}

func TestMulDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n, l = 97, 6
	A := mat.NewDense(n, n, nil)
	m := &csr{n: n, rowPtr: make([]int32, n+1)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if rng.IntN(9) == 0 {
				v := rng.Float32()
				A.Set(i, j, float64(v))
				m.col = append(m.col, int32(j))
				m.val = append(m.val, v)
			}
		}
		m.rowPtr[i+1] = int32(len(m.col))
	}
	X := randomDense(rng, n, l)
	for _, c := range []struct {
		name string
		a    *csr
		want mat.Matrix
	}{{"A", m, A}, {"Aᵀ", m.transpose(), A.T()}} {
		var want, diff mat.Dense
		want.Mul(c.want, X)
		diff.Sub(c.a.mulDense(X), &want)
		if d := mat.Norm(&diff, 1); d > 1e-9 {
			t.Errorf("%s·X differs from the dense product by %g", c.name, d)
		}
	}
}

// ppmiFull is ppmiMatrix as it was over both directions of every pair:
// the reference the halved map must agree with.
func ppmiFull(pairs map[uint32]float32, V int, alpha float64) *csr {
	rowSum := make([]float64, V)
	colSum := make([]float64, V)
	var total float64
	keys := make([]uint32, 0, len(pairs))
	for k, c := range pairs {
		keys = append(keys, k)
		rowSum[int(k)/V] += float64(c)
		colSum[int(k)%V] += float64(c)
		total += float64(c)
	}
	slices.Sort(keys)
	var smooth float64
	colPow := make([]float64, V)
	for i, c := range colSum {
		colPow[i] = math.Pow(c, alpha)
		smooth += colPow[i]
	}
	m := &csr{n: V, rowPtr: make([]int32, V+1)}
	for _, k := range keys {
		w, c := int(k)/V, int(k)%V
		v := math.Log((float64(pairs[k]) / total) / ((rowSum[w] / total) * (colPow[c] / smooth)))
		if v <= 0 {
			continue
		}
		m.col = append(m.col, int32(c))
		m.val = append(m.val, float32(v))
		m.rowPtr[w+1]++
	}
	for i := 0; i < V; i++ {
		m.rowPtr[i+1] += m.rowPtr[i]
	}
	return m
}

func TestPPMIMatrixHalvedPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const V = 60
	half, full := map[uint32]float32{}, map[uint32]float32{}
	for range 900 {
		a, b := rng.IntN(V), rng.IntN(V)
		if a == b {
			continue
		}
		n := float32(1) / float32(1+rng.IntN(4))
		lo, hi := min(a, b), max(a, b)
		half[uint32(lo*V+hi)] += n
		full[uint32(a*V+b)] += n
		full[uint32(b*V+a)] += n
	}
	got, want := ppmiMatrix(half, V, 0.75), ppmiFull(full, V, 0.75)
	if !slices.Equal(got.rowPtr, want.rowPtr) || !slices.Equal(got.col, want.col) {
		t.Fatalf("the halved map gives another sparsity pattern:\n got %v\nwant %v", got.rowPtr, want.rowPtr)
	}
	for i := range got.val {
		if math.Abs(float64(got.val[i]-want.val[i])) > 1e-5 {
			t.Fatalf("value %d: %g, want %g", i, got.val[i], want.val[i])
		}
	}
	if len(got.col) < 300 {
		t.Fatalf("only %d entries: the test says little", len(got.col))
	}
}
