package fuse

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/internal/repofs"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/history"
	"github.com/cairn-dev/cairn/retrieval/internal/ties"
	"github.com/cairn-dev/cairn/retrieval/query"
	"github.com/cairn-dev/cairn/retrieval/tokens"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// Generator names.
const (
	GenText    = "text"
	GenFile    = "file"
	GenTitle   = "title"
	GenMessage = "message"
	GenVector  = "vector"
	GenSymbol  = "symbol"
	GenPath    = "path"
	GenGraph   = "graph"
	GenRank    = "rank"
	GenHistory = "history"
	// GenUnwritten: the uses of a named type that leave a named field
	// unwritten (unwritten.go).
	GenUnwritten = "unwritten"
	// GenChange: the definitions of the names the query asks to rename,
	// deprecate, export or unexport, and their uses (change.go)
	GenChange = "change"
)

// AllGenerators in a stable order.
var AllGenerators = []string{GenText, GenFile, GenTitle, GenVector, GenSymbol, GenPath, GenMessage, GenHistory, GenUnwritten, GenChange, GenGraph, GenRank}

// DefaultWeights of the generators in fusion, found by coordinate search
// over global settings on the localization dev set (bench/retrieval/tune.py,
// whose DEFAULTS mirror these), then a grid over the graph, vector and
// symbol weights and the RRF k checked by two-fold cross-validation
// (bench/retrieval/RESULTS.md): the settings chosen on one half of the
// tasks are the centre of those that did best on the other.
// GenChange runs for too few dev tasks to be tuned there: its weight was
// chosen by the same cross-validation on 74 commits that change a name's
// API (bench/retrieval/commit_tasks.py --kind change): 1.2 was chosen in
// five of ten half-splits, 1 in three and 0.6 in two, none of them doing
// better than 1 on the other half (held out, file Acc@1 + Acc@5 + fn
// Acc@10 summed gained 0.247 over the generator off);
// it counts more than the other narrow generators because the query asks
// for exactly the places it ranks.
var DefaultWeights = map[string]float64{
	GenText: 0.5, GenFile: 0.5, GenTitle: 0.4, GenVector: 0.6, GenSymbol: 0.4, GenPath: 0.6, GenMessage: 0.5, GenHistory: 0.5, GenUnwritten: 0.5, GenChange: 1, GenGraph: 0.5, GenRank: 0.4,
}

// rrfK is the k of reciprocal-rank fusion.
const rrfK = 30.0

// chunkWeight is generator gen's weight in a chunk's own score: its
// weight, but none for centrality and graphChunks of it for the graph.
//
// Centrality (GenRank) is evidence for a file and not
// for which of its functions a task is about: counted for chunks it ranked
// a central file's accessors above the function a fix changed (for cobra's
// "Complete map flags multiple times", Command.Flags and Command above
// Command.getCompletions, which now comes in seventh from outside the ten).
// Without it, on fix commits of four Go repositories the dev set does not
// hold, fn Acc@5 0.300 → 0.333 and fn Acc@10 0.400 → 0.467; on the dev
// set fn Acc@1 0.141 → 0.174, fn Acc@5 0.446 → 0.478 and fn Acc@10 0.641
// → 0.630 (one task); files rank exactly as before. Summing fn Acc@1, @5
// and @10, a chunk weight of 0.2 or 0.1 scored between 0.4 and none on
// both sets, and each set alone chooses none (bench/retrieval/RESULTS.md).
// A chunk still inherits its file's centrality through the file's share.
//
// A context pack (Options.Roots) keeps it: its eight strongest
// hits are the roots it expands through the graph, and central roots reach
// more of what a change touches — without it the dev set's packs covered
// less at 4k and 16k (fn_cov@16k 0.818 → 0.798; one task, pytest 8399,
// lost three of its five functions).
func (s *search) chunkWeight(gen string) float64 {
	w := s.weight(gen)
	switch {
	case s.roots:
	case gen == GenRank:
		w = 0
	case gen == GenGraph:
		w *= graphChunks
	}
	return w
}

// graphChunks is the part of the graph generator's weight that counts in a
// chunk's own score. Being a caller or callee of a strong hit says that a
// function is near what a task is about, more than that it is what a fix
// changes: at full weight the neighbours of the strongest hits took
// places in the first ten that functions matching the task itself should
// have had. Its file-level evidence is kept whole. Over the weights 1,
// 0.75, 0.6, 0.5, 0.25 and 0 on four sets (the dev set, fix commits of
// gin/caddy/cobra/hugo, of cli/cli and go-zero, and of fzf, lazygit, echo
// and fiber — the last made after the others had been measured), 0.5 to
// 0.75 gained on every set's summed fn Acc@1, @5 and @10, and 0.6 lost no
// task on any of those metrics: fn Rec@10 0.685 → 0.689, 0.552 → 0.564,
// 0.352 → 0.387 and 0.554 → 0.563; files rank exactly as before
// (bench/retrieval/RESULTS.md). A context pack (Options.Roots) counts it
// whole: its roots are meant to reach what the graph connects.
const graphChunks = 0.6

// lengthPrior is the power of a function's length in lines that scales
// its own score in a search's answer: of the functions that match a task
// about as well, a fix more often changes the long one that does the work
// than the type or the short wrapper whose name holds the task's words
// (echo's "CORS" and "CORSConfig" against CORSConfig.ToMiddleware, which
// the fix changed). Over the powers 0.1 to 0.4 on four sets (the dev set's
// issues and the fix commits of three sets of Go repositories), 0.25 gained
// the most summed fn Acc@1, @5 and @10 on three of the four taken
// together whichever one was left out, and every power from 0.15 to 0.35
// gained on every set: fn Acc@10 0.641 → 0.685 (dev), 0.467 → 0.550,
// 0.300 → 0.367 and 0.521 → 0.542; on a fifth set of Go fix commits
// made after the power was chosen, 0.442 → 0.465 (fn Acc@1 0.116 →
// 0.163) with every power from 0.15 to 0.35 gaining
// (bench/retrieval/RESULTS.md).
// It counts neither in the eight strongest hits the graph expands
// from (those kept, files rank exactly as before), nor in a context
// pack's ranking (a pack pays for a long function in tokens: its
// coverage fell, fn_cov@16k 0.818 → 0.773), nor in identifier search
// (ranked by the name's own evidence), nor when Options.Only asks for
// some generators' rankings; types and file chunks keep their score.
const lengthPrior = 0.25

// lengthFactor is what a chunk's own score is scaled by in a search's
// answer (lengthPrior).
func (s *search) lengthFactor(ref graph.ChunkRef) float64 {
	if !s.lengths || ref.Kind != graph.ChunkFunction {
		return 1
	}
	return math.Pow(float64(chunkLines(ref)), lengthPrior)
}

// chunkLines is how many lines a chunk spans (at least one).
func chunkLines(ref graph.ChunkRef) int {
	if ref.Range.EndLine < ref.Range.StartLine {
		return 1
	}
	return ref.Range.Lines()
}

// fileShare is how much of its file's fused score a chunk inherits.
const fileShare = 0.5

// testPenalty scales the score of chunks in test files.
const testPenalty = 0.4

// docPenalty scales the score of files that are not source code (docs,
// config, templates): questions about behaviour are answered by code;
// prose stays findable, below it.
const docPenalty = 0.3

// vendorPenalty scales the score of files in copies of other projects
// kept in the repository: an issue is about the project's own code, and
// what it says of a dependency (the exception it raised, the call in the
// traceback) is usually fixed where the project uses it.
const vendorPenalty = 0.5

// penalty is the factor a path's scores are scaled by, from the category
// the indexer stored for the file (package indexer/walk decides it).
func (e *Engine) penalty(p string) float64 {
	c := e.category(p)
	f := 1.0
	if c.Has(graph.FileTest) {
		f *= testPenalty
	}
	if c.Has(graph.FileVendored) {
		f *= vendorPenalty
	}
	if c.Has(graph.FileDocs) {
		f *= docPenalty
	}
	return f
}

// category is the stored category of the generation's file p.
func (e *Engine) category(p string) graph.FileCategory {
	return e.pathSet()[p]
}

// pathSet is the generation's files by path, with their categories, read
// once (graph.PathCategories: the paths and categories alone where the
// store can). Search reads it first and fails with its error; after that
// it is never nil.
func (e *Engine) pathSet() map[string]graph.FileCategory {
	e.pathsOnce.Do(func() {
		e.paths, e.pathsErr = graph.PathCategories(context.Background(), e.R)
		if e.paths == nil {
			e.paths = map[string]graph.FileCategory{}
		}
	})
	return e.paths
}

// generatedIn is the generation's generated files — skipped by the
// walker, recorded with their reason — by directory, in path order, read
// once.
func (e *Engine) generatedIn() (map[string][]string, error) {
	e.generatedOnce.Do(func() {
		skips, err := graph.SkipsOf(context.Background(), e.R, graph.SkipGenerated)
		if err != nil {
			e.generatedErr = fmt.Errorf("generated files: %w", err)
			return
		}
		e.generated = map[string][]string{}
		for _, sk := range skips {
			if !sk.Dir {
				d := path.Dir(sk.Path)
				e.generated[d] = append(e.generated[d], sk.Path)
			}
		}
	})
	return e.generated, e.generatedErr
}

// GeneratedWith returns the generated files made with file p: in its
// directory, named p's name without its extension and then more after
// "_", "." or "-" (cds.py: cds_parsetab.py, cds_lextab.py; data.go:
// data_msgp.go; api.proto: api.pb.go, api_grpc.pb.go). The walker skips
// them, so no search finds them; a change to p usually regenerates them
// (issue 20's "generated and hand-written halves of one API"). Ranked
// among the files right after their source, they took places hand-written
// files needed (bench/retrieval/RESULTS.md), so a hit names them instead.
func (e *Engine) GeneratedWith(p string) ([]string, error) {
	byDir, err := e.generatedIn()
	if err != nil {
		return nil, err
	}
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	var out []string
	for _, g := range byDir[path.Dir(p)] {
		gb := path.Base(g)
		if stem != "" && len(gb) > len(stem)+1 && strings.HasPrefix(gb, stem) && strings.IndexByte("_.-", gb[len(stem)]) >= 0 {
			out = append(out, g)
		}
	}
	return out, nil
}

// VectorSearcher finds the chunks nearest to a query by embedding.
type VectorSearcher interface {
	SearchText(ctx context.Context, text string, k int) ([]vector.Scored, error)
}

// Engine runs the generators over one store generation.
type Engine struct {
	R       graph.Reader
	Text    *bm25.Index    // nil: no text generator
	Vectors VectorSearcher // nil: no vector generator
	History *History       // nil: no history generator
	Weights map[string]float64
	// Worktree reads the worktree's files (the message scan); default:
	// the repository boundary (internal/repofs) over the root the generation
	// was indexed from, when it is on this machine.
	Worktree Files

	// Slots is how many searches run at once; the others wait, in the
	// order they came (default: two per core, see admit).
	Slots int

	// the generation's file list, read once (R is one generation)
	filesOnce sync.Once
	files     []graph.File
	filesErr  error

	pathsOnce sync.Once
	paths     map[string]graph.FileCategory // pathSet
	pathsErr  error

	generatedOnce sync.Once
	generated     map[string][]string // generatedIn
	generatedErr  error

	worktreeOnce sync.Once
	repo         Files
	repoErr      error

	slotsOnce sync.Once
	slots     chan struct{}
}

// admit waits for a search slot, in arrival order (a channel's waiting
// senders are served first come, first served). A search is CPU work
// from end to end, with short waits on the store; when many more run than
// there are cores, each takes as long as all of them together and the
// costliest queries drag on longest. The default, two slots per core
// (Slots overrides it; cmd/cairn sets it from CAIRN_SEARCH_SLOTS), keeps the cores busy through the
// store's round trips: with sixteen clients on two cores and PostgreSQL,
// it kept the throughput and cut the 95th percentile latency from about
// 460 to 230 ms (bench/postgres/RESULTS.md).
func (e *Engine) admit(ctx context.Context) (release func(), err error) {
	e.slotsOnce.Do(func() {
		n := e.Slots
		if n <= 0 {
			n = 2 * runtime.GOMAXPROCS(0)
		}
		e.slots = make(chan struct{}, n)
	})
	if err := ctx.Err(); err != nil {
		return nil, err // a request given up does not take a slot
	}
	select {
	case e.slots <- struct{}{}:
		return func() { <-e.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Files reads repository files; internal/repofs implements it, refusing paths
// and links out of the repository.
type Files interface {
	ReadFile(rel string) ([]byte, error)
}

// worktree reads the worktree's files: e.Worktree, else the repository
// boundary over the root the generation was indexed from; nil when that
// root is not on this machine.
func (e *Engine) worktreeFiles(ctx context.Context) (Files, error) {
	e.worktreeOnce.Do(func() {
		if e.Worktree != nil {
			e.repo = e.Worktree
			return
		}
		m, err := e.R.Meta(context.WithoutCancel(ctx))
		if err != nil {
			e.repoErr = err
			return
		}
		if st, err := os.Stat(m.Root); err == nil && st.IsDir() {
			e.repo = repofs.New(m.Root)
		}
	})
	return e.repo, e.repoErr
}

// Files lists the generation's files, read from the store once.
func (e *Engine) Files(ctx context.Context) ([]graph.File, error) {
	e.filesOnce.Do(func() { e.files, e.filesErr = e.R.Files(ctx) })
	return e.files, e.filesErr
}

// Options shape one search.
type Options struct {
	Limit int // hits to return; default 20
	Files int // files to rank; default 10
	// Only, when set, runs just these generators (to measure each alone).
	Only []string
	// Dump returns every generator's full ranking in Result.Dump, for
	// offline evaluation and tuning of the fusion.
	Dump bool
	// Roots ranks chunks as a context pack wants them, whose strongest
	// hits are the roots its expansion through the graph grows from:
	// centrality counts for chunks too, and the graph's evidence in full
	// (chunkWeight).
	Roots bool
}

// DumpEntry is one entry of one generator's ranking.
type DumpEntry struct {
	Gen    string `json:"gen"`
	Rank   int    `json:"rank"`
	Path   string `json:"path"`
	Symbol string `json:"symbol,omitempty"`
	File   bool   `json:"file,omitempty"` // a file-level ranking entry
	Chunk  int64  `json:"chunk,omitempty"`
	Kind   string `json:"kind,omitempty"`  // the chunk's kind
	Lines  int    `json:"lines,omitempty"` // the chunk's length (lengthPrior)
}

// Hit is one fused result.
type Hit struct {
	ChunkID   int64
	Path      string
	SymbolID  graph.SymbolID
	Name      string // qualified symbol name; "" for a file chunk
	Kind      graph.ChunkKind
	StartLine uint32
	EndLine   uint32
	Score     float64
	// Ranks holds the 1-based rank the hit (or its file, for file-level
	// generators) had in each generator that found it.
	Ranks map[string]int
	Why   string
}

type cand struct {
	ref      graph.ChunkRef
	ranks    map[string]int
	evidence map[string]string
}

type search struct {
	e        *Engine
	ctx      context.Context
	q        query.Parsed
	cands    map[int64]*cand
	fileRank map[string]map[string]int // generator → path → rank
	fileWhy  map[string]map[string]string
	chunksOf map[string][]graph.ChunkRef
	// firstOf: a file's first chunk, known from its whole-file document
	// (which is filed under that chunk's id)
	firstOf map[string]graph.ChunkRef
	named   []NamedChange
	// namedRank: the chunks ranked so far for named changes
	namedRank int
	on        map[string]bool
	// pinned: for identifier search, the chunks of the name's definitions
	// and their files, which rank first
	pinned      map[int64]bool
	pinnedFiles map[string]bool
	// holds, holdsFiles: for identifier search, the chunks and files
	// that hold the name whole (its uses), which rank after the pinned
	holds      map[int64]bool
	holdsFiles map[string]bool
	// undefined: the identifier searched is no definition's name
	undefined bool
	// defs: the definitions of the names looked up (symbols, unwritten)
	defs map[string][]graph.Symbol
	vec  chan vectorHits   // the embedding scan started with the search
	msg  chan messageFinds // the message scan, likewise
	// roots: Options.Roots
	roots bool
	// lengths: the answer's ranking counts a function's length
	// (lengthPrior)
	lengths bool
}

type vectorHits struct {
	hits []vector.Scored
	err  error
}

// Search runs the generators for text and fuses them.
func (e *Engine) Search(ctx context.Context, text string, opts Options) (Result, error) {
	if opts.Limit <= 0 {
		opts.Limit = 20
	}
	release, err := e.admit(ctx)
	if err != nil {
		return Result{}, err
	}
	defer release()
	s := &search{e: e, ctx: ctx, q: query.Parse(text), cands: map[int64]*cand{},
		fileRank: map[string]map[string]int{}, fileWhy: map[string]map[string]string{},
		chunksOf: map[string][]graph.ChunkRef{}, firstOf: map[string]graph.ChunkRef{}, on: map[string]bool{},
		roots: opts.Roots}
	for _, g := range AllGenerators {
		s.on[g] = len(opts.Only) == 0 || slices.Contains(opts.Only, g)
	}
	s.lengths = !opts.Roots && s.q.Identifier == "" && len(opts.Only) == 0
	if s.q.Identifier != "" && len(opts.Only) == 0 {
		// Identifier search: the name's definitions, then the text that
		// holds it. Embeddings of a bare name find what it resembles, the
		// graph what its look-alikes call, and a commit message search
		// files that mention it: none of it is about the name, and they
		// were most of the time (bench/retrieval/RESULTS.md).
		for _, g := range []string{GenVector, GenGraph, GenTitle, GenMessage, GenHistory} {
			s.on[g] = false
		}
	}
	if e.pathSet(); e.pathsErr != nil {
		return Result{}, e.pathsErr
	}
	if _, err := e.generatedIn(); err != nil {
		return Result{}, err
	}
	if s.e.Vectors != nil && s.on[GenVector] {
		// the embedding scan needs nothing of the other generators: it
		// runs beside them, on the other core
		s.vec = make(chan vectorHits, 1)
		go func() {
			hits, err := s.e.Vectors.SearchText(ctx, s.q.Body, 200)
			s.vec <- vectorHits{hits, err}
		}()
	}
	if s.e.Text != nil && s.on[GenMessage] && (len(s.q.Errors) > 0 || len(s.q.Literals) > 0) {
		s.msg = make(chan messageFinds, 1)
		go func() {
			finds, err := s.scanMessages()
			s.msg <- messageFinds{finds, err}
		}()
	}
	steps := []func() error{s.text, s.vector, s.symbols, s.paths, s.messages, s.history, s.unwritten, s.change}
	for _, step := range steps {
		if err := step(); err != nil {
			return Result{}, err
		}
	}
	if s.on[GenGraph] || s.on[GenRank] {
		if err := s.graphAndRank(); err != nil {
			return Result{}, err
		}
	}
	res := s.result(opts.Limit, cmp.Or(opts.Files, 10), true)
	res.Named = s.named
	if s.undefined {
		res.Unresolved = fmt.Sprintf("no definition is named %s in the index: the hits are text that holds the name or its parts", redact.Bound(s.q.Identifier, redact.MaxQuoted))
	}
	if opts.Dump {
		res.Dump = s.dump()
	}
	return res, nil
}

func (s *search) weight(g string) float64 {
	if w, ok := s.e.Weights[g]; ok {
		return w
	}
	return DefaultWeights[g]
}

func (s *search) add(gen string, ref graph.ChunkRef, rank int, why string) {
	c := s.cands[ref.ID]
	if c == nil {
		c = &cand{ref: ref, ranks: map[string]int{}, evidence: map[string]string{}}
		s.cands[ref.ID] = c
	}
	if r, ok := c.ranks[gen]; !ok || rank < r {
		c.ranks[gen] = rank
		c.evidence[gen] = why
	}
}

func (s *search) addFile(gen, p string, rank int, why string) {
	if s.fileRank[gen] == nil {
		s.fileRank[gen] = map[string]int{}
		s.fileWhy[gen] = map[string]string{}
	}
	if r, ok := s.fileRank[gen][p]; !ok || rank < r {
		s.fileRank[gen][p] = rank
		s.fileWhy[gen][p] = why
	}
}

func (s *search) fileChunks(p string) []graph.ChunkRef {
	if cs, ok := s.chunksOf[p]; ok {
		return cs
	}
	cs, err := s.e.R.ChunksInFile(s.ctx, p)
	if err != nil {
		cs = nil
	}
	s.chunksOf[p] = cs
	return cs
}

// chunkAt returns the innermost chunk of file p covering line (the file
// chunk when no function or type chunk does).
func (s *search) chunkAt(p string, line uint32) (graph.ChunkRef, bool) {
	var best graph.ChunkRef
	found := false
	for _, c := range s.fileChunks(p) {
		if c.Range.StartLine <= line && line <= c.Range.EndLine {
			if !found || c.Range.Lines() < best.Range.Lines() {
				best, found = c, true
			}
		}
	}
	return best, found
}

// chunkOf returns the chunk of a definition.
func (s *search) chunkOf(d *graph.Symbol) (graph.ChunkRef, bool) {
	for _, c := range s.fileChunks(d.Path) {
		if c.Symbol == d.ID && c.Range.StartLine <= d.Range.StartLine+1 && d.Range.StartLine <= c.Range.EndLine {
			return c, true
		}
	}
	return s.chunkAt(d.Path, d.Range.StartLine)
}

// text: BM25 over chunks, and over whole files; and the same for the
// query's title alone.
func (s *search) text() error {
	if s.e.Text == nil {
		return nil
	}
	title := s.on[GenTitle] && s.q.Title != ""
	if !(s.on[GenText] || s.on[GenFile] || title) {
		return nil
	}
	var boosted []string
	for i, id := range s.q.Identifiers {
		if i >= 12 {
			break
		}
		_, base := graph.SplitQualified(id.Name)
		boosted = append(boosted, tokens.Lower(base))
	}
	text := s.q.Body
	if len(text) > 6000 {
		text = text[:6000]
	}
	// How deep the text rankings go: an identifier search's first
	// definitions and uses are in its first hundred chunks (its answer
	// is the definitions, then the text that holds the name), and
	// resolving every hit to a live chunk was a fifth of its time.
	chunkK, fileK := 300, 100
	if s.q.Identifier != "" {
		chunkK, fileK = 100, 50
	}
	// The whole-file searches and the title's run beside the chunk search
	// of the whole text, the longest. The title: an issue's shortest
	// statement of the problem, searched alone so that its words are not
	// outweighed by a long body's.
	type side struct {
		files, titleFiles, titleChunks []bm25.Hit
		err                            error
	}
	sideHits := make(chan side, 1)
	go func() {
		var r side
		if s.on[GenFile] {
			r.files, r.err = s.e.Text.SearchFiles(s.ctx, bm25.Query{Text: text, Name: s.q.Identifier}, fileK)
		}
		if title && r.err == nil {
			r.titleChunks, r.err = s.e.Text.Search(s.ctx, bm25.Query{Text: s.q.Title}, 100)
		}
		if title && r.err == nil {
			r.titleFiles, r.err = s.e.Text.SearchFiles(s.ctx, bm25.Query{Text: s.q.Title}, 50)
		}
		sideHits <- r
	}()
	if s.on[GenText] {
		hits, err := s.e.Text.Search(s.ctx, bm25.Query{Text: text, Boosted: boosted, Name: s.q.Identifier}, chunkK)
		if err != nil {
			return err
		}
		s.holds = wholeHits(hits)
		if err := s.addChunks(GenText, hits, "BM25"); err != nil {
			return err
		}
	}
	r := <-sideHits
	if r.err != nil {
		return r.err
	}
	if err := s.addChunks(GenTitle, r.titleChunks, "title BM25"); err != nil {
		return err
	}
	whole := wholeHits(r.files)
	if err := s.addFiles(GenFile, r.files, "file BM25"); err != nil {
		return err
	}
	if whole != nil {
		s.holdsFiles = map[string]bool{}
		for p, first := range s.firstOf { // a file hit is filed under its first chunk
			if whole[first.ID] {
				s.holdsFiles[p] = true
			}
		}
	}
	return s.addFiles(GenTitle, r.titleFiles, "file BM25 of the title")
}

// wholeHits returns the hits of a Name query that hold the name whole
// (bm25.WholeName), nil when none does, and gives them back their BM25
// score: the name's uses rank after its definitions by holding it (the
// sort in result), while the generator's ranking stays BM25's, so that
// the definitions keep their order among themselves.
func wholeHits(hits []bm25.Hit) map[int64]bool {
	var out map[int64]bool
	for i, h := range hits {
		if h.Score >= bm25.WholeName {
			if out == nil {
				out = map[int64]bool{}
			}
			out[h.ChunkID] = true
			hits[i].Score -= bm25.WholeName
		}
	}
	return out
}

// live resolves hits (BM25's, or embeddings' as scored chunk ids) to the
// live chunks they stand for, best first.
func (s *search) live(hits []bm25.Hit) ([]scoredRef, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	refs, err := s.e.R.ChunksByID(s.ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]graph.ChunkRef, len(refs))
	for _, r := range refs {
		byID[r.ID] = r
	}
	var live []scoredRef
	for _, h := range hits {
		if ref, ok := byID[h.ChunkID]; ok { // else a document of a replaced chunk
			live = append(live, scoredRef{ref, h.Score})
		}
	}
	return byScoreThenPlace(live), nil
}

// addChunks adds chunk hits as gen's ranking.
func (s *search) addChunks(gen string, hits []bm25.Hit, why string) error {
	live, err := s.live(hits)
	for i, h := range live {
		s.add(gen, h.ref, i+1, fmt.Sprintf("%s #%d", why, i+1))
	}
	return err
}

// addFiles adds whole-file hits (each filed under the id of the file's
// first chunk) as gen's file ranking.
func (s *search) addFiles(gen string, hits []bm25.Hit, why string) error {
	live, err := s.live(hits)
	for i, h := range live {
		s.firstOf[h.ref.Path] = h.ref
		s.addFile(gen, h.ref.Path, i+1, fmt.Sprintf("%s #%d", why, i+1))
	}
	return err
}

// history: the files that the past commits most like the query changed
// (package history), those still in the generation.
func (s *search) history() error {
	if s.e.History == nil || !s.on[GenHistory] {
		return nil
	}
	hx, err := s.e.History.Index()
	if err != nil || hx == nil {
		// damaged: status names it (graph/embedded.Check) and the next
		// index run rebuilds it; the other generators answer meanwhile
		return nil
	}
	have := s.e.pathSet()
	alive := func(p string) bool { _, ok := have[p]; return ok }
	// the changes the query names first: the culprit a regression report
	// names, the earlier report a duplicate points to
	rank := 0
	// (a damaged merges file: the commits that answer, and the repair
	// by the next index run that the manifest check asks for)
	named, _ := hx.Named(s.q.Refs)
	for _, c := range named {
		s.named = append(s.named, NamedChange{Ref: c.Ref, Hash: c.Hash, Subject: c.Subject, Files: c.Files})
		var live []string
		for _, p := range c.Files {
			if _, ok := s.fileRank[GenHistory][p]; !ok && alive(p) && !slices.Contains(live, p) {
				live = append(live, p)
			}
		}
		if len(live) == 0 || len(live) > namedMaxFiles {
			continue
		}
		// its files tie: that it changed them says no more of one than
		// of another, and the other generators choose among them
		rank++
		for _, p := range live {
			s.addFile(GenHistory, p, rank, fmt.Sprintf("changed by %s %q, which the query names", short(c.Hash), c.Subject))
		}
		s.namedChunks(c, live)
	}
	for _, h := range hx.Files(s.q.Body, 50, alive) {
		if _, ok := s.fileRank[GenHistory][h.Path]; ok {
			continue
		}
		rank++
		s.addFile(GenHistory, h.Path, rank, fmt.Sprintf("changed by a similar past commit %s %q", short(h.Commit.Hash), h.Commit.Subject))
	}
	return nil
}

func short(hash string) string { return hash[:min(8, len(hash))] }

// namedChunks ranks the definitions that still hold lines a named change
// added (git diff of the change against its first parent; a line of at
// least eight characters, matched whole in today's file), those holding
// more first (as many, tied), after the definitions of the changes named
// before it: a fix
// of a regression usually changes what the culprit wrote. On the 111
// commits of refs.sh (this off and on): files Acc@1 / @5 / MRR 0.351 /
// 0.694 / 0.639 → 0.369 / 0.703 / 0.651, fn Acc@1 / @10 / Rec@10 0.144 /
// 0.423 / 0.525 → 0.171 / 0.441 / 0.540 (five tasks better, two lose a
// function from the first ten to the culprit's); the dev set's history
// trees MRR 0.772 → 0.774, fn Acc@5 0.500 → 0.511, nothing lost. One git
// diff per named change: a one-shot search naming one took 50–80 ms
// against 40–50 ms for the same text without the "#" (zoekt, five runs).
func (s *search) namedChunks(c history.CommitHit, live []string) {
	m, err := s.e.R.Meta(s.ctx)
	if err != nil {
		return
	}
	added, err := gitrepo.AddedLines(s.ctx, m.Root, c.Hash, live)
	if err != nil || len(added) == 0 {
		return
	}
	wt, err := s.e.worktreeFiles(s.ctx)
	if err != nil || wt == nil {
		return
	}
	votes := map[int64]int{}
	refs := map[int64]graph.ChunkRef{}
	for _, p := range live {
		want := map[string]bool{}
		for _, l := range added[p] {
			if t := strings.TrimSpace(l); len(t) >= 8 {
				want[t] = true
			}
		}
		if len(want) == 0 {
			continue
		}
		b, err := wt.ReadFile(p)
		if err != nil {
			continue
		}
		for i, l := range strings.Split(string(b), "\n") {
			if !want[strings.TrimSpace(l)] {
				continue
			}
			if ref, ok := s.chunkAt(p, uint32(i+1)); ok && ref.Symbol != "" {
				votes[ref.ID]++
				refs[ref.ID] = ref
			}
		}
	}
	ids := make([]int64, 0, len(votes))
	for id := range votes {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Or(cmp.Compare(votes[b], votes[a]), comparePlace(refs[a], refs[b])) })
	// definitions holding as many of its lines tie
	for i, id := range ids {
		if i == 0 || votes[id] != votes[ids[i-1]] {
			s.namedRank++
		}
		s.add(GenHistory, refs[id], s.namedRank, fmt.Sprintf("holds lines %s %q added, which the query names", short(c.Hash), c.Subject))
	}
}

// namedMaxFiles: a named change of more files ranks none of them (it is
// still reported, Result.Named). A sweep that touched thirty files says
// little of which one a regression is in: on 28 commits that name an
// earlier change (bench/retrieval/commit_tasks.py --kind refs, history
// trees), all of a named change's files tied first cost caddy 5e6024c48d
// ("Fixes regression from #6560", a 30-file logging change) its file in
// the first five (Acc@5 0.821 → 0.786); capped at 5 or 10 nothing is
// lost and MRR is 0.763 → 0.769 (bench/retrieval/RESULTS.md).
const namedMaxFiles = 10

// NamedChange is a past change the query names by hash or number ("PR
// #3165 is likely the culprit"), found in the history index: a reader's
// first thing to look at in a regression report, whatever the ranking.
type NamedChange struct {
	Ref     string   `json:"ref" jsonschema:"how the query names it: #3165 or a commit hash"`
	Hash    string   `json:"hash"`
	Subject string   `json:"subject"`
	Files   []string `json:"files" jsonschema:"the files it changed (a merge: against its first parent), the search's strongest first"`
	// MoreFiles is how many files it changed beyond those listed.
	MoreFiles int `json:"more_files,omitempty" jsonschema:"how many more files it changed than are listed"`
}

// FileList is the first n of its files and how many more it changed
// ("a.go, b.go and 12 more").
func (c NamedChange) FileList(n int) string {
	paths, more := c.Files, c.MoreFiles
	if len(paths) > n {
		paths, more = paths[:n], more+len(paths)-n
	}
	if more == 0 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths, ", "), more)
}

// An answer lists at most namedMax named changes and namedFilesShown
// files of each.
const (
	namedMax        = 8
	namedFilesShown = 20
)

// History is a generation's history index, read when a search first asks
// for it: answers that search nothing (def, refs, a trace) do not pay for
// decoding it (16 ms for grpc-go's 5,000 commits).
type History struct {
	dir  string
	meta map[string]string
	once sync.Once
	x    *history.Index
	err  error
}

// NewHistory names the history index of the generation whose meta and
// side directory are given; nil when it has none.
func NewHistory(dir string, meta map[string]string) *History {
	if meta[history.KeyFile] == "" {
		return nil
	}
	return &History{dir: dir, meta: meta}
}

// Index opens the history index once.
func (h *History) Index() (*history.Index, error) {
	if h == nil {
		return nil, nil
	}
	h.once.Do(func() { h.x, h.err = history.Open(h.dir, h.meta) })
	return h.x, h.err
}

// scoredRef is a generator's hit.
type scoredRef struct {
	ref   graph.ChunkRef
	score float64
}

// byScoreThenPlace orders hits by score, breaking ties by path and
// position rather than by chunk id: ids depend on the order a store wrote
// chunks in, so id order would make rankings differ between runs and
// between stores.
func byScoreThenPlace(hs []scoredRef) []scoredRef {
	slices.SortStableFunc(hs, func(a, b scoredRef) int {
		return cmp.Or(ties.Compare(b.score, a.score), comparePlace(a.ref, b.ref))
	})
	return hs
}

func comparePlace(a, b graph.ChunkRef) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Range.StartByte, b.Range.StartByte), cmp.Compare(a.Kind, b.Kind))
}

// vector: embedding similarity.
func (s *search) vector() error {
	if s.e.Vectors == nil || !s.on[GenVector] {
		return nil
	}
	v := <-s.vec
	if v.err != nil {
		return v.err
	}
	var similar []bm25.Hit
	for _, h := range v.hits {
		if h.Score < 0.1 {
			break // not similar at all (the hits come best first)
		}
		similar = append(similar, bm25.Hit{ChunkID: h.ChunkID, Score: float64(h.Score)})
	}
	live, err := s.live(similar)
	if err != nil {
		return err
	}
	for i, h := range live {
		s.add(GenVector, h.ref, i+1, fmt.Sprintf("embedding #%d (cos %.2f)", i+1, h.score))
	}
	return nil
}

// symbols: definitions of identifiers the query names.
func (s *search) symbols() error {
	if !s.on[GenSymbol] {
		return nil
	}
	type found struct {
		ref  graph.ChunkRef
		name string
		w    float64
	}
	var all []found
	seen := map[int64]bool{}
	for i, id := range s.q.Identifiers {
		if i >= 30 {
			break
		}
		defs, err := s.definitions(id.Name)
		if err != nil {
			return err
		}
		if len(defs) == 0 && id.Name == s.q.Identifier {
			s.undefined = true
		}
		if len(defs) == 0 || len(defs) > 12 {
			continue // unknown, or too common a name to mean one place
		}
		if id.Name == s.q.Identifier && s.pinned == nil {
			s.pinned, s.pinnedFiles = map[int64]bool{}, map[string]bool{}
			for _, d := range defs {
				if ref, ok := s.chunkOf(&d); ok {
					s.pinned[ref.ID], s.pinnedFiles[ref.Path] = true, true
				}
			}
		}
		w := id.Weight / float64(len(defs))
		if _, base := graph.SplitQualified(id.Name); defs[0].Name != base {
			// only a spelling in another case: "POST" in an issue is an
			// HTTP method more often than the function post
			w *= foldedCase
		}
		for _, d := range defs {
			if d.IsTest {
				w *= 0.5
			}
			if ref, ok := s.chunkOf(&d); ok && !seen[ref.ID] {
				seen[ref.ID] = true
				all = append(all, found{ref, id.Name, w})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b found) int { return cmp.Compare(b.w, a.w) })
	for i, f := range all {
		s.add(GenSymbol, f.ref, i+1, "defines "+f.name+", named in the query")
	}
	return nil
}

// definitions finds a name's definitions once per search.
func (s *search) definitions(name string) ([]graph.Symbol, error) {
	if d, ok := s.defs[name]; ok {
		return d, nil
	}
	d, err := graph.FindDefinitions(s.ctx, s.e.R, name)
	if err != nil {
		return nil, err
	}
	if s.defs == nil {
		s.defs = map[string][]graph.Symbol{}
	}
	s.defs[name] = d
	return d, nil
}

// matchFile resolves a path as written (absolute, relative, or a bare file
// name) to indexed files, by the longest common suffix of path elements.
func (s *search) matchFile(p string) []string {
	p = strings.ReplaceAll(p, `\`, "/")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	best, bestN := []string(nil), 0
	for f := range s.e.pathSet() {
		n := 0
		for rest := f; n < len(parts); n++ {
			i := strings.LastIndexByte(rest, '/')
			if rest[i+1:] != parts[len(parts)-1-n] {
				break
			}
			if i < 0 {
				n++
				break
			}
			rest = rest[:i]
		}
		if n == 0 {
			continue
		}
		switch {
		case n > bestN:
			best, bestN = []string{f}, n
		case n == bestN:
			best = append(best, f)
		}
	}
	if len(best) > 5 {
		return nil // a name too common to pick
	}
	slices.Sort(best) // in path order, whatever the map's
	return best
}

// paths: files the query names, and frames of its stack traces.
func (s *search) paths() error {
	if !s.on[GenPath] {
		return nil
	}
	rank, frank := 0, 0
	// A callable a signature error names: the traceback ends in its
	// caller, the definition is what does not accept the call.
	for _, name := range s.q.Callees {
		defs, err := s.definitions(name)
		if err != nil {
			return err
		}
		if len(defs) == 0 || len(defs) > 3 {
			continue
		}
		for _, d := range defs {
			if c, ok := s.chunkOf(&d); ok {
				rank++
				frank++
				why := "does not accept the call a signature error reports: " + name
				s.add(GenPath, c, rank, why)
				s.addFile(GenPath, c.Path, frank, why)
			}
		}
	}
	// Frames: the innermost frames of a traceback come last.
	for i := len(s.q.Frames) - 1; i >= 0; i-- {
		f := s.q.Frames[i]
		for _, p := range s.matchFile(f.Path) {
			if c, ok := s.chunkAt(p, uint32(f.Line)); ok {
				rank++
				s.add(GenPath, c, rank, fmt.Sprintf("stack frame %s:%d", path.Base(f.Path), f.Line))
			}
		}
	}
	// Links to lines of code: the reporter points at the place.
	linked := s.resolveLinks()
	for i, l := range s.q.Links {
		if linked[i] == "" || l.Line == 0 {
			continue
		}
		if c, ok := s.chunkAt(linked[i], uint32(l.Line)); ok {
			rank++
			s.add(GenPath, c, rank, fmt.Sprintf("linked in the query: %s#L%d", linked[i], l.Line))
		}
	}
	// Files: those of a traceback's frames first, innermost first (the
	// outer frames are the dispatch every failure passes through), then
	// the files linked, then the other paths named, in order.
	named := map[string]bool{}
	name := func(mention, why string) {
		if named[mention] {
			return
		}
		named[mention] = true
		for _, p := range s.matchFile(mention) {
			frank++
			s.addFile(GenPath, p, frank, why+mention)
		}
	}
	for i := len(s.q.Frames) - 1; i >= 0; i-- {
		name(s.q.Frames[i].Path, "file of a stack frame: ")
	}
	for i := range s.q.Links {
		if p := linked[i]; p != "" && !named[p] {
			named[p] = true
			frank++
			s.addFile(GenPath, p, frank, "file linked in the query: "+p)
		}
	}
	for _, mention := range s.q.Paths {
		name(mention, "file named in the query: ")
	}
	return nil
}

// resolveLinks finds the indexed file each of the query's links points at
// ("" for none): a link's ref is a revision followed by a path, so the
// longest tail of it that is exactly an indexed path is the file. A link
// into another repository names no file here unless this one has the same
// path.
func (s *search) resolveLinks() []string {
	if len(s.q.Links) == 0 {
		return nil
	}
	have := s.e.pathSet()
	out := make([]string, len(s.q.Links))
	for i, l := range s.q.Links {
		for ref := l.Ref; ref != ""; {
			if _, ok := have[ref]; ok {
				out[i] = ref
				break
			}
			_, rest, ok := strings.Cut(ref, "/")
			if !ok {
				break
			}
			ref = rest
		}
	}
	return out
}

// graphAndRank: neighbours of the strongest hits, and centrality.
func (s *search) graphAndRank() error {
	top := s.fuse(8)
	var ids []graph.SymbolID
	seen := map[graph.SymbolID]bool{}
	for _, h := range top {
		if h.SymbolID != "" && !seen[h.SymbolID] {
			seen[h.SymbolID] = true
			ids = append(ids, h.SymbolID)
		}
	}
	if s.on[GenGraph] && len(ids) > 0 {
		rank := 0
		for _, dir := range []graph.Direction{graph.In, graph.Out} {
			edges, err := s.e.R.Edges(s.ctx, ids, dir, graph.EdgeCalls)
			if err != nil {
				return err
			}
			// the definitions of as many neighbours as are likely to be
			// admitted, at once; the rest one by one
			defsOf, err := graph.SymbolsByIDs(s.ctx, s.e.R, graph.Neighbours(edges, dir, seen, 2*maxGraphHits))
			if err != nil {
				return err
			}
			for _, e := range edges {
				other, via := e.From, e.To
				if dir == graph.Out {
					other, via = e.To, e.From
				}
				if seen[other] || e.Ambiguous {
					continue
				}
				seen[other] = true
				defs, ok := defsOf[other]
				if !ok { // beyond the batch
					if defs, err = s.e.R.SymbolsByID(s.ctx, other); err != nil {
						return err
					}
				}
				if len(defs) == 0 {
					continue
				}
				if ref, ok := s.chunkOf(&defs[0]); ok {
					rank++
					rel := "called by"
					if dir == graph.In {
						rel = "calls"
					}
					s.add(GenGraph, ref, rank, rel+" "+via.Display())
				}
				if rank >= maxGraphHits {
					break
				}
			}
		}
	}
	if s.on[GenRank] {
		var syms []graph.SymbolID
		for _, c := range s.cands {
			if c.ref.Symbol != "" {
				syms = append(syms, c.ref.Symbol)
			}
		}
		ranks, err := s.e.R.Ranks(s.ctx, syms)
		if err != nil {
			return err
		}
		type rc struct {
			c *cand
			r float64
		}
		var list []rc
		for _, c := range s.cands {
			if r := ranks[c.ref.Symbol]; r > 0 {
				list = append(list, rc{c, r})
			}
		}
		slices.SortFunc(list, func(a, b rc) int { return cmp.Or(ties.Compare(b.r, a.r), comparePlace(a.c.ref, b.c.ref)) })
		for i, x := range list {
			s.add(GenRank, x.c.ref, i+1, fmt.Sprintf("central (rank %.1f)", x.r))
		}
	}
	return nil
}

// foldedCase scales the evidence of a definition whose name matches the
// query's identifier only when case is ignored (the languages cairn reads
// are case-sensitive): such a hit ranks below the exact ones.
const foldedCase = 0.25

// maxGraphHits bounds the graph generator's hits per direction.
const maxGraphHits = 40

// FileHit is a file in the fused file ranking.
type FileHit struct {
	Path  string
	Score float64
	Ranks map[string]int
	Why   string
	// Generated: the generated files made with this one, which the index
	// skips (Engine.GeneratedWith).
	Generated []string
}

// Result is a search's answer: files ranked by fused file evidence, and
// chunks ranked by fused chunk evidence (plus a share of their file's).
type Result struct {
	Files []FileHit
	Hits  []Hit
	// Named are the past changes the query names (with a history index).
	Named []NamedChange
	Dump  []DumpEntry
	// Unresolved says that a query that is one name names no
	// definition, so that hits holding its parts are not taken for it.
	Unresolved string
}

// fileFusion is the fused ranking of files: every file's score, and the
// evidence behind it, explained only for the files shown.
type fileFusion struct {
	score map[string]float64
	// share is score without the history generator: what a chunk
	// inherits of its file's score (history says which files a change
	// touches, not which of their functions)
	share   map[string]float64
	penalty map[string]float64   // penalty(path), for the file and its chunks
	file    map[genPath]evidence // the file-level generators' ranks
	chunk   map[genPath]evidence // each chunk generator's best chunk of the file
}

type genPath struct{ gen, path string }

type evidence struct {
	r  int
	ev string
}

// fileScores fuses file-level generators with each chunk generator's best
// chunk per file.
func (s *search) fileScores() *fileFusion {
	f := &fileFusion{score: map[string]float64{}, share: map[string]float64{}, penalty: map[string]float64{}, file: map[genPath]evidence{}, chunk: map[genPath]evidence{}}
	for gen, m := range s.fileRank {
		for p, r := range m {
			f.file[genPath{gen, p}] = evidence{r, s.fileWhy[gen][p]}
			v := s.weight(gen) / (rrfK + float64(r))
			f.score[p] += v
			if gen != GenHistory {
				f.share[p] += v
			}
		}
	}
	for _, c := range s.cands {
		for gen, r := range c.ranks {
			k := genPath{gen, c.ref.Path}
			if b, ok := f.chunk[k]; !ok || r < b.r {
				f.chunk[k] = evidence{r, c.evidence[gen]}
			}
		}
	}
	for k, b := range f.chunk {
		v := s.weight(k.gen) / (rrfK + float64(b.r))
		f.score[k.path] += v
		f.share[k.path] += v
	}
	for p := range f.score {
		f.penalty[p] = s.e.penalty(p)
		f.score[p] *= f.penalty[p]
		f.share[p] *= f.penalty[p]
	}
	return f
}

// explain returns file p's rank in each generator and the strongest
// evidence for it (equal ones by generator name; of one generator's file
// and chunk evidence, the file's).
func (s *search) explain(f *fileFusion, p string) (map[string]int, string) {
	ranks := map[string]int{}
	var why, whyGen string
	var whyScore float64
	note := func(gen string, e evidence) {
		v := s.weight(gen) / (rrfK + float64(e.r))
		if old, ok := ranks[gen]; !ok || e.r < old {
			ranks[gen] = e.r
		}
		if c := ties.Compare(v, whyScore); c > 0 || (c == 0 && whyGen != "" && gen < whyGen) {
			whyScore, why, whyGen = v, e.ev, gen
		}
	}
	for _, m := range []map[genPath]evidence{f.file, f.chunk} {
		for _, gen := range AllGenerators {
			if e, ok := m[genPath{gen, p}]; ok {
				note(gen, e)
			}
		}
	}
	return ranks, why
}

// fuse merges the generators' rankings.
func (s *search) fuse(limit int) []Hit {
	return s.result(limit, 0, false).Hits
}

// result ranks files and chunks; final is the answer's ranking (the
// length prior counts), not the graph's roots.
func (s *search) result(limit, fileLimit int, final bool) Result {
	ff := s.fileScores()
	fileScore := ff.score
	if final {
		// a named change's files, the search's strongest first, and not
		// more than an answer can use
		s.named = s.named[:min(len(s.named), namedMax)]
		for i := range s.named {
			c := &s.named[i]
			slices.SortStableFunc(c.Files, func(a, b string) int { return ties.Compare(fileScore[b], fileScore[a]) })
			if len(c.Files) > namedFilesShown {
				c.MoreFiles = len(c.Files) - namedFilesShown
				c.Files = c.Files[:namedFilesShown]
			}
		}
	}
	type explained struct {
		ranks map[string]int
		why   string
	}
	known := map[string]explained{}
	fileOf := func(p string) explained {
		x, ok := known[p]
		if !ok {
			x.ranks, x.why = s.explain(ff, p)
			known[p] = x
		}
		return x
	}
	// Files found only by file-level generators get their best chunk in.
	has := map[string]bool{}
	for _, c := range s.cands {
		has[c.ref.Path] = true
	}
	for p := range fileScore {
		if has[p] {
			continue
		}
		first, ok := s.firstOf[p]
		if !ok {
			cs := s.fileChunks(p)
			if len(cs) == 0 {
				continue
			}
			first = cs[0]
		}
		s.cands[first.ID] = &cand{ref: first, ranks: map[string]int{}, evidence: map[string]string{}}
	}
	// Score every candidate, rank, and only then explain the first limit.
	type scoredCand struct {
		c     *cand
		score float64
	}
	all := make([]scoredCand, 0, len(s.cands))
	for _, c := range s.cands {
		score := 0.0
		for gen, r := range c.ranks {
			score += s.chunkWeight(gen) / (rrfK + float64(r))
		}
		// Questions and issues are about behaviour: the code that has it
		// outranks the tests that check it and the prose about it, all else
		// being equal.
		// (every candidate's file has a fused score: its own ranks count)
		score *= ff.penalty[c.ref.Path]
		if final {
			score *= s.lengthFactor(c.ref)
		}
		score += fileShare * ff.share[c.ref.Path]
		all = append(all, scoredCand{c, score})
	}
	slices.SortFunc(all, func(a, b scoredCand) int {
		return cmp.Or(graph.BoolOrder(s.pinned[b.c.ref.ID], s.pinned[a.c.ref.ID]), graph.BoolOrder(s.holds[b.c.ref.ID], s.holds[a.c.ref.ID]),
			ties.Compare(b.score, a.score), strings.Compare(a.c.ref.Path, b.c.ref.Path), cmp.Compare(a.c.ref.Range.StartLine, b.c.ref.Range.StartLine))
	})
	if len(all) > limit {
		all = all[:limit]
	}
	hits := make([]Hit, 0, len(all))
	type contrib struct {
		gen string
		v   float64
	}
	var cs []contrib
	for _, x := range all {
		c := x.c
		cs = cs[:0]
		for gen, r := range c.ranks {
			if w := s.chunkWeight(gen); w > 0 {
				cs = append(cs, contrib{gen, w / (rrfK + float64(r))})
			}
		}
		// the evidence, strongest first
		slices.SortFunc(cs, func(a, b contrib) int { return cmp.Or(ties.Compare(b.v, a.v), strings.Compare(a.gen, b.gen)) })
		// the two strongest pieces of evidence say why (Ranks has them all)
		var whys []string
		for _, x := range cs {
			if e := c.evidence[x.gen]; e != "" && len(whys) < 2 {
				whys = append(whys, e)
			}
		}
		if s.holds[c.ref.ID] && !s.pinned[c.ref.ID] {
			// what ranks a use first in identifier search
			whys = append([]string{"holds " + redact.Bound(s.q.Identifier, redact.MaxQuoted)}, whys...)
		}
		why := strings.Join(whys, "; ")
		if fw := fileOf(c.ref.Path).why; fw != "" && fw != why {
			if why != "" {
				why += "; "
			}
			why += "file: " + fw
		}
		ranks := map[string]int{}
		for gen, r := range fileOf(c.ref.Path).ranks {
			if gen == GenFile || gen == GenPath {
				ranks[gen] = r // the rank its file had
			}
		}
		for gen, r := range c.ranks {
			ranks[gen] = r
		}
		h := Hit{ChunkID: c.ref.ID, Path: c.ref.Path, SymbolID: c.ref.Symbol, Kind: c.ref.Kind,
			StartLine: c.ref.Range.StartLine, EndLine: c.ref.Range.EndLine, Score: ties.Round(x.score), Ranks: ranks, Why: why}
		if c.ref.Kind != graph.ChunkFile {
			h.Name = c.ref.Name
		}
		hits = append(hits, h)
	}
	if fileLimit == 0 {
		return Result{Hits: hits}
	}
	files := make([]FileHit, 0, len(fileScore))
	for p, sc := range fileScore {
		files = append(files, FileHit{Path: p, Score: ties.Round(sc)})
	}
	slices.SortFunc(files, func(a, b FileHit) int {
		return cmp.Or(graph.BoolOrder(s.pinnedFiles[b.Path], s.pinnedFiles[a.Path]), graph.BoolOrder(s.holdsFiles[b.Path], s.holdsFiles[a.Path]),
			ties.Compare(b.Score, a.Score), strings.Compare(a.Path, b.Path))
	})
	if len(files) > fileLimit {
		files = files[:fileLimit]
	}
	for i := range files {
		x := fileOf(files[i].Path)
		files[i].Ranks, files[i].Why = x.ranks, x.why
		files[i].Generated, _ = s.e.GeneratedWith(files[i].Path) // its error is Search's (generatedIn before the steps)
	}
	return Result{Files: files, Hits: hits}
}

// dump lists every generator's ranking.
func (s *search) dump() []DumpEntry {
	var out []DumpEntry
	for _, c := range s.cands {
		for gen, r := range c.ranks {
			e := DumpEntry{Gen: gen, Rank: r, Path: c.ref.Path, Chunk: c.ref.ID, Kind: c.ref.Kind.String(), Lines: chunkLines(c.ref)}
			if c.ref.Kind != graph.ChunkFile {
				e.Symbol = c.ref.Name
			}
			out = append(out, e)
		}
	}
	for gen, m := range s.fileRank {
		for p, r := range m {
			out = append(out, DumpEntry{Gen: gen, Rank: r, Path: p, File: true})
		}
	}
	slices.SortFunc(out, func(a, b DumpEntry) int {
		return cmp.Or(strings.Compare(a.Gen, b.Gen), cmp.Compare(a.Rank, b.Rank), strings.Compare(a.Path, b.Path), cmp.Compare(a.Chunk, b.Chunk))
	})
	return out
}
