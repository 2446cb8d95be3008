package bm25

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/internal/tier"
	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// MetaKey is the store meta key listing the committed segments.
const MetaKey = "bm25.segments"

// MaxDeltas is how many incremental segments may pile up before a run
// merges them.
const MaxDeltas = 8

// batchDocs is how many documents bleve analyses into one in-memory
// segment. Its analysis (each field's term frequencies) is the largest
// live memory of a cold index's parse phase: on mono1m about 134 MB of
// the 310 MB live heap at 5,000 documents (heap profile), so a batch of
// 2,000 lets an index run collect at a lower memory limit as rarely
// (bench/index/RESULTS.md, 2026-12-04).
const batchDocs = 2000

// Field weights at query time.
var fieldBoost = map[string]float64{"name": 3, "path": 1.5, "sig": 1.5, "doc": 1, "body": 1, "ftext": 1, "fpath": 1.5}

// fields of chunk documents; file documents have ftext and fpath only.
var fields = []string{"name", "path", "sig", "doc", "body"}

var allFields = []string{"name", "path", "sig", "doc", "body", "ftext", "fpath"}

// maxQueryTerms bounds the distinct terms of a query.
const maxQueryTerms = 300

func newMapping(store bool) mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = CodeAnalyzer
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range allFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = CodeAnalyzer
		switch f {
		case "doc":
			fm.Analyzer = TextAnalyzer
		case "path", "fpath":
			fm.Analyzer = PathAnalyzer
		}
		fm.Store = store
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		fm.DocValues = false
		dm.AddFieldMappingsAt(f, fm)
	}
	im.DefaultMapping = dm
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im
}

// Segments parses the meta value of MetaKey.
func Segments(meta map[string]string) []string {
	v := meta[MetaKey]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Doc is the text of one chunk as indexed.
type Doc struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Sig  string `json:"sig"`
	Doc  string `json:"doc"`
	Body string `json:"body"`
}

// FileDoc is a whole file as indexed, under the id "f" + the id of its
// first chunk (so it dies with the file's chunks).
type FileDoc struct {
	FText string `json:"ftext"`
	FPath string `json:"fpath"`
}

func fileDocID(chunkID int64) string { return "f" + strconv.FormatInt(chunkID, 10) }

// DocOf builds the document of chunk c of ff.
func DocOf(ff *graph.FileFacts, c *graph.Chunk, syms map[graph.SymbolID]*graph.Symbol) Doc {
	d := Doc{Name: c.Name, Path: c.Path, Body: c.Text}
	if s := syms[c.Symbol]; s != nil && c.Symbol != "" {
		d.Sig, d.Doc = s.Signature, s.Doc
		if s.Container != "" {
			d.Name = s.Container + "." + s.Name
		}
	}
	return d
}

// LiveFunc reports which chunk ids are still in the store.
type LiveFunc func(ctx context.Context, ids []int64) (map[int64]bool, error)

// Builder writes a generation's text segment. It implements indexer.Sink.
// Documents are indexed on a goroutine of their own, so text indexing runs
// alongside parsing and the store's writes.
type Builder struct {
	prev    []string // committed segments of the previous generation
	live    LiveFunc
	dir     string
	name    string
	idx     bleve.Index
	mapping mapping.IndexMapping
	docs    int
	files   atomic.Int64 // file documents queued
	fresh   bool

	queue chan docJob
	done  chan error
	err   error

	progress func(done, total int) // FinishProgress
}

// Phase implements indexer.PhasedSink: Finish waits for the queued
// documents to be indexed and closes the segment, a phase of its own.
func (b *Builder) Phase() string { return "text" }

// FinishProgress implements indexer.PhasedSink.
func (b *Builder) FinishProgress(f func(done, total int)) { b.progress = f }

type docJob struct {
	id  string
	doc any // Doc or FileDoc
	// fa analyses the body (chunk i) or ftext (i < 0) of the file's
	// documents once for both (shared.go)
	fa *fileAnalysis
	i  int
}

// NewBuilder returns a builder that extends the segments prev (the meta
// value of the generation being replaced). live is used to drop dead
// documents when deltas are merged.
func NewBuilder(prev []string, live LiveFunc) *Builder {
	return &Builder{prev: prev, live: live}
}

func segmentSeq(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "bm25-"))
	return n
}

// Begin implements indexer.Sink.
func (b *Builder) Begin(ctx context.Context, dir string, fresh bool) error {
	b.dir, b.fresh = dir, fresh
	if fresh {
		b.prev = nil
	}
	seq := 0
	for _, p := range b.prev {
		seq = max(seq, segmentSeq(p))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "bm25-") {
			seq = max(seq, segmentSeq(e.Name()))
		}
	}
	b.name = fmt.Sprintf("bm25-%06d", seq+1)
	b.files.Store(0)
	// Delta segments store their fields so that they can be merged later.
	idx, err := bleve.NewUsing(filepath.Join(dir, b.name), newMapping(!fresh), scorch.Name, scorch.Name,
		map[string]interface{}{"unsafe_batch": true})
	if err != nil {
		return fmt.Errorf("create text segment: %w", err)
	}
	b.idx = idx
	b.mapping = idx.Mapping()
	b.queue = make(chan docJob, 4*batchDocs)
	b.done = make(chan error, 1)
	go b.run()
	return nil
}

// run indexes queued documents in batches.
func (b *Builder) run() {
	batch := b.idx.NewBatch()
	var err error
	for j := range b.queue {
		if err != nil {
			continue // drain
		}
		doc := document.NewDocument(j.id)
		if err = b.mapping.MapDocument(doc, j.doc); err == nil {
			if j.fa != nil {
				share(doc, j.fa, j.i)
			}
			err = batch.IndexAdvanced(doc)
		}
		if err != nil {
			err = fmt.Errorf("index chunk %s: %w", j.id, err)
			continue
		}
		if batch.Size() >= batchDocs {
			if err = b.idx.Batch(batch); err != nil {
				err = fmt.Errorf("write text segment: %w", err)
			}
			batch.Reset()
		}
	}
	if err == nil {
		// Batches are applied without waiting for the disk (unsafe_batch);
		// the last one carries a callback that fires once everything up to
		// it is persisted, and the segment is not published before that.
		persisted := make(chan error, 1)
		batch.SetInternal([]byte("cairn.complete"), []byte("1"))
		batch.SetInternal([]byte(filesKey), strconv.AppendInt(nil, b.files.Load(), 10))
		batch.SetPersistedCallback(func(e error) { persisted <- e })
		if err = b.idx.Batch(batch); err != nil {
			err = fmt.Errorf("write text segment: %w", err)
		} else if err = <-persisted; err != nil {
			err = fmt.Errorf("persist text segment: %w", err)
		}
	}
	b.done <- err
}

// Put implements indexer.Sink.
func (b *Builder) Put(ctx context.Context, ff *graph.FileFacts, ids []int64) error {
	syms := make(map[graph.SymbolID]*graph.Symbol, len(ff.Symbols))
	for i := range ff.Symbols {
		syms[ff.Symbols[i].ID] = &ff.Symbols[i]
	}
	var fa *fileAnalysis
	if len(ids) > 0 && len(ff.Chunks) > 0 {
		texts := make([]string, len(ff.Chunks))
		for i := range ff.Chunks {
			texts[i] = ff.Chunks[i].Text
		}
		fa = newFileAnalysis(texts)
	}
	for i := range ff.Chunks {
		if i >= len(ids) {
			break
		}
		j := docJob{id: strconv.FormatInt(ids[i], 10), doc: DocOf(ff, &ff.Chunks[i], syms), fa: fa, i: i}
		select {
		case b.queue <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		b.docs++
	}
	// The whole file, as one document: the chunks' texts together are the
	// file (each chunk leaves out the chunks nested in it).
	if len(ids) > 0 && len(ff.Chunks) > 0 {
		var sb strings.Builder
		for i := range ff.Chunks {
			sb.WriteString(ff.Chunks[i].Text)
			sb.WriteByte('\n')
		}
		j := docJob{id: fileDocID(ids[0]), doc: FileDoc{FText: sb.String(), FPath: ff.File.Path}, fa: fa, i: -1}
		select {
		case b.queue <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		b.files.Add(1)
	}
	return nil
}

// wait stops the indexing goroutine and returns its error.
func (b *Builder) wait() error {
	if b.queue != nil {
		close(b.queue)
		b.err = <-b.done
		b.queue = nil
	}
	return b.err
}

// Delete implements indexer.Sink. Documents of replaced chunks die with
// their chunk ids; nothing to do.
func (b *Builder) Delete(context.Context, string) error { return nil }

// Finish implements indexer.Sink: it closes the new segment, merges deltas
// if too many piled up, and returns the segment list to commit.
func (b *Builder) Finish(ctx context.Context) (map[string]string, error) {
	if err := b.wait(); err != nil {
		return nil, err
	}
	if err := b.idx.Close(); err != nil {
		return nil, fmt.Errorf("close text segment: %w", err)
	}
	b.idx = nil
	segs := slices.Clone(b.prev)
	if b.docs > 0 || b.fresh {
		segs = append(segs, b.name)
	} else {
		os.RemoveAll(filepath.Join(b.dir, b.name))
	}
	if len(segs) > MaxDeltas+1 && b.live != nil {
		merged, err := b.mergeDeltas(ctx, segs)
		if err != nil {
			return nil, err
		}
		segs = merged
	}
	b.removeOrphans(segs)
	return map[string]string{MetaKey: strings.Join(segs, ",")}, nil
}

// removeOrphans deletes segment directories no generation refers to (left
// by crashed runs) — never those of the committed generation.
func (b *Builder) removeOrphans(keep []string) {
	want := map[string]bool{}
	for _, s := range append(slices.Clone(keep), b.prev...) {
		want[s] = true
	}
	entries, _ := os.ReadDir(b.dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "bm25-") && !want[e.Name()] {
			os.RemoveAll(filepath.Join(b.dir, e.Name()))
		}
	}
}

// mergeDeltas rewrites the smallest deltas into one, keeping only live
// documents, so that their count is back to MaxDeltas (package tier): a
// big delta (a checkout re-indexed a thousand files) is left alone while
// small ones (a watcher's single-file generations) merge among themselves.
// The merged segment takes the place of the newest one it replaces.
func (b *Builder) mergeDeltas(ctx context.Context, segs []string) ([]string, error) {
	deltas := segs[1:]
	sizes := make([]int64, len(deltas))
	for i, d := range deltas {
		sizes[i] = b.segmentSize(d)
	}
	pick := tier.Pick(sizes, MaxDeltas)
	if len(pick) == 0 {
		return segs, nil
	}
	var merging []string
	for _, i := range pick {
		merging = append(merging, deltas[i])
	}
	merged, err := b.merge(ctx, merging, fmt.Sprintf("bm25-%06d", segmentSeq(segs[len(segs)-1])+1))
	if err != nil {
		return nil, err
	}
	return tier.Replace(segs, merging, merged), nil
}

// segmentSize is a segment's size on disk, as a measure of its documents.
func (b *Builder) segmentSize(seg string) int64 {
	var n int64
	filepath.WalkDir(filepath.Join(b.dir, seg), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// merge writes the live documents of deltas into a new segment name.
func (b *Builder) merge(ctx context.Context, deltas []string, name string) (string, error) {
	out, err := bleve.NewUsing(filepath.Join(b.dir, name), newMapping(true), scorch.Name, scorch.Name,
		nil)
	if err != nil {
		return "", fmt.Errorf("merge text segments: %w", err)
	}
	defer out.Close()
	batch := out.NewBatch()
	files := 0
	for _, s := range deltas {
		idx, err := bleve.OpenUsing(filepath.Join(b.dir, s), map[string]interface{}{"read_only": true})
		if err != nil {
			return "", fmt.Errorf("merge text segments: open %s: %w", s, err)
		}
		req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 1<<30, 0, false)
		req.Fields = allFields
		res, err := idx.SearchInContext(ctx, req)
		if err != nil {
			idx.Close()
			return "", fmt.Errorf("merge text segments: read %s: %w", s, err)
		}
		ids := make([]int64, 0, len(res.Hits))
		for _, h := range res.Hits {
			if id, err := strconv.ParseInt(strings.TrimPrefix(h.ID, "f"), 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
		live, err := b.live(ctx, ids)
		if err != nil {
			idx.Close()
			return "", err
		}
		for _, h := range res.Hits {
			id, _ := strconv.ParseInt(strings.TrimPrefix(h.ID, "f"), 10, 64)
			if !live[id] {
				continue
			}
			str := func(f string) string { v, _ := h.Fields[f].(string); return v }
			if strings.HasPrefix(h.ID, "f") {
				batch.Index(h.ID, FileDoc{FText: str("ftext"), FPath: str("fpath")})
				files++
			} else {
				batch.Index(h.ID, Doc{Name: str("name"), Path: str("path"), Sig: str("sig"), Doc: str("doc"), Body: str("body")})
			}
			if batch.Size() >= batchDocs {
				if err := out.Batch(batch); err != nil {
					idx.Close()
					return "", err
				}
				batch.Reset()
			}
		}
		idx.Close()
	}
	batch.SetInternal([]byte(filesKey), strconv.AppendInt(nil, int64(files), 10))
	if err := out.Batch(batch); err != nil {
		return "", err
	}
	return name, nil
}

// Abort implements indexer.Sink.
func (b *Builder) Abort() {
	b.wait()
	if b.idx != nil {
		b.idx.Close()
		b.idx = nil
	}
	if b.name != "" {
		os.RemoveAll(filepath.Join(b.dir, b.name))
	}
}

// Index searches the segments of one generation.
type Index struct {
	dir   string // the epoch directory
	alias bleve.IndexAlias
	idxs  []bleve.Index
	once  sync.Once

	// statistics of the immutable segments, read once
	statMu sync.Mutex
	dfs    map[fieldTerm]uint64
	st     segStats
}

type fieldTerm struct{ field, term string }

// A query term found in more than this share of the documents it is
// looked for in (the, for, return, string) is common: documents are
// selected by the query's other terms alone, and scored by them. That is
// the idea of MaxScore (Turtle and Flood, 1995) taken one step further: a
// term this frequent weighs so little in BM25 that documents matching
// only such terms do not reach the top, and walking its postings was most
// of a query's work (bench/retrieval/RESULTS.md measures both the time
// and the ranking).
var (
	chunkCommon = 0.2  // of chunk documents, by the term's frequency in bodies
	fileCommon  = 0.25 // of file documents
	// minCommon: fewer documents than this are cheap to walk whatever
	// the share (a small repository's index is searched in full).
	minCommon uint64 = 500
)

// filesKey is a segment's internal key holding its number of file
// documents (the rest are chunks).
const filesKey = "cairn.files"

// ErrNoSegments: the generation has no text index (indexed without one).
var ErrNoSegments = errors.New("no text index in this generation")

// Open opens the segments named in meta, read-only.
//
// A segment that cannot be opened — bleve fails, or panics, on a damaged
// file — is a *graph.DamagedError naming it.
func Open(epochDir string, meta map[string]string) (*Index, error) {
	segs := Segments(meta)
	if len(segs) == 0 {
		return nil, ErrNoSegments
	}
	x := &Index{dir: epochDir}
	for _, s := range segs {
		idx, err := openSegment(filepath.Join(epochDir, s))
		if err != nil {
			x.Close()
			return nil, &graph.DamagedError{Damage: []graph.Damage{{Part: "text index segment " + s, Path: filepath.Join(epochDir, s), Problem: err.Error()}}}
		}
		x.idxs = append(x.idxs, idx)
	}
	x.alias = bleve.NewIndexAlias(x.idxs...)
	return x, nil
}

// openSegment opens one segment read-only; bleve's storage (bbolt) asserts
// by panicking on a damaged file, which becomes an error here.
func openSegment(path string) (idx bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			idx, err = nil, fmt.Errorf("damaged: %v", r)
		}
	}()
	return bleve.OpenUsing(path, map[string]interface{}{"read_only": true})
}

// guard turns a panic of bleve reading a damaged segment during a search
// into a *graph.DamagedError.
func (x *Index) guard(err *error) {
	if r := recover(); r != nil {
		*err = &graph.DamagedError{Damage: []graph.Damage{{Part: "text index", Path: x.dir, Problem: fmt.Sprintf("damaged: %v", r)}}}
	}
}

// Close releases the segments.
func (x *Index) Close() {
	x.once.Do(func() {
		for _, idx := range x.idxs {
			idx.Close()
		}
	})
}

// Hit is one document found.
type Hit struct {
	ChunkID int64
	Score   float64
}

// Query is a text query: the free text, plus terms that must weigh more
// (identifiers found in it).
type Query struct {
	Text string
	// Boosted terms are searched again, exactly, in name and body.
	Boosted []string
	// Name is set when the query is one identifier (fuse's identifier
	// search). A name of several parts (ListenAndServe, new_range_query)
	// is then looked for whole, in its own spelling and in the other
	// conventions' (listenandserve, listen_and_serve), in every field;
	// its parts in a chunk's name, path, signature and doc and a file's
	// path, but not in a body or a file's text. A body that holds the
	// parts and not the name is not about it, and reading those postings
	// (the parts are common words: new, query, size) was half of an
	// identifier search's time. A hit that holds the name whole scores
	// WholeName more than one that holds only parts, so they come first.
	Name string
	// Ties: the documents that tie with the k-th best are all returned
	// (up to k more), so that the caller breaks the tie by something
	// that does not depend on the store, such as path and position.
	// Without it the document id decides, and ids are the order a store
	// wrote documents in: the embedded store and PostgreSQL cut a tie at
	// the k-th hit differently (TestStoreConformance/graph-src).
	Ties bool
}

// spellings returns the whole forms of an identifier of several parts as
// tokens.Code indexes them: lower-cased as written, and its parts joined
// with nothing and with underscores (how camelCase, PascalCase and
// snake_case spell the same name). It returns nil for a name of one
// part or of several words (Server.Start).
func spellings(name string) []string {
	var whole []string
	tokens.Code([]byte(name), func(t tokens.Token) {
		if !t.Part {
			whole = append(whole, t.Term)
		}
	})
	if len(whole) != 1 {
		return nil
	}
	var parts []string
	tokens.Split(name, func(p string, _ int) { parts = append(parts, tokens.Lower(p)) })
	if len(parts) < 2 {
		return nil
	}
	out := []string{whole[0]}
	for _, sep := range []string{"", "_"} {
		if v := strings.Join(parts, sep); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// wholeName marks the clauses of a Name query's spellings (nil for
// another query): documents that hold the name whole rank before those
// that hold only its parts (WholeName).
func wholeName(cs []clause, spelled []string) []clause {
	if spelled == nil {
		return cs
	}
	for i := range cs {
		cs[i].whole = slices.Contains(spelled, cs[i].term)
	}
	return cs
}

// nameTerms returns, for a query with a Name of several parts, the code
// terms (the query's, plus the name's other spellings that some body
// holds) and the spellings among them, which are all a body is searched
// for; for any other query, its code terms twice and no spellings.
func (x *Index) nameTerms(ctx context.Context, q Query, code []string, field string) (all, body, spelled []string) {
	sp := spellings(q.Name)
	if sp == nil {
		return code, code, nil
	}
	all, spelled = slices.Clone(code), []string{}
	for i, v := range sp {
		if slices.Contains(code, v) || (i > 0 && x.docFreq(ctx, field, v) > 0) {
			if !slices.Contains(all, v) {
				all = append(all, v)
			}
			spelled = append(spelled, v)
		}
	}
	return all, spelled, spelled
}

// terms analyses text into its distinct terms, in order of appearance.
func terms(text string, analyzer func([]byte, func(tokens.Token))) []string {
	seen := map[string]bool{}
	var out []string
	analyzer([]byte(text), func(t tokens.Token) {
		if !seen[t.Term] && len(out) < maxQueryTerms {
			seen[t.Term] = true
			out = append(out, t.Term)
		}
	})
	return out
}

// disjunction asks for any of the terms in the field; each distinct term
// counts once, as in classic BM25 retrieval.
func disjunction(cs []clause, field string, ts []string, boost float64) []clause {
	for _, t := range ts {
		cs = append(cs, clause{field: field, term: t, boost: boost})
	}
	return cs
}

// docFreq returns the number of documents whose field holds term, summed
// over the segments (dead documents included: an estimate is enough).
func (x *Index) docFreq(ctx context.Context, field, term string) uint64 {
	key := fieldTerm{field, term}
	x.statMu.Lock()
	defer x.statMu.Unlock()
	if x.dfs == nil {
		x.dfs = map[fieldTerm]uint64{}
	}
	if n, ok := x.dfs[key]; ok {
		return n
	}
	var n uint64
	for _, idx := range x.idxs {
		r, err := reader(idx)
		if err != nil {
			continue
		}
		if tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false); err == nil {
			n += tfr.Count()
			tfr.Close()
		}
		r.Close()
	}
	if len(x.dfs) > 1<<16 {
		clear(x.dfs)
	}
	x.dfs[key] = n
	return n
}

// common says which of the terms are common in field (see chunkCommon),
// keeping at least one term that is not; nil when none is.
func (x *Index) common(ctx context.Context, field string, ts []string) map[string]bool {
	st, err := x.stats(ctx)
	if err != nil {
		return nil // searched in full; run reports the error
	}
	share, docs := chunkCommon, st.chunks
	if field == "ftext" {
		share, docs = fileCommon, st.files
	}
	var out map[string]bool
	for _, t := range ts {
		df := x.docFreq(ctx, field, t)
		if df > minCommon && float64(df) > share*float64(docs) {
			if out == nil {
				out = map[string]bool{}
			}
			out[t] = true
		}
	}
	if len(out) == len(ts) {
		return nil // every term is common: they all select
	}
	return out
}

// selecting returns the terms that are not common.
func (x *Index) selecting(ctx context.Context, field string, ts []string) []string {
	common := x.common(ctx, field, ts)
	if common == nil {
		return ts
	}
	out := make([]string, 0, len(ts)-len(common))
	for _, t := range ts {
		if !common[t] {
			out = append(out, t)
		}
	}
	return out
}

// Search returns up to k chunk documents for q, best first.
func (x *Index) Search(ctx context.Context, q Query, k int) (_ []Hit, err error) {
	defer x.guard(&err)
	code, body, spelled := x.nameTerms(ctx, q, x.selecting(ctx, "body", codeTerms(q.Text)), "body")
	prose := x.selecting(ctx, "doc", proseTerms(q.Text))
	return x.run(ctx, wholeName(chunkClauses(code, body, prose, q.Boosted), spelled), k, q.Ties)
}

// questionWords open a question and name nothing in code: "where is …"
// is not a question about a method Where (README's demo question ranked
// Engine.Where and DB.Where third and eighth in BM25). tokens.Stop has the
// other question words (what, when, which, who, how) already. Dropping
// every English function word from the code terms, or adding the stems of
// the question's inflected words as code terms ("committed" for Commit),
// were measured too and cost function-level accuracy on the localization
// dev set (bench/retrieval/RESULTS.md, 2026-12-02).
var questionWords = map[string]bool{"where": true, "why": true, "whose": true, "whom": true, "whether": true}

// codeTerms are the terms of a query text looked for in the fields
// analysed as code, without question words (all of them when the text is
// nothing else).
func codeTerms(text string) []string { return withoutQuestionWords(terms(text, tokens.Code)) }

// proseTerms are the terms of a query text looked for in the fields
// analysed as English: stemmed, without stop words and question words.
func proseTerms(text string) []string { return withoutQuestionWords(terms(text, tokens.Text)) }

func withoutQuestionWords(all []string) []string {
	out := all[:0:0]
	for _, t := range all {
		if !questionWords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// chunkClauses is the query of Search: the code terms in every field of
// a chunk document but doc and body, the body terms in body, the prose
// terms in doc, the boosted terms again in name and body at half weight.
func chunkClauses(code, body, prose, boosted []string) []clause {
	var cs []clause
	for _, f := range fields {
		switch f {
		case "doc":
			cs = disjunction(cs, f, prose, fieldBoost[f])
		case "body":
			cs = disjunction(cs, f, body, fieldBoost[f])
		default:
			cs = disjunction(cs, f, code, fieldBoost[f])
		}
	}
	for _, t := range boosted {
		for _, f := range []string{"name", "body"} {
			cs = disjunction(cs, f, []string{t}, fieldBoost[f]*0.5)
		}
	}
	return cs
}

// fileClauses is the query of SearchFiles: the text terms in the file's
// text, the code terms in its path.
func fileClauses(code, text []string) []clause {
	return disjunction(disjunction(nil, "ftext", text, fieldBoost["ftext"]), "fpath", code, fieldBoost["fpath"])
}

// SearchFiles returns up to k whole-file documents for q, best first; the
// hit's ChunkID is the id of the file's first chunk.
func (x *Index) SearchFiles(ctx context.Context, q Query, k int) (_ []Hit, err error) {
	defer x.guard(&err)
	code, text, spelled := x.nameTerms(ctx, q, x.selecting(ctx, "ftext", codeTerms(q.Text)), "ftext")
	return x.run(ctx, wholeName(fileClauses(code, text), spelled), k, q.Ties)
}

// FilesWithTerms returns the first-chunk ids of up to k files whose text
// holds any of the terms (analysed as code: lower-case, whole identifiers
// kept), and whether more files matched.
func (x *Index) FilesWithTerms(ctx context.Context, ts []string, k int) (_ []int64, _ bool, err error) {
	defer x.guard(&err)
	var qs []query.Query
	for _, t := range ts {
		for _, term := range terms(t, tokens.Code) {
			tq := bleve.NewTermQuery(term)
			tq.SetField("ftext")
			qs = append(qs, tq)
			break // the whole identifier; its parts would match far more
		}
	}
	if len(qs) == 0 {
		return nil, false, nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), k, 0, false)
	req.SortBy([]string{"_id"})
	res, err := x.alias.SearchInContext(ctx, req)
	if err != nil {
		return nil, false, fmt.Errorf("text search: %w", err)
	}
	out := make([]int64, 0, len(res.Hits))
	for _, h := range res.Hits {
		if id, err := strconv.ParseInt(strings.TrimPrefix(h.ID, "f"), 10, 64); err == nil && strings.HasPrefix(h.ID, "f") {
			out = append(out, id)
		}
	}
	return out, res.Total > uint64(len(res.Hits)), nil
}
