package embed

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// PPMIOptions tune training of the built-in embedder.
type PPMIOptions struct {
	Dim        int     // vector length; default 128
	Vocab      int     // most frequent terms kept; default 30000
	MinCount   int     // rarer terms are dropped; default 3
	Window     int     // co-occurrence window each side; default 4
	Subsample  float64 // frequent-term subsampling threshold; default 1e-4
	Alpha      float64 // context distribution smoothing; default 0.75
	Power      int     // power iterations of the randomized SVD; default 2
	MaxTokens  int     // tokens used for co-occurrence counts; default 8M
	SIF        float64 // smooth-inverse-frequency constant; default 1e-3
	Seed       uint64  // randomness (deterministic for a seed); default 1
	Oversample int     // extra SVD dimensions; default 16
	// SpillDir, when set, is where the trainer keeps the documents' terms
	// once they pass a few megabytes (docstore.go), instead of memory.
	SpillDir string
}

func (o *PPMIOptions) defaults() {
	o.Dim = cmp.Or(o.Dim, 128)
	o.Vocab = cmp.Or(o.Vocab, 30000)
	o.MinCount = cmp.Or(o.MinCount, 3)
	o.Window = cmp.Or(o.Window, 4)
	o.Subsample = cmp.Or(o.Subsample, 1e-4)
	o.Alpha = cmp.Or(o.Alpha, 0.75)
	o.Power = cmp.Or(o.Power, 2)
	o.MaxTokens = cmp.Or(o.MaxTokens, 8_000_000)
	o.SIF = cmp.Or(o.SIF, 1e-3)
	o.Seed = cmp.Or(o.Seed, 1)
	o.Oversample = cmp.Or(o.Oversample, 16)
}

// Terms are what the built-in embedder sees of a text: identifier parts
// (an identifier made of several parts counts by its parts only) and
// stemmed words, stop words dropped.
func Terms(text []byte, fn func(string)) {
	var pending string
	tokens.Text(text, func(t tokens.Token) {
		if t.Part {
			pending = "" // the whole identifier gives way to its parts
			fn(t.Term)
			return
		}
		if pending != "" {
			fn(pending)
		}
		pending = t.Term
	})
	if pending != "" {
		fn(pending)
	}
}

// Trainer collects documents, trains a PPMI model on them, and embeds them.
type Trainer struct {
	opts   PPMIOptions
	ids    map[string]int32
	terms  []string
	counts []int64
	docs   docStore
	seq    []int32 // Add's scratch
	// set by Train
	remap []int32
	model *PPMI
}

// NewTrainer returns an empty trainer.
func NewTrainer(opts PPMIOptions) *Trainer {
	opts.defaults()
	return &Trainer{opts: opts, ids: map[string]int32{}, docs: docStore{dir: opts.SpillDir, spillAt: defaultSpillAt}}
}

// Close removes the documents' spill file, if any.
func (t *Trainer) Close() { t.docs.close() }

// Add records a document and returns its index.
func (t *Trainer) Add(text string) int {
	seq := t.seq[:0]
	h := uint64(14695981039346656037) // contentOrder's key: FNV-1a of the terms
	Terms([]byte(text), func(term string) {
		id, ok := t.ids[term]
		if !ok {
			id = int32(len(t.terms))
			t.ids[term] = id
			t.terms = append(t.terms, term)
			t.counts = append(t.counts, 0)
		}
		t.counts[id]++
		seq = append(seq, id)
		for i := 0; i < len(term); i++ {
			h = (h ^ uint64(term[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	})
	t.seq = seq
	t.docs.add(seq, h)
	return t.docs.len() - 1
}

// Docs is the number of documents added.
func (t *Trainer) Docs() int { return t.docs.len() }

// PPMI is a trained model.
type PPMI struct {
	dim    int
	words  map[string]int32
	vecs   []float32 // len(words) × dim; nil in a loaded model, which has raw
	raw    []byte    // a loaded model's vectors as the file holds them (little-endian)
	weight []float32 // SIF weight per word
	pc     []float32 // common component
	model  string
}

// ErrTooLittleText: the repository has too little text to train on.
var ErrTooLittleText = errors.New("too little text to train an embedding model")

// Train builds the model from the documents added so far.
func (t *Trainer) Train(ctx context.Context) (*PPMI, error) {
	o := t.opts
	if t.docs.err != nil {
		return nil, t.docs.err
	}
	// Vocabulary: the most frequent terms, ties broken by spelling.
	order := make([]int32, 0, len(t.terms))
	for id, c := range t.counts {
		if c >= int64(o.MinCount) {
			order = append(order, int32(id))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(t.counts[b], t.counts[a]), cmp.Compare(t.terms[a], t.terms[b]))
	})
	if len(order) > o.Vocab {
		order = order[:o.Vocab]
	}
	V := len(order)
	if V < o.Dim+o.Oversample+8 {
		return nil, fmt.Errorf("%w (%d terms)", ErrTooLittleText, V)
	}
	remap := make([]int32, len(t.terms))
	for i := range remap {
		remap[i] = -1
	}
	var total int64
	for newID, old := range order {
		remap[old] = int32(newID)
		total += t.counts[old]
	}
	freq := make([]float64, V)
	for newID, old := range order {
		freq[newID] = float64(t.counts[old]) / float64(total)
	}
	// Co-occurrences in a window, frequent terms subsampled.
	rng := rand.New(rand.NewPCG(o.Seed, 2))
	keep := make([]float64, V)
	for i, f := range freq {
		keep[i] = min(1, math.Sqrt(o.Subsample/f)+o.Subsample/f)
	}
	pairs := make(map[uint32]float32, 1<<20)
	used := 0
	buf := make([]int32, 0, 1024)
	// Documents arrive in the order parallel workers finish files: visit
	// them in an order of their own content, so the model depends on the
	// repository only.
	docOrder, err := t.contentOrder()
	if err != nil {
		return nil, err
	}
	var doc []int32
	var scratch []byte
	for _, di := range docOrder {
		if used >= o.MaxTokens {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if doc, err = t.docs.doc(di, doc[:0], &scratch); err != nil {
			return nil, err
		}
		buf = buf[:0]
		for _, old := range doc {
			if id := remap[old]; id >= 0 && rng.Float64() < keep[id] {
				buf = append(buf, id)
			}
		}
		used += len(buf)
		for i, w := range buf {
			for j := i + 1; j < len(buf) && j <= i+o.Window; j++ {
				c := buf[j]
				if c == w {
					continue
				}
				lo, hi := min(w, c), max(w, c)
				pairs[uint32(lo)*uint32(V)+uint32(hi)] += float32(1) / float32(j-i)
			}
		}
	}
	if len(pairs) == 0 {
		return nil, ErrTooLittleText
	}
	A := ppmiMatrix(pairs, V, o.Alpha)
	pairs = nil
	U, S, err := randomizedSVD(ctx, A, o.Dim, o.Oversample, o.Power, o.Seed)
	if err != nil {
		return nil, err
	}
	m := &PPMI{dim: o.Dim, words: make(map[string]int32, V), vecs: make([]float32, V*o.Dim), weight: make([]float32, V)}
	for newID, old := range order {
		m.words[t.terms[old]] = int32(newID)
		m.weight[newID] = float32(o.SIF / (o.SIF + freq[newID]))
		row := m.vecs[newID*o.Dim : (newID+1)*o.Dim]
		for k := 0; k < o.Dim; k++ {
			row[k] = float32(U.At(newID, k) * math.Sqrt(S[k]))
		}
		Normalize(row)
	}
	// The common component of document vectors, from a sample.
	var sample [][]float32
	step := max(1, t.docs.len()/20000)
	for i := 0; i < len(docOrder); i += step {
		if doc, err = t.docs.doc(docOrder[i], doc[:0], &scratch); err != nil {
			return nil, err
		}
		if v := m.average(doc, remap); v != nil {
			sample = append(sample, v)
		}
	}
	m.pc = firstComponent(sample, o.Dim)
	m.model = m.fingerprint()
	t.remap = remap
	t.model = m
	return m, nil
}

// contentOrder lists the documents sorted by a hash of their terms (ties:
// by the terms themselves), whatever order they were added in.
func (t *Trainer) contentOrder() ([]int, error) {
	type keyed struct {
		h uint64
		i int
	}
	ks := make([]keyed, t.docs.len())
	for i, h := range t.docs.hash {
		ks[i] = keyed{h, i}
	}
	var da, db []int32
	var sa, sb []byte
	var err error
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.h, b.h); c != 0 || err != nil {
			return c
		}
		if da, err = t.docs.doc(a.i, da[:0], &sa); err != nil {
			return 0
		}
		if db, err = t.docs.doc(b.i, db[:0], &sb); err != nil {
			return 0
		}
		for k := 0; k < min(len(da), len(db)); k++ {
			if c := strings.Compare(t.terms[da[k]], t.terms[db[k]]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(da), len(db))
	})
	if err != nil {
		return nil, err
	}
	out := make([]int, len(ks))
	for i, k := range ks {
		out[i] = k.i
	}
	return out, nil
}

// EmbedDoc embeds an added document with the trained model. It is safe
// for concurrent use.
func (t *Trainer) EmbedDoc(i int) ([]float32, error) {
	var scratch []byte
	doc, err := t.docs.doc(i, nil, &scratch)
	if err != nil {
		return nil, err
	}
	v := t.model.average(doc, t.remap)
	if v == nil {
		return make([]float32, t.model.dim), nil
	}
	t.model.finish(v)
	return v, nil
}

// csr is a sparse matrix in compressed sparse row form.
type csr struct {
	n      int
	rowPtr []int32
	col    []int32
	val    []float32
}

// ppmiMatrix turns co-occurrence counts into positive PMI values with
// context distribution smoothing. Counts are symmetric, so pairs holds
// each unordered pair once, under lo·V + hi (lo < hi), and stands for
// both (lo, hi) and (hi, lo): half the map a full one would take, and half
// the map updates while counting. The values still differ by direction
// (the context's count is smoothed, the word's is not).
func ppmiMatrix(pairs map[uint32]float32, V int, alpha float64) *csr {
	sum := make([]float64, V) // row and column sums are the same
	var total float64
	keys := make([]uint32, 0, len(pairs))
	for k, c := range pairs {
		keys = append(keys, k)
		lo, hi := int(k)/V, int(k)%V
		sum[lo] += float64(c)
		sum[hi] += float64(c)
		total += 2 * float64(c)
	}
	slices.Sort(keys)
	var smooth float64
	colPow := make([]float64, V)
	for i, c := range sum {
		colPow[i] = math.Pow(c, alpha)
		smooth += colPow[i]
	}
	pmi := func(w, c int, n float32) float32 {
		v := math.Log((float64(n) / total) / ((sum[w] / total) * (colPow[c] / smooth)))
		return float32(max(v, 0))
	}
	// A row's entries below the diagonal come from keys whose hi is the
	// row, in ascending lo when keys are sorted; those above from keys
	// whose lo is the row, in ascending hi: below first, then above, and
	// each row's columns ascend.
	below := make([]float32, len(keys)) // (hi, lo)
	above := make([]float32, len(keys)) // (lo, hi)
	nBelow := make([]int32, V)
	m := &csr{n: V, rowPtr: make([]int32, V+1)}
	for i, k := range keys {
		lo, hi := int(k)/V, int(k)%V
		n := pairs[k]
		if below[i] = pmi(hi, lo, n); below[i] > 0 {
			nBelow[hi]++
			m.rowPtr[hi+1]++
		}
		if above[i] = pmi(lo, hi, n); above[i] > 0 {
			m.rowPtr[lo+1]++
		}
	}
	for i := 0; i < V; i++ {
		m.rowPtr[i+1] += m.rowPtr[i]
	}
	nnz := m.rowPtr[V]
	m.col, m.val = make([]int32, nnz), make([]float32, nnz)
	nextBelow := slices.Clone(m.rowPtr[:V])
	nextAbove := make([]int32, V)
	for r := range nextAbove {
		nextAbove[r] = m.rowPtr[r] + nBelow[r]
	}
	for i, k := range keys {
		lo, hi := int32(int(k)/V), int32(int(k)%V)
		if below[i] > 0 {
			m.col[nextBelow[hi]], m.val[nextBelow[hi]] = lo, below[i]
			nextBelow[hi]++
		}
		if above[i] > 0 {
			m.col[nextAbove[lo]], m.val[nextAbove[lo]] = hi, above[i]
			nextAbove[lo]++
		}
	}
	return m
}

// transpose returns Aᵀ in the same form (columns ascending in each row).
func (a *csr) transpose() *csr {
	t := &csr{n: a.n, rowPtr: make([]int32, a.n+1), col: make([]int32, len(a.col)), val: make([]float32, len(a.val))}
	for _, c := range a.col {
		t.rowPtr[c+1]++
	}
	for i := 0; i < a.n; i++ {
		t.rowPtr[i+1] += t.rowPtr[i]
	}
	next := slices.Clone(t.rowPtr[:a.n])
	for i := 0; i < a.n; i++ {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			c := a.col[k]
			t.col[next[c]] = int32(i)
			t.val[next[c]] = a.val[k]
			next[c]++
		}
	}
	return t
}

// mulDense returns A·X for dense X (n × l): each output row gathers the
// rows of X its entries name (one row stays in cache while it is
// summed), two goroutines taking alternate rows. Aᵀ·X is
// a.transpose().mulDense(X), gathered the same way rather than scattered.
func (a *csr) mulDense(X *mat.Dense) *mat.Dense {
	_, l := X.Dims()
	x := X.RawMatrix()
	out := mat.NewDense(a.n, l, nil)
	o := out.RawMatrix()
	const parts = 2
	impl := blas64.Implementation()
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := p; i < a.n; i += parts {
				dst := o.Data[i*o.Stride : i*o.Stride+l]
				for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
					j := int(a.col[k])
					impl.Daxpy(l, float64(a.val[k]), x.Data[j*x.Stride:j*x.Stride+l], 1, dst, 1)
				}
			}
		}(p)
	}
	wg.Wait()
	return out
}

// orthonormalize returns an orthonormal basis of Y's columns (thin, n × l).
// It tries Cholesky QR twice (CholeskyQR2: Q = Y R⁻¹ where RᵀR = YᵀY, then
// once more on Q), which is matrix products and a triangular solve —
// blocked, cache-friendly work — and as accurate as Householder QR while
// Y's condition number stays well below 10⁸, as it does for the products
// of a PPMI matrix with an orthonormal or Gaussian block here. When the
// Gram matrix is not positive definite (Y rank-deficient or too badly
// conditioned) it falls back to Gram-Schmidt.
func orthonormalize(Y *mat.Dense) *mat.Dense {
	Q := mat.DenseCopyOf(Y)
	for pass := 0; pass < 2; pass++ {
		if !choleskyQRStep(Q) {
			return gramSchmidt(Y)
		}
	}
	return Q
}

// choleskyQRStep replaces Q's columns by Q R⁻¹, RᵀR = QᵀQ; false (Q then
// undefined) when QᵀQ is not numerically positive definite.
func choleskyQRStep(Q *mat.Dense) bool {
	_, l := Q.Dims()
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(l, gram(Q))) {
		return false
	}
	var R mat.TriDense
	ch.UTo(&R)
	r := R.RawTriangular()
	for i := 0; i < l; i++ {
		if d := r.Data[i*r.Stride+i]; !(d > 1e-10*r.Data[0]) {
			return false
		}
	}
	// Rows solve independently: two goroutines, half the rows each.
	q := Q.RawMatrix()
	half := q.Rows / 2
	var wg sync.WaitGroup
	for _, part := range [2][2]int{{0, half}, {half, q.Rows}} {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			if hi > lo {
				blas64.Implementation().Dtrsm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, hi-lo, l, 1, r.Data, r.Stride, q.Data[lo*q.Stride:], q.Stride)
			}
		}(part[0], part[1])
	}
	wg.Wait()
	return true
}

// gram returns QᵀQ (l × l, row-major, upper triangle filled, which is
// all a SymDense reads) as a sum of the rows' outer products: Q is read
// once, row by row, and the l × l result stays in cache (gonum's Dgemm
// for Qᵀ·Q took 2.4× as long as Gram-Schmidt here). Two goroutines.
func gram(Q *mat.Dense) []float64 {
	n, l := Q.Dims()
	q := Q.RawMatrix()
	parts := [2][]float64{make([]float64, l*l), make([]float64, l*l)}
	impl := blas64.Implementation()
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			g := parts[p]
			for i := p * n / 2; i < (p+1)*n/2; i++ {
				row := q.Data[i*q.Stride : i*q.Stride+l]
				for a, v := range row {
					if v != 0 {
						impl.Daxpy(l-a, v, row[a:], 1, g[a*l+a:a*l+l], 1)
					}
				}
			}
		}(p)
	}
	wg.Wait()
	floats.Add(parts[0], parts[1])
	return parts[0]
}

// gramSchmidt returns an orthonormal basis of Y's columns by modified
// Gram-Schmidt applied twice; a column dependent on the earlier ones
// comes out zero.
func gramSchmidt(Y *mat.Dense) *mat.Dense {
	n, l := Y.Dims()
	cols := make([][]float64, l)
	raw := Y.RawMatrix()
	for j := range cols {
		c := make([]float64, n)
		for i := 0; i < n; i++ {
			c[i] = raw.Data[i*raw.Stride+j]
		}
		cols[j] = c
	}
	for j := 0; j < l; j++ {
		c := cols[j]
		for pass := 0; pass < 2; pass++ {
			for k := 0; k < j; k++ {
				q := cols[k]
				floats.AddScaled(c, -floats.Dot(c, q), q)
			}
		}
		norm := math.Sqrt(floats.Dot(c, c))
		if norm < 1e-12 {
			clear(c)
			continue
		}
		floats.Scale(1/norm, c)
	}
	Q := mat.NewDense(n, l, nil)
	qr := Q.RawMatrix()
	for j, c := range cols {
		for i := 0; i < n; i++ {
			qr.Data[i*qr.Stride+j] = c[i]
		}
	}
	return Q
}

// randomizedSVD returns the top-k left singular vectors and values of A.
func randomizedSVD(ctx context.Context, A *csr, k, oversample, power int, seed uint64) (*mat.Dense, []float64, error) {
	l := k + oversample
	rng := rand.New(rand.NewPCG(seed, 3))
	omega := mat.NewDense(A.n, l, nil)
	raw := omega.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	At := A.transpose()
	Y := A.mulDense(omega)
	for q := 0; q < power; q++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		Q := orthonormalize(Y)
		Z := orthonormalize(At.mulDense(Q))
		Y = A.mulDense(Z)
	}
	Q := orthonormalize(Y)
	// B = Qᵀ A, computed as (Aᵀ Q)ᵀ
	Bt := At.mulDense(Q) // n × l
	var svd mat.SVD
	if ok := svd.Factorize(Bt.T(), mat.SVDThin); !ok {
		return nil, nil, errors.New("embedding training: SVD did not converge")
	}
	var Ub mat.Dense
	svd.UTo(&Ub) // l × l
	S := svd.Values(nil)
	var U mat.Dense
	U.Mul(Q, &Ub) // n × l
	return &U, S[:k], nil
}

// firstComponent is the dominant direction of vs (power iteration).
func firstComponent(vs [][]float32, dim int) []float32 {
	pc := make([]float32, dim)
	if len(vs) == 0 {
		return pc
	}
	for i := range pc {
		pc[i] = 1 / float32(math.Sqrt(float64(dim)))
	}
	for it := 0; it < 30; it++ {
		next := make([]float32, dim)
		for _, v := range vs {
			d := Dot(v, pc)
			for i := range next {
				next[i] += d * v[i]
			}
		}
		Normalize(next)
		pc = next
	}
	return pc
}

// average is the SIF-weighted mean of a document's word vectors (ids in the
// trainer's provisional numbering when remap is given), or nil.
func (m *PPMI) average(doc []int32, remap []int32) []float32 {
	v := make([]float32, m.dim)
	var buf []float32
	n := 0
	for _, id := range doc {
		if remap != nil {
			id = remap[id]
		}
		if id < 0 {
			continue
		}
		w := m.weight[id]
		row := m.row(id, &buf)
		for i := range v {
			v[i] += w * row[i]
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return v
}

// row is word id's vector: a slice of vecs, or for a loaded model decoded
// from the file's bytes into *buf (allocated on first use). A one-shot
// search embeds a query of a few words; decoding every vector at load was
// most of the model's load time.
func (m *PPMI) row(id int32, buf *[]float32) []float32 {
	if m.vecs != nil {
		return m.vecs[int(id)*m.dim : (int(id)+1)*m.dim]
	}
	if *buf == nil {
		*buf = make([]float32, m.dim)
	}
	r, b := *buf, m.raw[4*int(id)*m.dim:]
	for i := range r {
		r[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return r
}

// finish removes the common component and normalises.
func (m *PPMI) finish(v []float32) {
	if m.pc != nil {
		d := Dot(v, m.pc)
		for i := range v {
			v[i] -= d * m.pc[i]
		}
	}
	Normalize(v)
}

// Model implements Embedder.
func (m *PPMI) Model() string { return m.model }

// Dim implements Embedder.
func (m *PPMI) Dim() int { return m.dim }

// Embed implements Embedder.
func (m *PPMI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		var ids []int32
		Terms([]byte(t), func(term string) {
			if id, ok := m.words[term]; ok {
				ids = append(ids, id)
			}
		})
		v := m.average(ids, nil)
		if v == nil {
			v = make([]float32, m.dim)
		} else {
			m.finish(v)
		}
		out[i] = v
	}
	return out, nil
}

const ppmiMagic = "CAIRN-PPMI-1\n"

// Save writes the model.
func (m *PPMI) Save(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("save embedding model: %w", err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(ppmiMagic)
	words := make([]string, len(m.words))
	for t, id := range m.words {
		words[id] = t
	}
	binary.Write(w, binary.LittleEndian, uint32(len(words)))
	binary.Write(w, binary.LittleEndian, uint32(m.dim))
	for _, t := range words {
		binary.Write(w, binary.LittleEndian, uint16(len(t)))
		w.WriteString(t)
	}
	binary.Write(w, binary.LittleEndian, m.weight)
	w.Write(m.vecBytes())
	binary.Write(w, binary.LittleEndian, m.pc)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("save embedding model: %w", err)
	}
	return f.Close()
}

// LoadPPMI reads a model written by Save, and names it by the hash of its
// content (Model).
func LoadPPMI(path string) (*PPMI, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	return parsePPMI(path, b, "")
}

// FileSum is the checksum LoadPPMIKnown checks a model file against: the
// CRC-32C of its bytes.
func FileSum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// LoadPPMIKnown reads a model file that was recorded, when it was written,
// as model with the FileSum sum. The file's bytes are checked against sum
// (hardware CRC-32C: under a millisecond for a 13 MB model) instead of
// being hashed again with SHA-256 for the name, which was a tenth of a
// one-shot search's CPU. A file whose sum differs is an error, as a
// different name is for LoadPPMI.
func LoadPPMIKnown(path, model string, sum uint32) (*PPMI, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	if got := FileSum(b); got != sum {
		return nil, fmt.Errorf("load embedding model %s: checksum %08x, recorded %08x", path, got, sum)
	}
	if model == "" {
		return nil, fmt.Errorf("load embedding model %s: no model name recorded", path)
	}
	return parsePPMI(path, b, model)
}

// parsePPMI decodes a model file's bytes; model is its name when known,
// else the name is computed from the content.
func parsePPMI(path string, b []byte, model string) (*PPMI, error) {
	if len(b) < len(ppmiMagic) || string(b[:len(ppmiMagic)]) != ppmiMagic {
		return nil, fmt.Errorf("load embedding model %s: not a cairn PPMI model", path)
	}
	r := &byteReader{b: b[len(ppmiMagic):]}
	var n, dim uint32
	r.read(&n)
	r.read(&dim)
	if r.err != nil || n > 1<<22 || dim == 0 || dim > 4096 {
		return nil, fmt.Errorf("load embedding model %s: corrupt header", path)
	}
	m := &PPMI{dim: int(dim), words: make(map[string]int32, n), weight: make([]float32, n), pc: make([]float32, dim)}
	for i := uint32(0); i < n && r.err == nil; i++ {
		var l uint16
		r.read(&l)
		if int(l) > len(r.b) {
			r.err = io.ErrUnexpectedEOF
			break
		}
		m.words[string(r.b[:l])] = int32(i)
		r.b = r.b[l:]
	}
	r.read(m.weight)
	if nv := 4 * int(n) * int(dim); r.err == nil && nv <= len(r.b) {
		m.raw, r.b = r.b[:nv:nv], r.b[nv:]
	} else if r.err == nil {
		r.err = io.ErrUnexpectedEOF
	}
	rawPC := r.b
	r.read(m.pc)
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("load embedding model %s: corrupt or truncated", path)
	}
	// the file holds the vectors little-endian already: hash its bytes
	// (encoding them again was a third of a one-shot search's CPU)
	m.model = model
	if m.model == "" {
		m.model = fingerprintOf(uint32(m.dim), m.raw, rawPC[:4*len(m.pc)])
	}
	return m, nil
}

type byteReader struct {
	b   []byte
	err error
}

func (r *byteReader) read(v any) {
	if r.err != nil {
		return
	}
	if fs, ok := v.([]float32); ok { // the vectors: millions, decoded without reflection
		if 4*len(fs) > len(r.b) {
			r.err = io.ErrUnexpectedEOF
			return
		}
		b := r.b[:4*len(fs)]
		for i := range fs {
			fs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		r.b = r.b[4*len(fs):]
		return
	}
	n := binary.Size(v)
	if n < 0 || n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return
	}
	if _, err := binary.Decode(r.b[:n], binary.LittleEndian, v); err != nil {
		r.err = err
		return
	}
	r.b = r.b[n:]
}

// vecBytes are the vectors little-endian, as the file holds them.
func (m *PPMI) vecBytes() []byte {
	if m.vecs == nil {
		return m.raw
	}
	return float32sLE(m.vecs)
}

// fingerprint names the model by a hash of its content.
func (m *PPMI) fingerprint() string {
	return fingerprintOf(uint32(m.dim), m.vecBytes(), float32sLE(m.pc))
}

// fingerprintOf hashes the model's dimension and its vectors and
// principal component, little-endian.
func fingerprintOf(dim uint32, vecs, pc []byte) string {
	h := sha256.New()
	h.Write(binary.LittleEndian.AppendUint32(nil, dim))
	h.Write(vecs)
	h.Write(pc)
	return "cairn-ppmi-1:" + hex.EncodeToString(h.Sum(nil))[:12]
}

func float32sLE(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}
