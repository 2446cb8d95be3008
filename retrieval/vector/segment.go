package vector

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Meta keys.
const (
	MetaSegments  = "vec.segments"
	MetaModel     = "vec.model"
	MetaModelFile = "vec.modelfile"
	MetaModelSum  = "vec.modelsum" // the model file's embed.FileSum, hex
	MetaDim       = "vec.dim"
	// MetaUntrained: the built-in model could not be trained (too
	// little text); the value is how many chunks it was tried on. An
	// incremental run cannot train (it does not read the whole
	// repository): `cairn index` trains again once the repository has
	// grown well past that (engine.VectorsDue).
	MetaUntrained = "vec.untrained"
)

// MaxDeltas incremental segments may pile up before they are merged.
const MaxDeltas = 8

const segMagic = "CAIRNVEC1\n"

// Segments parses the segment list of a generation's meta.
func Segments(meta map[string]string) []string {
	if v := meta[MetaSegments]; v != "" {
		return strings.Split(v, ",")
	}
	return nil
}

// quantize maps a unit vector to int8 with a scale.
func quantize(v []float32, out []int8) float32 {
	var m float32
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a > m {
			m = a
		}
	}
	if m == 0 {
		for i := range out {
			out[i] = 0
		}
		return 0
	}
	s := m / 127
	for i, x := range v {
		out[i] = int8(math.Round(float64(x / s)))
	}
	return s
}

// segWriter writes one segment file.
type segWriter struct {
	f     *os.File
	w     *bufio.Writer
	dim   int
	count uint32
	buf   []int8
}

func createSegment(path string, dim int, model string) (*segWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create vector segment: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(segMagic)
	binary.Write(w, binary.LittleEndian, uint32(dim))
	binary.Write(w, binary.LittleEndian, uint32(0)) // count, patched on close
	binary.Write(w, binary.LittleEndian, uint16(len(model)))
	w.WriteString(model)
	return &segWriter{f: f, w: w, dim: dim, buf: make([]int8, dim)}, nil
}

func (s *segWriter) add(id int64, v []float32) error {
	if len(v) != s.dim {
		return fmt.Errorf("vector of %d dimensions in a %d-dimension segment", len(v), s.dim)
	}
	scale := quantize(v, s.buf)
	binary.Write(s.w, binary.LittleEndian, id)
	binary.Write(s.w, binary.LittleEndian, scale)
	binary.Write(s.w, binary.LittleEndian, s.buf)
	s.count++
	return nil
}

func (s *segWriter) close() error {
	if err := s.w.Flush(); err != nil {
		s.f.Close()
		return fmt.Errorf("write vector segment: %w", err)
	}
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], s.count)
	if _, err := s.f.WriteAt(c[:], int64(len(segMagic)+4)); err != nil {
		s.f.Close()
		return fmt.Errorf("write vector segment: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return fmt.Errorf("write vector segment: %w", err)
	}
	return s.f.Close()
}

// segment is a segment read into memory.
type segment struct {
	dim    int
	model  string
	ids    []int64
	scales []float32
	data   []int8 // len(ids) × dim, when raw is nil (a segment made in memory)
	// raw is the segment file, mapped read-only (readSegment): vector i's
	// coordinates are the dim bytes at at+i*stride. Unmapped when the
	// segment is unreachable.
	raw        []byte
	at, stride int

	// The bounded scan's state, made at the second search (prepared):
	// the coordinates before c0, and from c0 to c1, of every vector,
	// contiguous, so that the first stages read them in order; tails[0][i]
	// and tails[1][i], the norms of vector i's coordinates from c0 and
	// from c1 on; inv[i], 1/scales[i] (0 for a zero vector). c1 is 0 when
	// the vectors are too short to cut.
	c0, c1    int
	head, mid []int8
	tails     [2][]float32
	inv       []float32

	searches atomic.Int64
	prepared sync.Once
}

// prepare makes the bounded scan's state: exits after a quarter and after
// half of the coordinates.
func (s *segment) prepare() {
	if s.dim < 64 {
		return
	}
	s.c0, s.c1 = s.dim/4, s.dim/2
	n := len(s.ids)
	s.inv = make([]float32, n)
	s.head = make([]int8, 0, n*s.c0)
	s.mid = make([]int8, 0, n*(s.c1-s.c0))
	s.tails = [2][]float32{make([]float32, n), make([]float32, n)}
	for i, sc := range s.scales {
		if sc > 0 {
			s.inv[i] = 1 / sc
		}
		row := s.row(i)
		s.head = append(s.head, row[:s.c0]...)
		s.mid = append(s.mid, row[s.c0:s.c1]...)
		s.tails[0][i] = tailNorm(row[s.c0:])
		s.tails[1][i] = tailNorm(row[s.c1:])
	}
}

// tailNorm is the Euclidean norm of x, rounded up a little so that float
// rounding can never make a bound too tight.
func tailNorm(x []int8) float32 {
	var ss int64
	for _, v := range x {
		ss += int64(v) * int64(v)
	}
	return float32(math.Sqrt(float64(ss)) * (1 + 1e-6))
}

// readSegment maps a segment file and reads its ids and scales; the
// coordinates stay in the mapping, read in place by the scan. Reading
// them into memory was most of a one-shot search on the Linux kernel (a
// 121 MB segment, read and copied: 100 ms of the answer's 450); mapped,
// the pages come from the page cache as the scan touches them.
func readSegment(path string) (*segment, error) {
	b, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("read vector segment: %w", err)
	}
	s, err := parseSegment(path, b)
	if err != nil {
		unmap()
		return nil, err
	}
	if unmap != nil {
		runtime.AddCleanup(s, func(f func()) { f() }, unmap)
	}
	return s, nil
}

// mapFile maps a file read-only (or, where mapping fails, reads it);
// unmap is nil when nothing is to be unmapped.
func mapFile(path string) (b []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	n := fi.Size()
	if n == 0 || int64(int(n)) != n {
		b, err := io.ReadAll(f)
		return b, nil, err
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		b, err := io.ReadAll(f)
		return b, nil, err
	}
	return m, func() { syscall.Munmap(m) }, nil
}

// parseSegment reads a segment's header, ids and scales from b, which it
// keeps for the coordinates.
func parseSegment(path string, b []byte) (*segment, error) {
	if len(b) < len(segMagic)+10 || string(b[:len(segMagic)]) != segMagic {
		return nil, fmt.Errorf("vector segment %s: not a cairn vector segment", path)
	}
	p := b[len(segMagic):]
	dim := int(binary.LittleEndian.Uint32(p))
	count := int(binary.LittleEndian.Uint32(p[4:]))
	ml := int(binary.LittleEndian.Uint16(p[8:]))
	p = p[10:]
	if ml > len(p) || dim <= 0 || dim > 8192 {
		return nil, fmt.Errorf("vector segment %s: corrupt header", path)
	}
	s := &segment{dim: dim, model: string(p[:ml])}
	p = p[ml:]
	rec := 12 + dim
	if len(p) != count*rec {
		return nil, fmt.Errorf("vector segment %s: %d bytes for %d vectors: truncated or corrupt", path, len(p), count)
	}
	s.ids = make([]int64, count)
	s.scales = make([]float32, count)
	for i := 0; i < count; i++ {
		r := p[i*rec : i*rec+12]
		s.ids[i] = int64(binary.LittleEndian.Uint64(r))
		s.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(r[8:]))
	}
	s.raw, s.at, s.stride = b, len(b)-len(p)+12, rec
	return s, nil
}

// row is vector i's quantised coordinates (read only).
func (s *segment) row(i int) []int8 {
	if s.raw == nil {
		return s.data[i*s.dim : (i+1)*s.dim]
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&s.raw[s.at+i*s.stride])), s.dim)
}

// vectorAt dequantises vector i.
func (s *segment) vectorAt(i int) []float32 {
	v := make([]float32, s.dim)
	row := s.row(i)
	for j, x := range row {
		v[j] = float32(x) * s.scales[i]
	}
	return v
}

// Scored is a chunk with its cosine similarity to a query.
type Scored struct {
	ChunkID int64
	Score   float32
}

type topK []Scored

func (h topK) Len() int { return len(h) }
func (h topK) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ChunkID > h[j].ChunkID
}
func (h topK) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)   { *h = append(*h, x.(Scored)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// search scans the segment for the k best matches of q (quantised).
//
// Once k candidates are held, a vector is first multiplied on its leading
// coordinates only: by Cauchy–Schwarz, the rest can add at most the
// product of the two tails' norms, and when even that cannot beat the
// k-th best score, the vector is passed over. The embedders' coordinates
// come from a truncated SVD, strongest first, so the tails are short: on
// mono1m a quarter of the coordinates rules out about 60 % of the vectors
// and half of them 85 %, and the scan does 40 % of the multiplications.
// The answer is the one the full scan gives (TestBoundedScanIsExact).
//
// The norms and copies the bounds need cost a full scan's time to make:
// they are made at the second search of a segment, so that a process that
// searches once (a one-shot command) does not pay for them. Where the
// products run as AVX2 vector code (dotSIMD: 32 at a time), the full scan
// is faster than the bounded one's branches (1.0 against 2.1 ms on
// mono1m), and is what runs.
func (s *segment) search(q []int8, qscale float32, k int, h *topK) {
	dot := dot
	fast := simd && !slices.Contains(q, -128)
	if fast {
		dot = dotSIMD
	}
	bounded := false
	if s.searches.Add(1) > 1 && !fast {
		s.prepared.Do(s.prepare)
		bounded = s.c1 > 0
	}
	c0, c1 := s.c0, s.c1
	var qtail [2]float32
	if bounded {
		qtail = [2]float32{tailNorm(q[c0:]), tailNorm(q[c1:])}
	}
	qinv := float32(0)
	if qscale > 0 {
		qinv = 1 / qscale
	}
	for i := range s.ids {
		row := s.row(i)
		var acc int32
		if bounded && h.Len() >= k && s.inv[i] > 0 && qinv > 0 {
			// the k-th best score in the units of this vector's product
			lim := (*h)[0].Score * qinv * s.inv[i]
			acc = dot(s.head[i*c0:(i+1)*c0], q[:c0])
			if beneath(float32(acc)+s.tails[0][i]*qtail[0], lim) {
				continue
			}
			w := c1 - c0
			acc += dot(s.mid[i*w:(i+1)*w], q[c0:c1])
			if beneath(float32(acc)+s.tails[1][i]*qtail[1], lim) {
				continue
			}
			acc += dot(row[c1:], q[c1:])
		} else {
			acc = dot(row, q)
		}
		score := float32(acc) * s.scales[i] * qscale
		if h.Len() < k {
			heap.Push(h, Scored{s.ids[i], score})
		} else if score > (*h)[0].Score {
			(*h)[0] = Scored{s.ids[i], score}
			heap.Fix(h, 0)
		}
	}
}

// beneath reports whether a vector whose product with the query is at
// most bound cannot beat lim (the k-th best score over the two scales);
// the margin covers float rounding, so that a vector is passed over only
// when the full product surely loses.
func beneath(bound, lim float32) bool {
	abs := math.Float32frombits(math.Float32bits(bound) &^ (1 << 31))
	return bound+abs*1e-5 <= lim
}

// dot is the dot product of two quantised vectors of q's length. Eight
// products a step into two sums, with the bounds proven once a step: twice
// as fast as one product at a time on this scan (BenchmarkDot).
func dot(r, q []int8) int32 {
	var a0, a1 int32
	r = r[:len(q)]
	for len(q) >= 8 {
		_ = r[7]
		_ = q[7]
		a0 += int32(r[0])*int32(q[0]) + int32(r[1])*int32(q[1]) + int32(r[2])*int32(q[2]) + int32(r[3])*int32(q[3])
		a1 += int32(r[4])*int32(q[4]) + int32(r[5])*int32(q[5]) + int32(r[6])*int32(q[6]) + int32(r[7])*int32(q[7])
		r, q = r[8:], q[8:]
	}
	for i := range q {
		a0 += int32(r[i]) * int32(q[i])
	}
	return a0 + a1
}
