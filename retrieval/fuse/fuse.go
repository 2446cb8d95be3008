package fuse

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/retrieval/internal/ties"
	"github.com/cairn-dev/cairn/retrieval/query"
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
	// GenValue: the functions on the write and read paths of the values
	// the query talks about (value.go)
	GenValue = "value"
)

// AllGenerators in a stable order.
var AllGenerators = []string{GenText, GenFile, GenTitle, GenVector, GenSymbol, GenPath, GenMessage, GenHistory, GenUnwritten, GenChange, GenValue, GenGraph, GenRank}

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
	GenText: 0.5, GenFile: 0.5, GenTitle: 0.4, GenVector: 0.6, GenSymbol: 0.4, GenPath: 0.6, GenMessage: 0.5, GenHistory: 0.5, GenUnwritten: 0.5, GenChange: 1, GenValue: valueWeight, GenGraph: 0.5, GenRank: 0.4,
}

// valueWeight is GenValue's weight: conservative, at the weakest of the
// other generators' (symbol, title, rank), since the dev set's issues
// rarely talk about a value's path and it could not be tuned there; the
// context builder admits the same functions on its own (a share of the
// budget before generic hits), so the search only needs them found.
// Chosen, not tuned: the dev set's localization was checked not to fall
// with it (bench/retrieval/RESULTS.md).
const valueWeight = 0.4

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
	vec  chan vectorHits // the embedding scan started with the search
	vals chan valueFinds // the value traces, likewise
	// stopValues cancels the value traces
	stopValues context.CancelFunc
	// found: what the value generator traced (Result.Values)
	found Values
	msg   chan messageFinds // the message scan, likewise
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
	s.startValues()
	steps := []func() error{s.text, s.vector, s.symbols, s.paths, s.messages, s.history, s.unwritten, s.change, s.values}
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
	res.Values = s.found
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
	// Values are the functions on the paths of the values the query
	// talks about (GenValue), with what was traced and when it was cut.
	Values Values
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
