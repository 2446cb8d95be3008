package bm25

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/cairn-dev/cairn/retrieval/internal/ties"
)

// A clause asks for one term in one field, at a weight.
type clause struct {
	field, term string
	boost       float64
	// whole: the term is a Name query's name, whole (see WholeName)
	whole bool
}

// WholeName is what a hit of a Name query that holds the name whole (in
// any field, in any spelling) scores above those that hold only its
// parts, so that they rank first: Hit.Score orders hits, and for a Name
// query it is the BM25 score plus WholeName for those. A BM25 score here
// is a few units at most (weights normalised by the query's norm, times
// the coord factor).
const WholeName = 1 << 20

// segStats are the statistics of the immutable segments that BM25 needs
// besides a term's document frequency: documents of each kind (dead ones
// included; their sum is what bleve counts) and each field's average
// length.
type segStats struct {
	once          sync.Once
	err           error
	chunks, files uint64
	avgLen        map[string]float64
}

// stats reads the segments' statistics once. Each segment records its
// number of file documents when it is written; for one written before
// that, they are counted by id.
func (x *Index) stats(ctx context.Context) (*segStats, error) {
	st := &x.st
	st.once.Do(func() {
		st.avgLen = map[string]float64{}
		card := map[string]int{}
		for _, idx := range x.idxs {
			n, err := idx.DocCount()
			if err != nil {
				st.err = err
				return
			}
			var files uint64
			if v, err := idx.GetInternal([]byte(filesKey)); err == nil && v != nil {
				files, _ = strconv.ParseUint(string(v), 10, 64)
			} else {
				q := bleve.NewPrefixQuery("f")
				q.SetField("_id")
				if res, err := idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, 0, 0, false)); err == nil {
					files = res.Total
				}
			}
			st.files += files
			st.chunks += n - min(n, files)
			r, err := reader(idx)
			if err != nil {
				st.err = err
				return
			}
			if br, ok := r.(index.BM25Reader); ok {
				for _, f := range allFields {
					if c, err := br.FieldCardinality(f); err == nil {
						card[f] += c
					}
				}
			}
			r.Close()
		}
		if docs := st.chunks + st.files; docs > 0 {
			for f, c := range card {
				st.avgLen[f] = math.Ceil(float64(c) / float64(docs))
			}
		}
	})
	return st, st.err
}

// reader opens a segment's index reader (a snapshot; Close releases it).
func reader(idx bleve.Index) (index.IndexReader, error) {
	ai, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	return ai.Reader()
}

// accumulator holds one segment's running scores, indexed by the
// segment's internal document number; touched lists the numbers scored,
// so that resetting costs what scoring did.
type accumulator struct {
	score   []float64
	matched []uint16
	whole   []bool
	touched []uint32
}

var accumulators = sync.Pool{New: func() any { return &accumulator{} }}

func (a *accumulator) add(doc uint64, s float64) {
	if doc >= uint64(len(a.score)) {
		n := max(doc+1, uint64(len(a.score))*2, 1024)
		score, matched, whole := make([]float64, n), make([]uint16, n), make([]bool, n)
		copy(score, a.score)
		copy(matched, a.matched)
		copy(whole, a.whole)
		a.score, a.matched, a.whole = score, matched, whole
	}
	if a.matched[doc] == 0 {
		a.touched = append(a.touched, uint32(doc))
	}
	a.score[doc] += s
	a.matched[doc]++
}

func (a *accumulator) reset() {
	for _, d := range a.touched {
		a.score[d], a.matched[d], a.whole[d] = 0, 0, false
	}
	a.touched = a.touched[:0]
}

// scored is a document in the running top k.
type scored struct {
	seg   int
	doc   uint64
	score float64
}

// run scores the clauses as one disjunction with bleve's BM25 model, term
// at a time over each segment's postings, and returns the best k
// documents (by score, then id). It is what bleve computes for a
// disjunction of term queries — the same statistics, formula and coord
// factor (the share of clauses a document matches), see TestSameAsBleve —
// at a fraction of the cost: one pass over each term's postings into a
// dense array, instead of a heap that merges every clause's postings
// document by document and allocates a match per document and clause.
// Statistics are summed over the segments: documents and field
// cardinalities as bleve's alias pre-search does, and — unlike bleve,
// which used each segment's own — a term's document frequency.
func (x *Index) run(ctx context.Context, cs []clause, k int, keepTies bool) ([]Hit, error) {
	if len(cs) == 0 || k <= 0 {
		return nil, nil
	}
	st, err := x.stats(ctx)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	docs := float64(st.chunks + st.files)
	// Each clause's idf and query weight, normalised as bleve does
	// (1/sqrt of the summed squared weights).
	idf := make([]float64, len(cs))
	var sumSq float64
	for i, c := range cs {
		df := x.docFreq(ctx, c.field, c.term)
		if st.avgLen[c.field] > 0 {
			idf[i] = math.Log(1 + (docs-float64(df)+0.5)/(float64(df)+0.5))
		} else {
			// a field no document holds: bleve falls back to the
			// tf-idf idf, which still weighs in the query norm
			idf[i] = 1 + math.Log(docs/float64(df+1))
		}
		w := c.boost * idf[i]
		sumSq += w * w
	}
	qnorm := 1 / math.Sqrt(sumSq)
	coord := 1 / float64(len(cs))

	var top []scored // candidates: what scored at least the k-th best so far
	th := threshold{k: k}
	readers := make([]index.IndexReader, 0, len(x.idxs)) // kept for best's ids
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	for si, idx := range x.idxs {
		r, err := reader(idx)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		readers = append(readers, r)
		walk, err := newPostings(r)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		acc := accumulators.Get().(*accumulator)
		err = func() error {
			for i, c := range cs {
				if err := ctx.Err(); err != nil {
					return err
				}
				avg := st.avgLen[c.field]
				if avg == 0 {
					continue
				}
				weight := c.boost * idf[i] * qnorm * idf[i]
				lenNorm := search.BM25_k1 * search.BM25_b / avg
				base := search.BM25_k1 * (1 - search.BM25_b)
				if err := walk.score(c.field, c.term, acc, weight, base, lenNorm, c.whole); err != nil {
					return err
				}
			}
			for _, d := range acc.touched {
				s := ties.Round(acc.score[d] * float64(acc.matched[d]) * coord)
				if acc.whole[d] {
					s += WholeName
				}
				if th.admit(s) {
					top = append(top, scored{si, uint64(d), s})
				}
			}
			return nil
		}()
		acc.reset()
		accumulators.Put(acc)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
	}
	return best(readers, top, th.min(), k, keepTies)
}

// threshold keeps the k best scores seen (a min-heap), so that a document
// is kept as a candidate only if it could be among the k best.
type threshold struct {
	k    int
	heap []float64
}

// admit reports whether s reaches the k-th best score so far (ties
// included: the id decides among them), and records it.
func (t *threshold) admit(s float64) bool {
	h := t.heap
	if len(h) < t.k {
		h = append(h, s)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p] <= h[i] {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		t.heap = h
		return true
	}
	if s < h[0] {
		return false
	}
	h[0] = s
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return true
}

// min is the k-th best score (or the lowest, when fewer were seen).
func (t *threshold) min() float64 {
	if len(t.heap) == 0 {
		return 0
	}
	return t.heap[0]
}

// best orders the candidates (scores rounded to 36 bits) by score, then
// external id — as bleve sorts "-_score", "_id", but with scores that tie
// to 36 bits tied, so that the order of a sum never decides — and returns
// the first k as hits — with ties, also those that tie with the k-th (up
// to k more). Only the candidates that reach kth, the k-th best score,
// are looked up by id.
func best(readers []index.IndexReader, cands []scored, kth float64, k int, keepTies bool) ([]Hit, error) {
	// the candidates below the final k-th score are out; its ties stay
	top := cands[:0]
	for _, c := range cands {
		if c.score >= kth {
			top = append(top, c)
		}
	}
	type named struct {
		id    string
		score float64
	}
	out := make([]named, 0, len(top))
	var buf [8]byte
	for _, t := range top {
		binary.BigEndian.PutUint64(buf[:], t.doc)
		id, err := readers[t.seg].ExternalID(buf[:])
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		out = append(out, named{id, t.score})
	}
	slices.SortFunc(out, func(a, b named) int { return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.id, b.id)) })
	if len(out) > k {
		n := k
		for keepTies && n < len(out) && n < 2*k && out[n].score == out[k-1].score {
			n++
		}
		out = out[:n]
	}
	hits := make([]Hit, 0, len(out))
	for _, n := range out {
		id, err := strconv.ParseInt(strings.TrimPrefix(n.id, "f"), 10, 64)
		if err != nil {
			continue
		}
		hits = append(hits, Hit{ChunkID: id, Score: n.score})
	}
	return hits, nil
}

// postings walks a scorch snapshot's segments' postings directly. The
// snapshot's term field reader does the same walk, but makes a document
// of every posting (its number encoded as an id, its norm and frequency
// copied) for the scorer to decode again: a quarter of the scorer's time
// on issue-length queries (bench/retrieval/RESULTS.md).
type postings struct {
	segs    []*scorch.SegmentSnapshot
	offsets []uint64 // the snapshot's number of each segment's first document
	dicts   map[string][]segment.TermDictionary
	pl      []segment.PostingsList
	it      []segment.PostingsIterator
}

// newPostings returns the walk over r, which must be a scorch snapshot
// (the kind of index this package writes).
func newPostings(r index.IndexReader) (*postings, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("a %T is not a scorch index snapshot", r)
	}
	p := &postings{segs: snap.Segments(), dicts: map[string][]segment.TermDictionary{}}
	var running uint64
	for _, ss := range p.segs {
		p.offsets = append(p.offsets, running)
		running += ss.Segment().Count() // deleted documents keep their numbers
	}
	p.pl = make([]segment.PostingsList, len(p.segs))
	p.it = make([]segment.PostingsIterator, len(p.segs))
	return p, nil
}

// score adds to acc the BM25 score of term in field for every live
// document holding it (the formula of run; weight, base and lenNorm are
// the clause's).
func (p *postings) score(field, term string, acc *accumulator, weight, base, lenNorm float64, whole bool) error {
	dicts, ok := p.dicts[field]
	if !ok {
		dicts = make([]segment.TermDictionary, len(p.segs))
		for i, ss := range p.segs {
			d, err := ss.Segment().Dictionary(field)
			if err != nil {
				return err
			}
			dicts[i] = d
		}
		p.dicts[field] = dicts
	}
	t := []byte(term)
	for i, ss := range p.segs {
		pl, err := dicts[i].PostingsList(t, ss.Deleted(), p.pl[i])
		if err != nil {
			return err
		}
		p.pl[i] = pl
		if pl.Count() == 0 {
			continue
		}
		it := pl.Iterator(true, true, false, p.it[i])
		p.it[i] = it
		off := p.offsets[i]
		for {
			post, err := it.Next()
			if err != nil {
				return err
			}
			if post == nil {
				break
			}
			tf := math.Sqrt(float64(post.Frequency()))
			norm := post.Norm()
			fieldLen := 1 / (norm * norm)
			acc.add(off+post.Number(), weight*tf*search.BM25_k1/(tf+base+lenNorm*fieldLen))
			if whole {
				acc.whole[off+post.Number()] = true
			}
		}
	}
	return nil
}
