package indexer

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
)

// A shared build (the PostgreSQL store, package indexer/fleet) splits an
// index run between processes: each job runs Extract over its paths and
// commits that through its own writer; once all jobs are done, one process
// runs Finalize over what they recorded. Together they do what Run does.

// Extraction is what one job found: Finalize's input, stored with the job
// (hence JSON).
type Extraction struct {
	Walked    int           `json:"walked"`
	Parsed    int           `json:"parsed"`
	Unchanged int           `json:"unchanged"`
	Deleted   int           `json:"deleted"`
	Skipped   int           `json:"skipped"`
	Problems  []FileProblem `json:"problems,omitempty"`
	SCIP      SCIPStats     `json:"scip"`
	// Changed lists the names whose definitions changed (an incremental
	// build re-resolves the files that mention them); GoChanged says a Go
	// type or method changed (structural implementations are recomputed).
	Changed   []string `json:"changed,omitempty"`
	GoChanged bool     `json:"go_changed,omitempty"`
	// Gone lists the paths deleted.
	Gone     []string `json:"gone,omitempty"`
	Revision string   `json:"revision"`
	Dirty    bool     `json:"dirty"`
	Seconds  float64  `json:"seconds"`
}

// Extract walks, reads, parses and writes the files at or below
// opts.Paths (all files when empty) into w, deletes what vanished there and
// records which files equal their blob at HEAD: an index run's first half,
// for one job of a shared build. It touches no path outside opts.Paths (the
// job that owns it does), feeds no side index (Finalize builds them from
// the stored chunk texts), and neither commits nor aborts w.
func Extract(ctx context.Context, w graph.Writer, opts Options) (Extraction, error) {
	var res Result
	opts.Sinks = nil
	st := newRunState(opts, &res)
	if fw, ok := w.(FreshWriter); ok {
		res.Fresh, res.Why = fw.Fresh()
	}
	err := st.extract(ctx, w, nil, true)
	st.journal.close()
	if err != nil {
		return Extraction{}, err
	}
	st.journal.clear() // the parsers survived every file
	x := Extraction{Walked: res.Walked, Parsed: res.Parsed, Unchanged: res.Unchanged, Deleted: res.Deleted,
		Skipped: res.Skipped, Problems: res.Problems, SCIP: res.SCIP, GoChanged: st.defs.goChanged,
		Gone: st.gone, Revision: st.tree.Revision, Dirty: st.dirty, Seconds: time.Since(st.start).Seconds()}
	for n := range st.defs.names {
		x.Changed = append(x.Changed, n)
	}
	slices.Sort(x.Changed)
	return x, nil
}

// TextSource is implemented by writers that keep the text of chunks (the
// PostgreSQL store's), so that side indexes can be built after extraction,
// by another process than the one that extracted.
type TextSource interface {
	// WrittenPaths lists the paths whose facts the build (re)wrote.
	WrittenPaths(ctx context.Context) ([]string, error)
	// FactsWithText calls fn for each path with its symbols, its chunks
	// with their text, and the chunk ids.
	FactsWithText(ctx context.Context, paths []string, fn func(ff *graph.FileFacts, ids []int64) error) error
}

// Finalize completes a shared build whose jobs all ran Extract (xs are
// their results): it builds the side indexes (opts.Sinks) from the texts w
// keeps, resolves the references of the written files and of the files that
// mention names whose definitions changed, derives whole-graph edges and
// ranks, and commits w. On error w is aborted.
func Finalize(ctx context.Context, w graph.Writer, xs []Extraction, opts Options) (res Result, err error) {
	st := newRunState(opts, &res)
	if fw, ok := w.(FreshWriter); ok {
		res.Fresh, res.Why = fw.Fresh()
	}
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
	ts, ok := w.(TextSource)
	if !ok {
		return res, fmt.Errorf("finalize: the store keeps no chunk text")
	}
	wk, err := walk.New(walk.Options{Root: opts.Root})
	if err != nil {
		return res, err
	}
	st.root = wk.Root()
	st.dirty = len(xs) == 0
	var gone []string
	for _, x := range xs {
		res.Walked += x.Walked
		res.Parsed += x.Parsed
		res.Unchanged += x.Unchanged
		res.Deleted += x.Deleted
		res.Skipped += x.Skipped
		res.Problems = append(res.Problems, x.Problems...)
		res.SCIP.Merged += x.SCIP.Merged
		res.SCIP.Stale = append(res.SCIP.Stale, x.SCIP.Stale...)
		if len(x.SCIP.Indexes) > len(res.SCIP.Indexes) {
			res.SCIP.Indexes, res.SCIP.Docs, res.SCIP.Escaped, res.SCIP.Problems = x.SCIP.Indexes, x.SCIP.Docs, x.SCIP.Escaped, x.SCIP.Problems
		}
		for _, n := range x.Changed {
			st.defs.names[n] = true
		}
		st.defs.goChanged = st.defs.goChanged || x.GoChanged
		gone = append(gone, x.Gone...)
		if st.tree.Revision == "" {
			st.tree.Revision = x.Revision
		}
		st.dirty = st.dirty || x.Dirty || x.Revision == ""
	}
	if st.written, err = ts.WrittenPaths(ctx); err != nil {
		return res, err
	}
	st.parsed = len(st.written)
	// Every path of the generation, for go.mod discovery.
	view := w.View()
	files, err := view.Files(ctx)
	if err != nil {
		return res, err
	}
	for _, f := range files {
		st.entryPaths = append(st.entryPaths, f.Path)
	}
	// Categories: each job decided its files' knowing only its own paths.
	if err := recategorize(ctx, w, files); err != nil {
		return res, err
	}

	// Side indexes, from the stored texts; they index on goroutines of
	// their own while references are resolved.
	if len(opts.Sinks) > 0 {
		st.progress(Progress{Phase: "text", Total: len(st.written)})
		for _, s := range opts.Sinks {
			if err := s.Begin(ctx, w.Dir(), res.Fresh); err != nil {
				return res, fmt.Errorf("start side index: %w", err)
			}
			begun = append(begun, s)
		}
		slices.Sort(gone)
		for _, p := range gone {
			for _, s := range opts.Sinks {
				if err := s.Delete(ctx, p); err != nil {
					return res, err
				}
			}
		}
		n := 0
		err := ts.FactsWithText(ctx, st.written, func(ff *graph.FileFacts, ids []int64) error {
			for _, s := range opts.Sinks {
				if !res.Fresh {
					if err := s.Delete(ctx, ff.File.Path); err != nil {
						return err
					}
				}
				if err := s.Put(ctx, ff, ids); err != nil {
					return err
				}
			}
			n++
			if n%500 == 0 {
				st.progress(Progress{Phase: "text", Done: n, Total: len(st.written)})
			}
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	if err := st.resolve(ctx, w); err != nil {
		return res, err
	}
	if err := st.commit(ctx, w); err != nil {
		return res, err
	}
	committed = true
	return res, nil
}
