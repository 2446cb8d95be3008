package indexer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/scip"
	"github.com/cairn-dev/cairn/indexer/treesitter"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// Options configure an index run.
type Options struct {
	// Root is the repository to index.
	Root string
	// StateDir holds the crash journal (normally the index directory).
	StateDir string
	// Workers parse in parallel; 0 means GOMAXPROCS.
	Workers int
	// ParseTimeout bounds each file's parse; 0 means the extractor default.
	ParseTimeout time.Duration
	// MaxFileSize skips larger files; 0 means the walker default.
	MaxFileSize int64
	// ExcludeDirs are repository-relative directories never indexed.
	ExcludeDirs []string
	// Progress, when set, is called from one goroutine as work advances.
	Progress func(Progress)
	// Sinks receive the facts of every file written, for side indexes.
	Sinks []Sink
	// Log receives per-file problems; nil discards them.
	Log *slog.Logger
	// Paths, when non-empty, limits the run to these repository-relative
	// paths (a watcher's change set); everything else is kept as it is.
	Paths []string
	// SCIP lists SCIP indexes to merge; files named index.scip in the
	// repository are found and merged too, unless NoSCIPDiscovery.
	SCIP            []scip.Spec
	NoSCIPDiscovery bool
	// SkipUnchanged aborts, instead of committing, an incremental run that
	// changed nothing (no file written, re-stamped, deleted or re-flagged,
	// same revision and dirty flag): a watcher's periodic rescan then costs
	// no generation. Result.NoChange reports it.
	SkipUnchanged bool
}

// Progress is a snapshot of an index run. Phases come in this order:
// "walk", "scip" (when SCIP indexes are merged), "parse" (Done/Total
// files), "files" (the worktree's flags and categories), "resolve"
// (Done/Total files), then one phase per side index that names itself
// (PhasedSink: "text", "vectors"; Done/Total when it reports them), and
// "commit" (the store's own commit). Every phase is reported when it
// starts, so a long one is never silent.
type Progress struct {
	Phase   string
	Done    int
	Total   int
	Elapsed time.Duration
}

// PhasedSink is a Sink whose Finish is long enough to be its own phase of
// the run's progress: Phase names it, and FinishProgress, when set before
// Finish, receives how far Finish is (done of total units; total 0 when
// unknown).
type PhasedSink interface {
	Sink
	Phase() string
	FinishProgress(func(done, total int))
}

// Sink is a side index built together with a store generation (text search,
// vectors). The indexer calls Begin, then Put for every file it (re)writes
// and Delete for every file it removes or replaces, then Finish before the
// store commits; the returned meta is committed with the generation, so a
// side index is published exactly when the facts are.
type Sink interface {
	Begin(ctx context.Context, dir string, fresh bool) error
	Put(ctx context.Context, ff *graph.FileFacts, chunkIDs []int64) error
	Delete(ctx context.Context, path string) error
	Finish(ctx context.Context) (map[string]string, error)
	Abort()
}

// FreshWriter is implemented by writers that can say whether they build a
// generation from scratch.
type FreshWriter interface {
	Fresh() (bool, string)
}

// PreviousWriter is implemented by writers that describe, cheaply, the
// generation an incremental run extends (counts may be left out).
type PreviousWriter interface {
	Previous() graph.Meta
}

// changeWriter notes whether a run wrote anything.
type changeWriter struct {
	graph.Writer
	changed bool
}

func (c *changeWriter) PutFile(ctx context.Context, ff *graph.FileFacts) ([]int64, error) {
	c.changed = true
	return c.Writer.PutFile(ctx, ff)
}

func (c *changeWriter) Touch(ctx context.Context, path string, size, modTime int64) error {
	c.changed = true
	return c.Writer.Touch(ctx, path, size, modTime)
}

func (c *changeWriter) SetCommitted(ctx context.Context, path string, committed bool) error {
	c.changed = true
	return c.Writer.SetCommitted(ctx, path, committed)
}

func (c *changeWriter) SetCategory(ctx context.Context, path string, cat graph.FileCategory) error {
	c.changed = true
	return c.Writer.SetCategory(ctx, path, cat)
}

func (c *changeWriter) Delete(ctx context.Context, path string) error {
	c.changed = true
	return c.Writer.Delete(ctx, path)
}

func (c *changeWriter) PutSkip(ctx context.Context, s graph.Skip, size, modTime int64) error {
	c.changed = true
	return c.Writer.PutSkip(ctx, s, size, modTime)
}

func (c *changeWriter) SetResolution(ctx context.Context, ff *graph.FileFacts, edges []graph.Edge) error {
	c.changed = true
	return c.Writer.SetResolution(ctx, ff, edges)
}

func (c *changeWriter) SetDerivedEdges(ctx context.Context, edges []graph.Edge) error {
	c.changed = true
	return c.Writer.SetDerivedEdges(ctx, edges)
}

func (c *changeWriter) SetRanks(ctx context.Context, ranks map[graph.SymbolID]float64) error {
	c.changed = true
	return c.Writer.SetRanks(ctx, ranks)
}

// Result summarises an index run.
type Result struct {
	Meta      graph.Meta
	Fresh     bool
	Why       string // why the run was fresh, or "incremental"
	Walked    int    // files the walk kept
	Parsed    int    // files (re)extracted
	Unchanged int    // files whose facts were reused
	Deleted   int    // paths removed
	Skipped   int    // paths skipped, by any reason
	Resolved  int    // files whose references were (re)resolved
	Edges     int    // edges written
	SCIP      SCIPStats
	Problems  []FileProblem
	Duration  time.Duration
	// NoChange: with Options.SkipUnchanged, the run found nothing to change
	// and committed nothing; Meta describes the generation that stays.
	NoChange bool
}

// SCIPStats summarises SCIP ingestion.
type SCIPStats struct {
	Indexes  []string // the indexes read
	Docs     int      // documents in them
	Merged   int      // files whose facts took SCIP symbols
	Stale    []string // files whose document did not match ("path: reason")
	Escaped  int      // documents outside the project, skipped
	Problems []string
}

// FileProblem is a file that could not be (fully) analysed.
type FileProblem struct {
	Path   string
	Status graph.ParseStatus
	Err    string
}

// job is one file to read and maybe parse.
type job struct {
	entry walk.Entry
	known graph.FileState
	had   bool
}

// outcome is what a worker made of a job.
type outcome struct {
	job     job
	ff      *graph.FileFacts // nil: skip or unchanged
	skip    graph.Skip
	touched bool // content unchanged: just a new stat
	merged  bool // a SCIP document was merged (see merge)
	merge   scip.MergeResult
	err     error
}

// Run indexes opts.Root into w. On error the generation is aborted and the
// previous one stays current.
func Run(ctx context.Context, w graph.Writer, opts Options) (res Result, err error) {
	st := newRunState(opts, &res)
	if fw, ok := w.(FreshWriter); ok {
		res.Fresh, res.Why = fw.Fresh()
	}
	var prev *graph.Meta
	if pw, ok := w.(PreviousWriter); ok && opts.SkipUnchanged && !res.Fresh {
		m := pw.Previous()
		prev = &m
	}
	cw := &changeWriter{Writer: w}
	w = cw
	committed := false
	var begun []Sink
	defer func() {
		if !committed {
			for _, s := range begun {
				s.Abort()
			}
			w.Abort()
		}
	}()
	for _, s := range st.opts.Sinks {
		if err := s.Begin(ctx, w.Dir(), res.Fresh); err != nil {
			return res, fmt.Errorf("start side index: %w", err)
		}
		begun = append(begun, s)
	}
	defer func() { st.journal.close() }()
	if err := st.extract(ctx, w, st.opts.Sinks, false); err != nil {
		return res, err
	}
	if err := st.resolve(ctx, w); err != nil {
		return res, err
	}

	// 7. Commit side indexes, then the store.
	if opts.SkipUnchanged && !res.Fresh && !cw.changed {
		if prev == nil {
			m, err := w.View().Meta(ctx)
			if err != nil {
				return res, err
			}
			prev = &m
		}
		if prev.Revision == st.tree.Revision && prev.Dirty == st.dirty {
			res.NoChange, res.Meta = true, *prev
			res.Duration = time.Since(st.start)
			return res, nil // the deferred abort releases the writer and the sinks
		}
	}
	if err := st.commit(ctx, w); err != nil {
		return res, err
	}
	committed = true
	return res, nil
}

// runState carries an index run through its phases: extraction (steps
// 1–5), resolution (6) and commit (7). Run does them all in one process;
// Extract and Finalize split them between the jobs of a shared build and
// its finalizer (shard.go).
type runState struct {
	opts     Options
	start    time.Time
	log      *slog.Logger
	res      *Result
	progress func(Progress)
	journal  *journal

	root       string
	tree       gitTree
	written    []string // paths whose facts were (re)written
	gone       []string // paths deleted
	defs       *defTracker
	dirty      bool
	entryPaths []string // every path whose go.mod may matter
	parsed     int      // files sent to the parsers
	// recategorize: a file that decides other files' category (walk.VendoredBy)
	// was written, deleted or newly skipped, so every category is checked
	recategorize bool
}

func newRunState(opts Options, res *Result) *runState {
	st := &runState{opts: opts, start: time.Now(), res: res, log: opts.Log, defs: newDefTracker()}
	st.opts.Workers = cmp.Or(opts.Workers, runtime.GOMAXPROCS(0))
	if st.log == nil {
		st.log = slog.New(slog.DiscardHandler)
	}
	st.progress = func(p Progress) {
		if opts.Progress != nil {
			p.Elapsed = time.Since(st.start)
			opts.Progress(p)
		}
	}
	return st
}

// extract walks, reads, parses and writes (steps 1–5), feeding sinks. A
// job (shard) of a shared build leaves every path outside opts.Paths to
// the job that owns it.
func (st *runState) extract(ctx context.Context, w graph.Writer, sinks []Sink, shard bool) error {
	opts, res, progress := st.opts, st.res, st.progress
	log, start := st.log, st.start

	// 1. Walk.
	progress(Progress{Phase: "walk"})
	wk, err := walk.New(walk.Options{Root: opts.Root, MaxFileSize: opts.MaxFileSize, ExcludeDirs: opts.ExcludeDirs})
	if err != nil {
		return err
	}
	st.root = wk.Root()
	var entries []walk.Entry
	var skips []graph.Skip
	only := pathFilter(opts.Paths)
	keep := func(e walk.Entry) error {
		entries = append(entries, e)
		return nil
	}
	skip := func(s graph.Skip) error {
		skips = append(skips, s)
		return nil
	}
	if only == nil {
		err = wk.Walk(ctx, keep, skip)
	} else {
		// Only the given paths, with the ignore files above them in force.
		err = wk.WalkPaths(ctx, opts.Paths, nil, keep, skip)
	}
	if err != nil {
		return fmt.Errorf("walk %s: %w", opts.Root, err)
	}
	res.Walked = len(entries)
	specs := slices.Clone(opts.SCIP)
	if !opts.NoSCIPDiscovery {
		for _, s := range skips {
			if !s.Dir && path.Base(s.Path) == "index.scip" {
				specs = append(specs, scip.Spec{File: filepath.Join(wk.Root(), filepath.FromSlash(s.Path)), Subdir: path.Dir(s.Path)})
			}
		}
	}
	var scipSet *scip.Set
	if len(specs) > 0 {
		progress(Progress{Phase: "scip"})
		if scipSet, err = scip.Load(ctx, specs); err != nil {
			return err
		}
		for _, sp := range specs {
			res.SCIP.Indexes = append(res.SCIP.Indexes, sp.File)
		}
		res.SCIP.Docs, res.SCIP.Escaped, res.SCIP.Problems = len(scipSet.Docs), scipSet.Escaped, scipSet.Problems
	}
	known, err := w.Known(ctx)
	if err != nil {
		return err
	}
	tree := readGitTree(ctx, wk.Root())
	st.tree = tree
	st.journal = openJournal(opts.StateDir, opts.Workers)
	journal := st.journal

	// 2. Decide what to read. A file whose size and mtime match the index,
	// and whose mtime is not so recent that a same-tick edit could hide,
	// is unchanged without reading it.
	racy := start.Add(-2 * time.Second).UnixNano()
	var jobs []job
	seen := make(map[string]bool, len(entries)+len(skips))
	for _, e := range entries {
		seen[e.Path] = true
		k, had := known[e.Path]
		scipChanged := false
		if d := scipSet.Doc(e.Path); d != nil && d.Key != k.SCIP {
			scipChanged = true // a new index covers the file
		}
		if had && k.Size == e.Size && k.ModTime == e.ModTime && e.ModTime < racy && !journal.suspect(k.Hash, e.Path) && !scipChanged {
			if k.Skip != graph.SkipNone {
				res.Skipped++ // skipped for its content, which did not change
			} else {
				res.Unchanged++
			}
			continue
		}
		jobs = append(jobs, job{entry: e, known: k, had: had})
	}
	st.parsed = len(jobs)

	// The indexed files of the generation, as far as known before reading
	// them, for the category rules that look at other files (a file that
	// turns out to be skipped for its content sets st.recategorize).
	indexed := make(map[string]bool, len(entries))
	for _, e := range entries {
		if k, had := known[e.Path]; !had || k.Skip == graph.SkipNone {
			indexed[e.Path] = true
		}
	}
	if only != nil {
		for p, k := range known {
			if k.Skip == graph.SkipNone && !only(p) {
				indexed[p] = true
			}
		}
	}
	isFile := func(p string) bool { return indexed[p] }
	jobCh := make(chan job)
	outCh := make(chan outcome, opts.Workers*2)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	repo := repofs.New(wk.Root())
	var wg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func(slot int) {
			defer wg.Done()
			x := treesitter.New(treesitter.Options{Timeout: opts.ParseTimeout})
			defer x.Close()
			for j := range jobCh {
				out := process(ctx, x, j, repo, journal, slot, scipSet, isFile)
				select {
				case outCh <- out:
				case <-ctx.Done():
					return
				}
			}
		}(i)
	}
	go func() {
		defer close(jobCh)
		for _, j := range jobs {
			select {
			case jobCh <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(outCh) }()

	defs := st.defs
	var done atomic.Int64
	lastProgress := time.Time{}
	var firstErr error
	fileHash := map[string]string{}
	skippedNow := map[string]bool{}
	for out := range outCh {
		if firstErr != nil {
			continue
		}
		if err := write(ctx, w, sinks, out, res, log, defs, res.Fresh); err != nil {
			firstErr = err
			cancel()
			continue
		}
		wasIndexed := out.job.had && out.job.known.Skip == graph.SkipNone
		if out.ff != nil {
			fileHash[out.ff.File.Path] = out.ff.File.Hash
			st.written = append(st.written, out.ff.File.Path)
			st.recategorize = st.recategorize || !wasIndexed && walk.VendoredBy(out.ff.File.Path)
		} else if out.skip.Reason != graph.SkipNone {
			skippedNow[out.job.entry.Path] = true
			// (a new file was presumed indexed)
			st.recategorize = st.recategorize || (wasIndexed || !out.job.had) && walk.VendoredBy(out.job.entry.Path)
		}
		n := int(done.Add(1))
		if now := time.Now(); now.Sub(lastProgress) > 100*time.Millisecond || n == len(jobs) {
			lastProgress = now
			progress(Progress{Phase: "parse", Done: n, Total: len(jobs)})
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// 4. Skips and deletions.
	for _, s := range skips {
		seen[s.Path] = true
		res.Skipped++
		if k, ok := known[s.Path]; ok && k.Skip == s.Reason {
			continue
		}
		var size, mtime int64
		if !s.Dir {
			if st, err := os.Lstat(filepath.Join(wk.Root(), filepath.FromSlash(s.Path))); err == nil {
				size, mtime = st.Size(), st.ModTime().UnixNano()
			}
		}
		if k, ok := known[s.Path]; ok && k.Skip == graph.SkipNone {
			st.recategorize = st.recategorize || walk.VendoredBy(s.Path)
		}
		if k, ok := known[s.Path]; ok && k.Skip == graph.SkipNone && !res.Fresh {
			old, err := w.View().SymbolsInFile(ctx, s.Path)
			if err != nil {
				return err
			}
			defs.change(old, nil)
		}
		if err := w.PutSkip(ctx, s, size, mtime); err != nil {
			return err
		}
		for _, sk := range sinks {
			if err := sk.Delete(ctx, s.Path); err != nil {
				return err
			}
		}
	}
	var gone []string
	for p := range known {
		if !seen[p] && (only == nil || only(p)) {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	for _, p := range gone {
		if known[p].Skip == graph.SkipNone {
			st.recategorize = st.recategorize || walk.VendoredBy(p)
		}
		if !res.Fresh {
			old, err := w.View().SymbolsInFile(ctx, p)
			if err != nil {
				return err
			}
			defs.change(old, nil)
		}
		if err := w.Delete(ctx, p); err != nil {
			return err
		}
		for _, sk := range sinks {
			if err := sk.Delete(ctx, p); err != nil {
				return err
			}
		}
		res.Deleted++
	}
	st.gone = gone

	// 5. Revision: which files equal their blob at HEAD. Files skipped for
	// their content have no hash to compare and do not count.
	dirty := tree.Revision == ""
	for _, e := range entries {
		h, ok := fileHash[e.Path]
		if !ok {
			if skippedNow[e.Path] || known[e.Path].Skip != graph.SkipNone {
				continue
			}
			h = known[e.Path].Hash
		}
		committed := tree.Blobs[e.Path] == h && h != ""
		if !committed {
			dirty = true
		}
		if k, had := known[e.Path]; !had || k.Committed != committed || fileHash[e.Path] != "" {
			if err := w.SetCommitted(ctx, e.Path, committed); err != nil {
				return err
			}
		}
	}
	if only != nil && !shard {
		// A partial run keeps the files outside its paths as they are, but
		// HEAD may have moved since their flags were set. (The jobs of a
		// shared build each do this for their own paths.)
		for p, k := range known {
			if k.Skip != graph.SkipNone {
				continue
			}
			committed := tree.Blobs[p] == k.Hash && k.Hash != ""
			if committed && k.Committed || only(p) {
				continue // most files: clean before and after
			}
			if !committed {
				dirty = true
			}
			if k.Committed != committed {
				if err := w.SetCommitted(ctx, p, committed); err != nil {
					return err
				}
			}
		}
	}
	st.dirty = dirty

	if st.recategorize && !shard {
		// (a job of a shared build leaves this to Finalize, which sees
		// every job's files)
		files, err := w.View().Files(ctx)
		if err != nil {
			return fmt.Errorf("list files to check their categories: %w", err)
		}
		if err := recategorize(ctx, w, files); err != nil {
			return err
		}
	}

	for _, e := range entries {
		st.entryPaths = append(st.entryPaths, e.Path)
	}
	if only != nil {
		// The go.mod files of the whole repository, not only of the paths.
		for p, k := range known {
			if path.Base(p) == "go.mod" && k.Skip == graph.SkipNone && !only(p) {
				st.entryPaths = append(st.entryPaths, p)
			}
		}
	}
	return nil
}

// recategorize decides the category of every file of the generation
// again, now that it is known which files are indexed, and records those
// that changed: a file decided before its neighbours were (in a full run,
// or a package's __init__.py that came or went) may have been decided
// wrongly.
func recategorize(ctx context.Context, w graph.Writer, files []graph.File) error {
	indexed := make(map[string]bool, len(files))
	for _, f := range files {
		indexed[f.Path] = true
	}
	isFile := func(p string) bool { return indexed[p] }
	for _, f := range files {
		if c := walk.Category(f.Path, isFile); c != f.Category {
			if err := w.SetCategory(ctx, f.Path, c); err != nil {
				return fmt.Errorf("record the category of %s: %w", f.Path, err)
			}
		}
	}
	return nil
}

// resolve resolves references and derives the graph's edges (step 6).
func (st *runState) resolve(ctx context.Context, w graph.Writer) error {
	res := st.res
	if len(st.written) > 0 || len(st.defs.names) > 0 || res.Fresh {
		st.progress(Progress{Phase: "resolve"})
		rs, err := resolveFiles(ctx, w, st.root, st.written, res.Fresh, st.defs, GoModules(st.root, st.entryPaths), st.opts.Workers, st.progress)
		if err != nil {
			return err
		}
		res.Resolved, res.Edges = rs.Files, rs.Edges+rs.Derived
	}
	return nil
}

// commit finishes the side indexes and commits the store (step 7).
func (st *runState) commit(ctx context.Context, w graph.Writer) error {
	res := st.res
	meta := graph.Meta{Root: st.root, Revision: st.tree.Revision, Dirty: st.dirty, IndexedAt: time.Now(), Extra: map[string]string{}}
	for _, s := range st.opts.Sinks {
		if ps, ok := s.(PhasedSink); ok {
			phase := ps.Phase()
			st.progress(Progress{Phase: phase})
			ps.FinishProgress(func(done, total int) { st.progress(Progress{Phase: phase, Done: done, Total: total}) })
		}
		extra, err := s.Finish(ctx)
		if err != nil {
			return fmt.Errorf("finish side index: %w", err)
		}
		for k, v := range extra {
			meta.Extra[k] = v
		}
	}
	st.progress(Progress{Phase: "commit"})
	if err := w.Commit(ctx, meta); err != nil {
		return err
	}
	st.journal.clear()
	res.Meta = meta
	res.Duration = time.Since(st.start)
	return nil
}

// pathFilter returns a predicate for paths equal to or below one of paths.
func pathFilter(paths []string) func(string) bool {
	if len(paths) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, p := range paths {
		set[filepath.ToSlash(filepath.Clean(p))] = true
	}
	return func(p string) bool {
		for q := p; ; {
			if set[q] {
				return true
			}
			i := lastSlash(q)
			if i < 0 {
				return false
			}
			q = q[:i]
		}
	}
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// process reads one file and extracts its facts. It runs on a worker.
func process(ctx context.Context, x *treesitter.Extractor, j job, repo *repofs.FS, jr *journal, slot int, set *scip.Set, isFile func(string) bool) outcome {
	e := j.entry
	out := outcome{job: j}
	content, err := repo.ReadFile(e.Path)
	if err != nil {
		out.skip = graph.Skip{Path: e.Path, Reason: graph.SkipUnreadable, Detail: err.Error()}
		return out
	}
	hash := BlobHash(content)
	doc := set.Doc(e.Path)
	if j.had && j.known.Skip == graph.SkipNone && j.known.Hash == hash && !jr.suspect(hash, e.Path) && (doc == nil || doc.Key == j.known.SCIP) {
		out.touched = true
		return out
	}
	lang, reason, detail := walk.Classify(e.Path, e.Lang, content)
	if reason != graph.SkipNone {
		out.skip = graph.Skip{Path: e.Path, Reason: reason, Detail: detail}
		return out
	}
	var ff *graph.FileFacts
	if jr.quarantined(hash, e.Path) {
		ff = &graph.FileFacts{File: graph.File{Path: e.Path, Lang: lang, Status: graph.ParseCrashed,
			Error: "the parser crashed on this content in earlier runs; it is indexed as text until it changes"},
			Chunks: treesitter.TextChunks(e.Path, content)}
	} else {
		jr.begin(slot, hash, e.Path)
		ff, err = x.Extract(ctx, e.Path, lang, content)
		jr.end(slot)
		if ff == nil {
			out.err = err
			return out
		}
		out.err = err
	}
	if doc != nil && ff.File.Status.Analysed() {
		out.merge = scip.Merge(ff, content, doc)
		out.merged = true
	}
	ff.File.Hash = hash
	ff.File.Size = e.Size
	ff.File.ModTime = e.ModTime
	ff.File.Lang = lang
	ff.File.Category = walk.Category(e.Path, isFile)
	if ff.File.Lines == 0 {
		ff.File.Lines = countLines(content)
	}
	redactSymbols(ff)
	out.ff = ff
	return out
}

// redactSymbols removes secrets from the signatures and docs of a file's
// symbols (tree-sitter's and SCIP's) before they are stored: every surface
// shows them, and none can then show a secret. A signature is code (only
// string literals count as assigned secrets); a doc is prose.
func redactSymbols(ff *graph.FileFacts) {
	p, code := ff.File.Path, ff.File.Lang.HasParser()
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		if s.Signature != "" {
			s.Signature = redact.Line(p, s.Signature, code)
		}
		if s.Doc != "" {
			s.Doc = redact.Line(p, s.Doc, false)
		}
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// write applies one outcome to the store and the sinks.
func write(ctx context.Context, w graph.Writer, sinks []Sink, out outcome, res *Result, log *slog.Logger, defs *defTracker, fresh bool) error {
	e := out.job.entry
	switch {
	case out.touched:
		res.Unchanged++
		if k := out.job.known; k.Size == e.Size && k.ModTime == e.ModTime {
			return nil // read only because its mtime was racy: nothing to record
		}
		return w.Touch(ctx, e.Path, e.Size, e.ModTime)
	case out.ff == nil && out.skip.Reason != graph.SkipNone:
		res.Skipped++
		if out.job.had && out.job.known.Skip == graph.SkipNone && !fresh {
			old, err := w.View().SymbolsInFile(ctx, e.Path)
			if err != nil {
				return err
			}
			defs.change(old, nil)
		}
		if err := w.PutSkip(ctx, out.skip, e.Size, e.ModTime); err != nil {
			return err
		}
		for _, s := range sinks {
			if err := s.Delete(ctx, e.Path); err != nil {
				return err
			}
		}
		return nil
	case out.ff == nil:
		return fmt.Errorf("index %s: %w", e.Path, out.err)
	}
	ff := out.ff
	res.Parsed++
	if out.merged {
		if out.merge.Stale {
			res.SCIP.Stale = append(res.SCIP.Stale, e.Path+": "+out.merge.Reason)
			log.Warn("SCIP document not merged", "path", e.Path, "reason", out.merge.Reason)
		} else {
			res.SCIP.Merged++
		}
	}
	log.Debug("extracted", "path", e.Path, "status", ff.File.Status.String(), "previously", out.job.had)
	if ff.File.Status != graph.ParseOK && ff.File.Status != graph.ParseTextOnly {
		res.Problems = append(res.Problems, FileProblem{Path: e.Path, Status: ff.File.Status, Err: ff.File.Error})
		log.Debug("file not fully analysed", "path", e.Path, "status", ff.File.Status.String(), "error", ff.File.Error)
	}
	if out.err != nil && !errors.Is(out.err, treesitter.ErrTimeout) {
		log.Warn("extraction problem", "path", e.Path, "error", out.err)
	}
	if out.job.had && !fresh {
		old, err := w.View().SymbolsInFile(ctx, e.Path)
		if err != nil {
			return err
		}
		defs.change(old, ff.Symbols)
	} else if !fresh {
		defs.change(nil, ff.Symbols)
	}
	ids, err := w.PutFile(ctx, ff)
	if err != nil {
		return err
	}
	for _, s := range sinks {
		if out.job.had {
			if err := s.Delete(ctx, e.Path); err != nil {
				return err
			}
		}
		if err := s.Put(ctx, ff, ids); err != nil {
			return err
		}
	}
	return nil
}
