package vector

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/internal/tier"
)

// Options configure a Builder.
type Options struct {
	// Embedder embeds chunks (a remote server, an ONNX model); nil means the
	// built-in model, trained on the repository in full runs.
	Embedder embed.Embedder
	// Cache, when set, keeps vectors of external embedders by chunk content
	// hash across runs.
	Cache *Cache
	PPMI  embed.PPMIOptions
	// Warn receives problems that do not stop indexing (a server that
	// cannot be reached: the generation is committed without new vectors).
	Warn func(msg string)
	// Live reports which chunk ids still exist (for merging deltas).
	Live func(ctx context.Context, ids []int64) (map[int64]bool, error)
	// Publish, when set, receives the vectors the run computed (by chunk
	// id, unquantised) before the segment is written: the PostgreSQL store
	// keeps them for approximate search in SQL.
	Publish func(ctx context.Context, model string, ids []int64, vecs [][]float32) error
}

// Builder computes a generation's vectors. It implements indexer.Sink.
type Builder struct {
	o     Options
	prev  map[string]string
	dir   string
	name  string
	full  bool
	model *embed.PPMI // built-in model of an incremental run

	trainer *embed.Trainer
	ids     []int64
	hashes  []string
	texts   []string
	vecs    [][]float32 // built-in incremental: embedded as they come

	progress func(done, total int) // FinishProgress
}

// Phase implements indexer.PhasedSink: Finish trains the built-in model
// and embeds every chunk (or sends them to the external embedder).
func (b *Builder) Phase() string { return "vectors" }

// FinishProgress implements indexer.PhasedSink: Finish reports the chunks
// embedded.
func (b *Builder) FinishProgress(f func(done, total int)) { b.progress = f }

// report tells FinishProgress how far Finish is.
func (b *Builder) report(done, total int) {
	if b.progress != nil {
		b.progress(done, total)
	}
}

// NewBuilder returns a builder extending the vectors of the generation
// described by prev (its meta; nil for none).
func NewBuilder(prev map[string]string, o Options) *Builder {
	return &Builder{o: o, prev: prev}
}

func (b *Builder) warn(format string, args ...any) {
	if b.o.Warn != nil {
		b.o.Warn(fmt.Sprintf(format, args...))
	}
}

func segSeq(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "vec-"), ".bin"))
	return n
}

// Begin implements indexer.Sink.
func (b *Builder) Begin(ctx context.Context, dir string, fresh bool) error {
	b.dir = dir
	prevModel := b.prev[MetaModel]
	switch {
	case fresh || len(Segments(b.prev)) == 0:
		b.full = true
	case b.o.Embedder != nil && b.o.Embedder.Model() != prevModel:
		b.full = true // another embedder: every vector anew
		b.warn("embedder changed (%s → %s): re-embedding every chunk", prevModel, b.o.Embedder.Model())
	case b.o.Embedder == nil && !strings.HasPrefix(prevModel, "cairn-ppmi"):
		b.full = true
	}
	if b.full && b.o.Embedder == nil && !fresh {
		// The built-in model trains on the whole repository, which an
		// incremental run does not read: keep the previous vectors.
		// Without a previous model (the repository had too little text
		// to train one) there is nothing to replace: no warning.
		if prevModel != "" {
			b.warn("vectors from a different embedder; run `cairn index --full` to rebuild them with the built-in model")
		}
		b.full = false
		untrained, ok := b.prev[MetaUntrained]
		b.prev = map[string]string{}
		if ok && prevModel == "" {
			b.prev[MetaUntrained] = untrained // still none: say so again
		}
	}
	if b.full {
		b.prev = map[string]string{}
	}
	seq := 0
	for _, s := range Segments(b.prev) {
		seq = max(seq, segSeq(s))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "vec-") {
			seq = max(seq, segSeq(e.Name()))
		}
	}
	b.name = fmt.Sprintf("vec-%06d.bin", seq+1)
	if b.o.Embedder == nil {
		if b.full {
			// The trainer's documents spill beside the segments (a name
			// removeOrphans clears if a crash leaves it), not to memory.
			opts := b.o.PPMI
			opts.SpillDir = cmp.Or(opts.SpillDir, dir)
			b.trainer = embed.NewTrainer(opts)
		} else if mf := b.prev[MetaModelFile]; mf != "" {
			m, err := loadModel(filepath.Join(dir, mf), b.prev[MetaModel], b.prev[MetaModelSum])
			if err != nil {
				return err
			}
			b.model = m
		}
	}
	return nil
}

// lastModel keeps the built-in model last loaded by this process: a
// long-running one (a watcher, a server re-indexing after edits) runs many
// small incremental generations on the same model. A model file is written
// once under a name of its own; its size and modification time guard
// against a name reused after the epoch was rebuilt.
var lastModel struct {
	sync.Mutex
	path        string
	size, mtime int64
	m           *embed.PPMI
}

func loadModel(path, model, sum string) (*embed.PPMI, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	lastModel.Lock()
	defer lastModel.Unlock()
	if lastModel.m != nil && lastModel.path == path && lastModel.size == st.Size() && lastModel.mtime == st.ModTime().UnixNano() {
		return lastModel.m, nil
	}
	m, err := loadPPMI(path, model, sum)
	if err != nil {
		return nil, err
	}
	lastModel.path, lastModel.size, lastModel.mtime, lastModel.m = path, st.Size(), st.ModTime().UnixNano(), m
	return m, nil
}

// loadPPMI loads a built-in model file: checked against its recorded sum
// when the index has one (model then is its name), else named by hashing
// its content (indexes written before the sum was recorded).
func loadPPMI(path, model, sum string) (*embed.PPMI, error) {
	if sum == "" || !strings.HasPrefix(model, "cairn-ppmi") {
		return embed.LoadPPMI(path)
	}
	v, err := strconv.ParseUint(sum, 16, 32)
	if err != nil {
		return nil, fmt.Errorf("load embedding model %s: recorded checksum %q: %v", path, sum, err)
	}
	return embed.LoadPPMIKnown(path, model, uint32(v))
}

// Text is what a chunk's vector is computed from: its name, path and code.
func Text(c *graph.Chunk) string {
	return c.Name + "\n" + c.Path + "\n" + c.Text
}

// Put implements indexer.Sink.
func (b *Builder) Put(ctx context.Context, ff *graph.FileFacts, ids []int64) error {
	for i := range ff.Chunks {
		if i >= len(ids) {
			break
		}
		c := &ff.Chunks[i]
		t := Text(c)
		switch {
		case b.trainer != nil:
			b.trainer.Add(t)
			b.ids = append(b.ids, ids[i])
		case b.model != nil:
			v, _ := b.model.Embed(ctx, []string{t})
			b.ids = append(b.ids, ids[i])
			b.vecs = append(b.vecs, v[0])
		case b.o.Embedder != nil:
			b.ids = append(b.ids, ids[i])
			b.hashes = append(b.hashes, c.Hash)
			b.texts = append(b.texts, t)
		}
	}
	return nil
}

// Delete implements indexer.Sink: vectors of replaced chunks die with them.
func (b *Builder) Delete(context.Context, string) error { return nil }

// Finish implements indexer.Sink.
func (b *Builder) Finish(ctx context.Context) (map[string]string, error) {
	meta := map[string]string{}
	for _, k := range []string{MetaSegments, MetaModel, MetaModelFile, MetaModelSum, MetaDim, MetaUntrained} {
		if v, ok := b.prev[k]; ok {
			meta[k] = v
		}
	}
	var vecs [][]float32
	var model string
	var seg *segWriter // made at the first vector
	segPath := filepath.Join(b.dir, b.name)
	write := func(i int, v []float32) error {
		if seg == nil {
			var err error
			if seg, err = createSegment(segPath, len(v), model); err != nil {
				return err
			}
		}
		return seg.add(b.ids[i], v)
	}
	defer func() {
		if seg != nil { // not closed: an error on the way
			seg.f.Close()
			os.Remove(segPath)
		}
	}()
	switch {
	case b.trainer != nil:
		defer b.trainer.Close()
		m, err := b.trainer.Train(ctx)
		if errors.Is(err, embed.ErrTooLittleText) {
			b.warn("no vectors: %v", err)
			meta[MetaUntrained] = strconv.Itoa(len(b.ids))
			return meta, nil
		} else if err != nil {
			return nil, err
		}
		model = m.Model()
		mf := strings.TrimSuffix(b.name, ".bin") + ".ppmi"
		if err := m.Save(filepath.Join(b.dir, mf)); err != nil {
			return nil, err
		}
		saved, err := os.ReadFile(filepath.Join(b.dir, mf))
		if err != nil {
			return nil, fmt.Errorf("save embedding model: %w", err)
		}
		meta[MetaModelFile] = mf
		meta[MetaModelSum] = fmt.Sprintf("%08x", embed.FileSum(saved))
		if b.o.Publish == nil {
			// Straight into the segment: no vector of the repository's
			// is held longer than its block.
			err = b.embedTrained(ctx, write)
		} else {
			err = b.embedTrained(ctx, func(_ int, v []float32) error { vecs = append(vecs, v); return nil })
		}
		if err != nil {
			return nil, err
		}
	case b.model != nil:
		vecs, model = b.vecs, b.model.Model()
	case b.o.Embedder != nil:
		var err error
		vecs, err = b.embedExternal(ctx)
		if err != nil {
			// Indexing of everything else goes on; the vectors stay as they
			// were (stale for the files changed in this run).
			b.warn("vectors not updated: %v", err)
			return meta, nil
		}
		model = b.o.Embedder.Model()
	default:
		return meta, nil
	}
	if len(vecs) > 0 && b.o.Publish != nil {
		if err := b.o.Publish(ctx, model, b.ids[:len(vecs)], vecs); err != nil {
			return nil, err
		}
	}
	for i, v := range vecs {
		if err := write(i, v); err != nil {
			return nil, err
		}
	}
	if seg == nil {
		return meta, nil // no vectors
	}
	dim := seg.dim
	err := seg.close()
	seg = nil
	if err != nil {
		os.Remove(segPath)
		return nil, err
	}
	segs := append(Segments(meta), b.name)
	if len(segs) > MaxDeltas+1 && b.o.Live != nil {
		if segs, err = b.merge(ctx, segs, model); err != nil {
			return nil, err
		}
	}
	meta[MetaSegments] = strings.Join(segs, ",")
	meta[MetaModel] = model
	meta[MetaDim] = strconv.Itoa(dim)
	b.removeOrphans(segs, meta[MetaModelFile])
	return meta, nil
}

// embedBlock is how many of the trainer's documents are embedded, on two
// goroutines, before they are handed on in order: the vectors held at once.
const embedBlock = 4096

// embedTrained embeds the trainer's documents, handing each vector to emit
// in document order (reporting progress from one goroutine).
func (b *Builder) embedTrained(ctx context.Context, emit func(i int, v []float32) error) error {
	n := b.trainer.Docs()
	block := make([][]float32, embedBlock)
	errs := make([]error, 2)
	for lo := 0; lo < n; lo += embedBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+embedBlock, n)
		var wg sync.WaitGroup
		for p := 0; p < 2; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				for i := lo + p; i < hi; i += 2 {
					v, err := b.trainer.EmbedDoc(i)
					if err != nil {
						errs[p] = err
						return
					}
					block[i-lo] = v
				}
			}(p)
		}
		wg.Wait()
		if err := cmp.Or(errs...); err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			if err := emit(i, block[i-lo]); err != nil {
				return err
			}
			block[i-lo] = nil
		}
		b.report(hi, n)
	}
	b.report(n, n)
	return nil
}

// embedExternal embeds the collected chunks, reusing cached vectors.
func (b *Builder) embedExternal(ctx context.Context) ([][]float32, error) {
	vecs := make([][]float32, len(b.texts))
	model := b.o.Embedder.Model()
	var missing []int
	for i, h := range b.hashes {
		if b.o.Cache != nil {
			if v, ok := b.o.Cache.Get(model, h); ok {
				vecs[i] = v
				continue
			}
		}
		missing = append(missing, i)
	}
	const batch = 256
	for start := 0; start < len(missing); start += batch {
		idx := missing[start:min(start+batch, len(missing))]
		texts := make([]string, len(idx))
		for j, i := range idx {
			texts[j] = b.texts[i]
		}
		out, err := b.o.Embedder.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			vecs[i] = out[j]
			if b.o.Cache != nil {
				b.o.Cache.Put(model, b.hashes[i], out[j])
			}
		}
		b.report(start+len(idx), len(missing))
	}
	return vecs, nil
}

// merge rewrites the smallest deltas into one, leaving out dead vectors,
// so that their count is back to MaxDeltas (package tier, as for the text
// index): a big delta a checkout left is neither checked nor rewritten
// because single-file deltas came after it. The merged segment takes the
// place of the newest one it replaces.
func (b *Builder) merge(ctx context.Context, segs []string, model string) ([]string, error) {
	all := segs[1:]
	sizes := make([]int64, len(all))
	for i, s := range all {
		if info, err := os.Stat(filepath.Join(b.dir, s)); err == nil {
			sizes[i] = info.Size()
		}
	}
	pick := tier.Pick(sizes, MaxDeltas)
	if len(pick) == 0 {
		return segs, nil
	}
	var deltas []string
	for _, i := range pick {
		deltas = append(deltas, all[i])
	}
	name := fmt.Sprintf("vec-%06d.bin", segSeq(segs[len(segs)-1])+1)
	var w *segWriter
	for _, s := range deltas {
		seg, err := readSegment(filepath.Join(b.dir, s))
		if err != nil {
			return nil, err
		}
		live, err := b.o.Live(ctx, seg.ids)
		if err != nil {
			return nil, err
		}
		if w == nil {
			if w, err = createSegment(filepath.Join(b.dir, name), seg.dim, model); err != nil {
				return nil, err
			}
		}
		for i, id := range seg.ids {
			if live[id] {
				w.add(id, seg.vectorAt(i))
			}
		}
	}
	if w == nil {
		return segs, nil
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	return tier.Replace(segs, deltas, name), nil
}

// removeOrphans deletes vector files no generation refers to.
func (b *Builder) removeOrphans(keep []string, modelFile string) {
	want := map[string]bool{modelFile: true, b.prev[MetaModelFile]: true}
	for _, s := range append(slices.Clone(keep), Segments(b.prev)...) {
		want[s] = true
	}
	entries, _ := os.ReadDir(b.dir)
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "vec-") && !want[n] {
			os.Remove(filepath.Join(b.dir, n))
		}
	}
}

// Abort implements indexer.Sink.
func (b *Builder) Abort() {
	if b.trainer != nil {
		b.trainer.Close()
	}
	if b.name != "" {
		os.Remove(filepath.Join(b.dir, b.name))
	}
}

// Index searches a generation's vectors. Open checks what it can cheaply
// (the segments and the model file exist, the query embedder matches) and
// loads the vectors and the built-in model on first use: a one-shot
// command that never searches (cairn def on a large index) does not pay
// for reading every vector.
type Index struct {
	dir       string
	names     []string
	model     string
	modelFile string
	modelSum  string // MetaModelSum, when the index recorded one
	once      sync.Once
	err       error // from loading
	segs      []*segment
	embedder  embed.Embedder
}

// ErrNoVectors: the generation has no vectors.
var ErrNoVectors = errors.New("no vectors in this generation")

// Open prepares a generation's vectors for search. The query embedder is
// the one that made them: the built-in model from its file, or e (which
// must report the same model).
func Open(epochDir string, meta map[string]string, e embed.Embedder) (*Index, error) {
	segs := Segments(meta)
	if len(segs) == 0 {
		return nil, ErrNoVectors
	}
	x := &Index{dir: epochDir, names: segs, model: meta[MetaModel]}
	if mf := meta[MetaModelFile]; mf != "" && strings.HasPrefix(x.model, "cairn-ppmi") {
		x.modelFile, x.modelSum = filepath.Join(epochDir, mf), meta[MetaModelSum]
		if _, err := os.Stat(x.modelFile); err != nil {
			return nil, fmt.Errorf("load embedding model: %w", err)
		}
	} else {
		if e == nil {
			return nil, fmt.Errorf("vectors made by %s: configure that embedder to search them", x.model)
		}
		if e.Model() != x.model {
			return nil, fmt.Errorf("vectors made by %s, query embedder is %s: re-index", x.model, e.Model())
		}
		x.embedder = e
	}
	for _, s := range segs {
		if _, err := os.Stat(filepath.Join(epochDir, s)); err != nil {
			return nil, fmt.Errorf("vector segment: %w", err)
		}
	}
	return x, nil
}

// load reads the model and the segments, once.
func (x *Index) load() error {
	x.once.Do(func() {
		if x.modelFile != "" {
			m, err := loadPPMI(x.modelFile, x.model, x.modelSum)
			if err != nil {
				x.err = damaged("embedding model "+filepath.Base(x.modelFile), x.modelFile, err.Error())
				return
			}
			if m.Model() != x.model {
				x.err = damaged("embedding model "+filepath.Base(x.modelFile), x.modelFile,
					fmt.Sprintf("vectors were made by %s, the model file is %s", x.model, m.Model()))
				return
			}
			x.embedder = m
		}
		for _, s := range x.names {
			seg, err := readSegment(filepath.Join(x.dir, s))
			if err != nil {
				x.err = damaged("vector segment "+s, filepath.Join(x.dir, s), err.Error())
				return
			}
			x.segs = append(x.segs, seg)
		}
	})
	return x.err
}

// damaged is the error of a side file that cannot be read as written.
func damaged(part, path, problem string) error {
	return &graph.DamagedError{Damage: []graph.Damage{{Part: part, Path: path, Problem: problem}}}
}

// Len is the number of stored vectors (dead ones included); 0 when they
// cannot be loaded.
func (x *Index) Len() int {
	if x.load() != nil {
		return 0
	}
	n := 0
	for _, s := range x.segs {
		n += len(s.ids)
	}
	return n
}

// Search returns the k stored vectors nearest to v (a unit vector).
func (x *Index) Search(v []float32, k int) ([]Scored, error) {
	if err := x.load(); err != nil {
		return nil, err
	}
	if len(x.segs) == 0 || k <= 0 {
		return nil, nil
	}
	q := make([]int8, len(v))
	qs := quantize(v, q)
	h := &topK{}
	for _, s := range x.segs {
		if s.dim == len(v) {
			s.search(q, qs, k, h)
		}
	}
	out := make([]Scored, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(Scored)
	}
	return out, nil
}

// SearchText embeds text with the index's model and searches.
func (x *Index) SearchText(ctx context.Context, text string, k int) ([]Scored, error) {
	if err := x.load(); err != nil {
		return nil, err
	}
	vs, err := x.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return x.Search(vs[0], k)
}

// Embedder is the query embedder (loaded on first use: an embedder whose
// Embed fails when the model cannot be loaded).
func (x *Index) Embedder() embed.Embedder {
	if err := x.load(); err != nil {
		return failedEmbedder{model: x.model, err: err}
	}
	return x.embedder
}

type failedEmbedder struct {
	model string
	err   error
}

func (f failedEmbedder) Model() string { return f.model }
func (f failedEmbedder) Dim() int      { return 0 }
func (f failedEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, f.err
}
