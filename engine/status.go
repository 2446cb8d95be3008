package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/indexer/watch"
	"github.com/cairn-dev/cairn/retrieval/history"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

// Worktree is the worktree's state against a generation: unindexed
// changes, a moved HEAD, a watcher's pending changes.
type Worktree = watch.Worktree

// StatusOptions ask Status what the index holds.
type StatusOptions struct {
	// Skips lists every skipped path with its reason.
	Skips bool
	// SkipWorktree leaves the worktree unchecked (Worktree.Source
	// "skipped").
	SkipWorktree bool
}

// FileProblem is an indexed file that could not be fully analysed.
type FileProblem struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// SkippedPath is a path the index left out, and why.
type SkippedPath struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	Dir    bool   `json:"dir,omitempty"`
}

// Watcher says whether a watcher keeps the index fresh: a summary of the
// status it publishes, which Published holds whole.
type Watcher struct {
	Published watch.Status `json:"-"`
	Running   bool         `json:"running"`
	State     string       `json:"state,omitempty"`
	// Mode is how it learns of changes (events, or polling when degraded);
	// Degraded says why events may be missed.
	Mode      string `json:"mode,omitempty"`
	Degraded  string `json:"degraded,omitempty"`
	PID       int    `json:"pid,omitempty"`
	Pending   int    `json:"pending,omitempty" jsonschema:"changes seen and not yet indexed"`
	Batches   int    `json:"batches,omitempty"`
	Commits   int    `json:"commits,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// Error: the watcher's status could not be read.
	Error string `json:"error,omitempty"`
}

// StatusResult is what the index holds and how fresh it is.
type StatusResult struct {
	// Root is the worktree answers are read from; IndexedFrom, when it
	// differs, is where the index was built (a copied or moved checkout:
	// facts are stored relative to the root, so they follow it, and
	// freshness is checked against Root).
	Root        string         `json:"root"`
	IndexedFrom string         `json:"indexed_from,omitempty"`
	IndexDir    string         `json:"index_dir"`
	Files       int            `json:"files"`
	Symbols     int            `json:"symbols"`
	Chunks      int            `json:"chunks"`
	Languages   map[string]int `json:"languages"`
	// LanguageTiers names each indexed language's tier (graph.Language.Tier).
	LanguageTiers map[string]string `json:"language_tiers" jsonschema:"how deeply each language is analysed: first-class, tags (definitions and name-only references) or text"`
	Status        map[string]int    `json:"status" jsonschema:"files by parse status"`
	Skipped       map[string]int    `json:"skipped" jsonschema:"paths left out, by reason"`
	// Problems are the files not fully analysed.
	Problems []FileProblem `json:"problems" jsonschema:"indexed files that could not be fully analysed"`
	// Skips lists the skipped paths (StatusOptions.Skips).
	Skips []SkippedPath `json:"skips,omitempty"`
	// StaleFiles counts indexed files changed or deleted since indexing.
	StaleFiles    int      `json:"stale_files" jsonschema:"indexed files changed or deleted since indexing"`
	StaleExamples []string `json:"stale_examples,omitempty"`
	// Worktree is the watcher's view (or a bounded scan's): unindexed
	// changes, pending ones, whether a watcher keeps the index fresh.
	Worktree Worktree `json:"worktree"`
	Watcher  Watcher  `json:"watcher"`
	// HistoryCommits is how many commits the history index holds (0:
	// none: outside git, or indexed with --history 0).
	HistoryCommits int `json:"history_commits"`
	// HistoryOutdated: the history index is of an older cairn's format;
	// search goes without it until `cairn index` reads it again.
	HistoryOutdated bool `json:"history_outdated,omitempty" jsonschema:"the history index is of an older format: search goes without it until cairn index reads it again"`
	// Vectors names the embedding model of the chunks' vectors ("" for
	// none); VectorsUntrained, when there are none because the built-in
	// model had too little text to train on, is how many chunks it was
	// tried on (-1 otherwise).
	Vectors          string `json:"vectors" jsonschema:"the embedding model of the chunks' vectors, empty for none"`
	VectorsUntrained int    `json:"vectors_untrained" jsonschema:"when there are no vectors because the built-in model had too little text: the chunks it was tried on; -1 otherwise"`
	// HeadMoved: another commit is checked out than was indexed.
	HeadMoved bool `json:"head_moved"`
	// Damaged lists the stored parts of the index found damaged (Check);
	// `cairn index` rebuilds them.
	Damaged []graph.Damage `json:"damaged,omitempty"`
	Fresh   bool           `json:"fresh" jsonschema:"no indexed file changed and HEAD did not move"`
	Advice  string         `json:"advice,omitempty"`
}

// maxStaleExamples bounds StatusResult.StaleExamples.
const maxStaleExamples = 20

// Status reports what the index holds, what it left out and why, what
// could not be analysed, and how fresh it is.
func (s *Snapshot) Status(ctx context.Context, o StatusOptions) (*StatusResult, error) {
	m := s.Meta
	files, err := s.R.Files(ctx)
	if err != nil {
		return nil, Classify(fmt.Errorf("status: %w", err))
	}
	res := &StatusResult{Root: s.Root, IndexDir: s.e.IndexDir(), Files: m.Files, Symbols: m.Symbols, Chunks: m.Chunks,
		Languages: named(m.Languages), Status: named(m.Status), Skipped: named(m.Skips), Problems: []FileProblem{}}
	res.LanguageTiers = map[string]string{}
	for name := range res.Languages {
		if l, err := graph.ParseLanguage(name); err == nil {
			res.LanguageTiers[name] = l.Tier().String()
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, Classify(err)
		}
		if f.Status != graph.ParseOK && f.Status != graph.ParseTextOnly {
			res.Problems = append(res.Problems, FileProblem{Path: f.Path, Status: f.Status.String(), Error: f.Error})
		}
		if s.Fresh.Stale(ctx, f.Path) {
			res.StaleFiles++
			if len(res.StaleExamples) < maxStaleExamples {
				res.StaleExamples = append(res.StaleExamples, f.Path)
			}
		}
	}
	res.HistoryCommits, _ = strconv.Atoi(m.Extra[history.KeyCommits])
	res.HistoryOutdated = history.Outdated(m.Extra)
	res.Vectors, res.VectorsUntrained = m.Extra[vector.MetaModel], -1
	if n, err := strconv.Atoi(m.Extra[vector.MetaUntrained]); err == nil && res.Vectors == "" {
		res.VectorsUntrained = n
	}
	if m.Root != "" && !sameDir(m.Root, s.Root) {
		res.IndexedFrom = m.Root
	}
	if o.Skips {
		skips, err := s.R.Skips(ctx)
		if err != nil {
			return nil, Classify(fmt.Errorf("status: skipped paths: %w", err))
		}
		res.Skips = make([]SkippedPath, len(skips))
		for i, sk := range skips {
			res.Skips[i] = SkippedPath{Path: sk.Path, Reason: sk.Reason.String(), Detail: sk.Detail, Dir: sk.Dir}
		}
	}
	if o.SkipWorktree {
		res.Worktree = Worktree{Source: "skipped"}
	} else {
		res.Worktree = s.Worktree(ctx)
	}
	st, running, err := watch.ReadStatus(s.e.IndexDir())
	res.Watcher = Watcher{Published: st, Running: running, State: st.State, Mode: st.Mode, Degraded: st.Degraded, PID: st.PID,
		Pending: st.Pending, Batches: st.Batches, Commits: st.Commits, LastError: st.LastError}
	if err != nil {
		res.Watcher.Error = err.Error()
	}
	head := WorktreeHead(s.Root)
	res.HeadMoved = head != "" && m.Revision != "" && head != m.Revision
	dmg, err := s.e.Check(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, Classify(ctx.Err())
	}
	res.Damaged = dmg
	res.Fresh = res.StaleFiles == 0 && !res.HeadMoved && len(dmg) == 0
	switch {
	case len(dmg) > 0:
		res.Advice = "run `cairn index` to repair the damaged index (it rebuilds the damaged parts); until then answers may fail or be wrong"
	case !res.Fresh:
		res.Advice = "run `cairn index` (or keep `cairn watch` running) to bring the index up to date; answers in stale files are marked stale"
		if res.Worktree.Watcher == "running" {
			res.Advice = "a watcher is indexing the changes; answers in stale files are marked stale until it has"
		}
	}
	return res, nil
}

// Worktree checks the worktree against the snapshot's generation (the
// running watcher's view, else a scan bounded in time), once per
// snapshot.
func (s *Snapshot) Worktree(ctx context.Context) Worktree {
	s.wtOnce.Do(func() {
		s.wt = watch.Check(ctx, s.R, s.Meta, watch.CheckOptions{Root: s.Root, StateDir: s.e.IndexDir(),
			Walk: walk.Options{ExcludeDirs: s.e.excludes()}, FullScan: s.e.opts.WorktreeFullScan})
	})
	return s.wt
}

func named[K interface {
	comparable
	fmt.Stringer
}](m map[K]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k.String()] = v
	}
	return out
}

// sameDir reports whether two paths name one directory (symlinks resolved;
// a path that no longer exists is compared as written).
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		ra = a
	}
	rb, err := filepath.EvalSymlinks(b)
	if err != nil {
		rb = b
	}
	return filepath.Clean(ra) == filepath.Clean(rb)
}
