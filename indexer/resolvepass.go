package indexer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/resolve"
	"github.com/cairn-dev/cairn/indexer/treesitter"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// defTracker records which names changed their set of definitions during a
// run: files that mention such a name must be resolved again, since what
// their references mean may have changed.
type defTracker struct {
	names     map[string]bool
	goChanged bool
}

func newDefTracker() *defTracker { return &defTracker{names: map[string]bool{}} }

// change compares a file's definitions before and after.
func (d *defTracker) change(before, after []graph.Symbol) {
	ids := func(ss []graph.Symbol) map[string][]graph.SymbolID {
		m := map[string][]graph.SymbolID{}
		for _, s := range ss {
			m[s.Name] = append(m[s.Name], s.ID)
		}
		for k := range m {
			slices.Sort(m[k])
		}
		return m
	}
	a, b := ids(before), ids(after)
	for n, x := range a {
		if !slices.Equal(x, b[n]) {
			d.names[n] = true
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			d.names[n] = true
		}
	}
	// Go's structural implementations depend on types and their methods
	// only: a changed function or variable does not call for recomputing them.
	for _, ss := range [][]graph.Symbol{before, after} {
		for _, s := range ss {
			if s.Lang == graph.LangGo && (s.Kind.IsType() || s.Kind == graph.KindMethod) && d.names[s.Name] {
				d.goChanged = true
			}
		}
	}
}

// lockedReader serialises reads through the writer's transaction.
type lockedReader struct {
	mu sync.Mutex
	r  graph.Reader
}

func (l *lockedReader) SymbolsByName(ctx context.Context, name string) ([]graph.Symbol, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.SymbolsByName(ctx, name)
}

func (l *lockedReader) SymbolsInFile(ctx context.Context, p string) ([]graph.Symbol, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.SymbolsInFile(ctx, p)
}

// resolveStats summarises the resolution pass.
type resolveStats struct {
	Files   int
	Edges   int
	Derived int
	Ranked  bool
}

// memResolveAt is the number of files written from which an incremental
// run loads the whole symbol table to resolve them — when they are also a
// twentieth of the repository's files (memResolveShare): on the Linux
// kernel (5 M symbols) loading the table cost 25 s of CPU and 1.2 GB for a
// checkout of 3,000 files, whose names one lookup each finds sooner.
const (
	memResolveAt    = 300
	memResolveShare = 20
)

// rerank reports whether a run that resolved todo of analysed files
// recomputes centrality: a full run, or one that resolved more than a
// tenth of them. Ranks are a ranking prior that a smaller change barely
// moves, and recomputing them reads every edge: on the Linux kernel a
// checkout of 3,000 files (a twentieth) spent 25 s of CPU reading 23 M
// edges for it.
func rerank(full bool, todo, analysed int) bool {
	return full || todo*10 > analysed
}

// useMemTable reports whether a run resolving written of files files
// loads the whole symbol table (a full run always does).
func useMemTable(full bool, written, files int) bool {
	return full || (written >= memResolveAt && written*memResolveShare >= files)
}

// loadTable reads the whole symbol table for a run's resolution into a
// compact, pointer-free table (resolve.MemSource), n the store's count of
// symbols. Doc and Signature are not needed to resolve and are dropped.
// A table too large for the in-memory form returns resolve.ErrTableFull.
func loadTable(ctx context.Context, view graph.Reader, n int) (*resolve.MemSource, error) {
	ms := resolve.NewMemSourceCap(n)
	add := func(s graph.Symbol) error {
		s.Doc, s.Signature = "", ""
		return ms.Add(&s)
	}
	// In the store's order where it has one (graph.SymbolScanner): the
	// table needs each file's symbols together, not the files in path
	// order, which the embedded store sorted for in memory.
	if sc, ok := view.(graph.SymbolScanner); ok {
		return ms, sc.ScanSymbols(ctx, add)
	}
	return ms, view.AllSymbols(ctx, add)
}

// resolveFiles resolves the given files' references, replaces their edges,
// then recomputes whole-graph edges and centrality when warranted.
func resolveFiles(ctx context.Context, w graph.Writer, root string, paths []string, full bool, defs *defTracker,
	goMods map[string]string, workers int, progress func(Progress)) (resolveStats, error) {
	var st resolveStats
	view := w.View()
	lr := &lockedReader{r: view}
	files, err := view.Files(ctx)
	if err != nil {
		return st, err
	}
	// The symbol table: all in memory for a full run, or an incremental
	// one resolving many files (a checkout: one scan beats thousands of
	// lookups), looked up lazily through the transaction otherwise.
	mem := useMemTable(full, len(paths), len(files))
	var src resolve.Source = lr
	var ms *resolve.MemSource
	var order []int32             // the symbols in AllSymbols's order, as positions in ms
	var byPath map[string][]int32 // positions of each file's symbols
	if mem {
		var n int
		if m, err := view.Meta(ctx); err == nil {
			n = m.Symbols
		}
		t, err := loadTable(ctx, view, n)
		switch {
		case errors.Is(err, resolve.ErrTableFull):
			mem = false // looked up in the store instead
		case err != nil:
			return st, err
		default:
			// Grouped by name in place; files keep positions into it
			// (4 bytes a symbol, not a second copy).
			ms, order = t, t.Group()
			src = ms
			byPath = positionsByPath(ms, order)
		}
	}
	// facts reads what the resolver needs of one file: the per-file facts
	// and its symbols (from memory in a full run).
	facts := func(p string) (*graph.FileFacts, error) {
		lr.mu.Lock()
		ff, err := w.Facts(ctx, p)
		lr.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if mem {
			pos := byPath[p]
			ff.Symbols = make([]graph.Symbol, len(pos))
			for i, at := range pos {
				ff.Symbols[i] = ms.Symbol(at)
			}
		} else if ff.Symbols, err = lr.SymbolsInFile(ctx, p); err != nil {
			return nil, err
		}
		return ff, nil
	}
	x := resolve.NewIndex(ctx, src, files)
	x.SetGoModules(goMods)
	x.Imports = func(p string) []graph.Import {
		lr.mu.Lock()
		defer lr.mu.Unlock()
		ff, err := w.Facts(ctx, p)
		if err != nil {
			return nil
		}
		return ff.Imports
	}
	r := resolve.New(x, treesitter.ModuleSymbol)

	// Which files: the ones written, plus (incrementally) the ones whose
	// names changed meaning.
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	if !full && len(defs.names) > 0 {
		for n := range defs.names {
			mention, err := view.FilesMentioning(ctx, n)
			if err != nil {
				return st, err
			}
			for _, p := range mention {
				want[p] = true
			}
		}
	}
	analysed := map[string]bool{}
	for _, f := range files {
		if f.Lang.HasParser() && f.Status.Analysed() {
			analysed[f.Path] = true
		}
	}
	var todo []string
	for p := range want {
		if analysed[p] {
			todo = append(todo, p)
		}
	}
	slices.Sort(todo)

	type result struct {
		path  string
		ff    *graph.FileFacts
		edges []graph.Edge
		err   error
	}
	jobs := make(chan string)
	results := make(chan result, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < max(workers, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				ff, err := facts(p)
				res := result{path: p, ff: ff, err: err}
				if err == nil {
					res.edges = resolveOne(r, ff)
				}
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, p := range todo {
			select {
			case jobs <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var firstErr error
	done := 0
	for res := range results {
		if firstErr != nil {
			continue
		}
		if res.err == nil {
			lr.mu.Lock()
			res.err = w.SetResolution(ctx, res.ff, res.edges)
			lr.mu.Unlock()
		}
		if res.err != nil {
			firstErr = fmt.Errorf("resolve %s: %w", res.path, res.err)
			cancel()
			continue
		}
		st.Files++
		st.Edges += len(res.edges)
		done++
		if progress != nil && done%200 == 0 {
			progress(Progress{Phase: "resolve", Done: done, Total: len(todo)})
		}
	}
	if firstErr != nil {
		return st, firstErr
	}
	if err := x.Err(); err != nil {
		return st, err
	}

	// Go's structural implementations span packages: recompute them when
	// any Go definition changed.
	if full || defs.goChanged {
		var goSyms []graph.Symbol
		if mem {
			for _, at := range order {
				if ms.Lang(at) == graph.LangGo {
					goSyms = append(goSyms, ms.Symbol(at))
				}
			}
		} else if err := view.AllSymbols(ctx, func(s graph.Symbol) error {
			if s.Lang == graph.LangGo {
				goSyms = append(goSyms, s)
			}
			return nil
		}); err != nil {
			return st, err
		}
		derived := resolve.GoImplementations(goSyms)
		if err := w.SetDerivedEdges(ctx, derived); err != nil {
			return st, err
		}
		st.Derived = len(derived)
	}

	// Centrality is a ranking prior: recompute it on full runs and when a
	// sizeable part of the graph changed (rerank).
	if rerank(full, len(todo), len(analysed)) {
		var ranker graph.Ranker // each id once, not every edge's copy
		if err := w.AllEdges(ctx, graph.PageRankKinds, ranker.Add); err != nil {
			return st, err
		}
		if err := w.SetRanks(ctx, ranker.Rank(0)); err != nil {
			return st, err
		}
		st.Ranked = true
	}
	return st, nil
}

// GoModules reads the go.mod files among paths (repository-relative; the
// others are ignored) under root: module path → directory.
func GoModules(root string, paths []string) map[string]string {
	mods := map[string]string{}
	repo := repofs.New(root)
	for _, p := range paths {
		if path.Base(p) != "go.mod" {
			continue
		}
		b, err := repo.ReadFile(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if m, ok := strings.CutPrefix(line, "module "); ok {
				mods[strings.Trim(strings.TrimSpace(m), `"`)] = path.Dir(p)
				break
			}
		}
	}
	return mods
}

// resolveOne resolves one file; a panic in the resolver costs that file its
// edges, not the run.
func resolveOne(r *resolve.Resolver, ff *graph.FileFacts) (edges []graph.Edge) {
	orig := slices.Clone(ff.Occurrences)
	defer func() {
		if p := recover(); p != nil {
			edges, ff.Occurrences = nil, orig
		}
	}()
	return r.File(ff)
}

// positionsByPath groups the symbols' positions (order: AllSymbols's
// order, positions in ms) by file. AllSymbols lists a file's symbols
// together, so each file's are a subslice of order; they are copied only
// for a file whose symbols come apart. Each group has no room after it.
func positionsByPath(ms *resolve.MemSource, order []int32) map[string][]int32 {
	byPath := map[string][]int32{}
	for i := 0; i < len(order); {
		p := ms.Path(order[i])
		j := i + 1
		for j < len(order) && ms.Path(order[j]) == p {
			j++
		}
		if prev, ok := byPath[p]; ok {
			byPath[p] = slices.Clip(append(slices.Clip(prev), order[i:j]...))
		} else {
			byPath[p] = order[i:j:j]
		}
		i = j
	}
	return byPath
}
