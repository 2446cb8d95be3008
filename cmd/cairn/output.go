package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/watch"
	"github.com/cairn-dev/cairn/internal/redact"
)

// indexView states which index generation answered, so every answer is
// fresh or flagged.
type indexView struct {
	Generation int64     `json:"generation"`
	Revision   string    `json:"revision,omitempty"`
	Dirty      bool      `json:"dirty"`
	IndexedAt  time.Time `json:"indexed_at"`
	// Worktree says whether the worktree has changes this generation does
	// not hold (see indexOf).
	Worktree *watch.Worktree `json:"worktree,omitempty"`
}

func viewIndex(m graph.Meta) indexView {
	return indexView{Generation: m.Generation, Revision: m.Revision, Dirty: m.Dirty, IndexedAt: m.IndexedAt}
}

// indexOf is viewIndex with the worktree's freshness, which every answer
// states: the engine's worktree check of the snapshot
// (engine.Snapshot.Worktree, once per snapshot: from the running watcher
// when one keeps this index fresh, else from a stat-only comparison of the
// worktree with the index, bounded in time and answered from the stat
// snapshot of the last full comparison while no directory changed;
// CAIRN_WORKTREE_CHECK=0 skips it, =full ignores the snapshot,
// engine.Options.WorktreeFullScan). It is taken once per command, and
// stated on stderr as well in text mode (see freshnessLine).
func (g *globals) indexOf(ctx context.Context, snap *engine.Snapshot) indexView {
	v := viewIndex(snap.Meta)
	if g.worktree == nil {
		wt := watch.Worktree{Source: "skipped"}
		if os.Getenv("CAIRN_WORKTREE_CHECK") != "0" {
			wt = snap.Worktree(ctx)
		}
		g.worktree, g.indexed = &wt, snap.Meta
	}
	v.Worktree = g.worktree
	return v
}

// startCheck begins the snapshot's worktree check beside the command's
// question (a one-shot command's answer waits for both; the check is most
// of a small query's cost); indexOf then takes its result, which the
// snapshot keeps.
func (g *globals) startCheck(snap *engine.Snapshot) {
	if g.worktree != nil || os.Getenv("CAIRN_WORKTREE_CHECK") == "0" {
		return
	}
	go snap.Worktree(context.Background())
}

// freshnessLine states, for text output, the revision that answered and
// whether the worktree holds changes it does not ("" when not checked).
func (g *globals) freshnessLine() string {
	if g.worktree == nil {
		return ""
	}
	return fmt.Sprintf("index %s (generation %d); worktree: %s", revShort(g.indexed), g.indexed.Generation, g.worktreeText())
}

// worktreeText says whether the worktree has unindexed changes.
func (g *globals) worktreeText() string {
	wt := g.worktree
	var b strings.Builder
	switch {
	case wt.Unindexed == nil:
		b.WriteString("not checked")
		if wt.Note != "" {
			b.WriteString(" (" + wt.Note + ")")
		}
	case !*wt.Unindexed:
		b.WriteString("no unindexed changes")
		if wt.Source == "watcher" {
			b.WriteString(" (kept fresh by cairn watch)")
		}
	default:
		var parts []string
		if wt.HeadMoved {
			parts = append(parts, "HEAD moved to "+revShort(graph.Meta{Revision: wt.Head}))
		}
		if wt.Pending > 0 {
			parts = append(parts, fmt.Sprintf("%d %s being indexed by cairn watch", wt.Pending, plural(wt.Pending, "change", "changes")))
		}
		if wt.NChanged > 0 {
			list := strings.Join(wt.Changed, ", ")
			if wt.NChanged > len(wt.Changed) {
				list += ", …"
			}
			parts = append(parts, fmt.Sprintf("%d changed %s not indexed (%s)", wt.NChanged, plural(wt.NChanged, "file", "files"), list))
		}
		b.WriteString(strings.Join(parts, "; "))
		if wt.Watcher == "none" {
			b.WriteString("; run `cairn index`, or `cairn watch` to keep it fresh")
		}
	}
	if wt.Watcher == "degraded" {
		b.WriteString("; the watcher is degraded: " + wt.Note)
	}
	return b.String()
}

// envelope is the top level of every JSON answer.
type envelope struct {
	Query   string    `json:"query,omitempty"`
	Index   indexView `json:"index"`
	Results any       `json:"results,omitzero"`
	// Search is search's answer, in the one search shape every surface
	// publishes (catalog.Search: files, hits, unresolved, named) instead
	// of results.
	*catalog.Search
	// Definitions (refs) are the definitions the name denotes; Roots
	// (callers, callees, implementations) those the traversal starts from.
	Definitions any `json:"definitions,omitempty"`
	Roots       any `json:"roots,omitempty"`
	// Truncated: the answer stopped at its cap.
	Truncated bool `json:"truncated,omitempty"`
	// Unknown lists files that could not be analysed and may hide answers
	// (the first maxUnknown); UnknownCount counts them all.
	Unknown      []string `json:"unknown,omitempty"`
	UnknownCount int      `json:"unknown_count,omitempty"`
	// Error is the engine's error, when the question had no answer.
	Error *errorView `json:"error,omitempty"`
	// Generators are every generator's full ranking (search
	// --dump-generators).
	Generators any `json:"generators,omitempty"`
	// nothing, when set, says the answer is empty: printed, it exits 3.
	nothing string
}

func writeJSON(w io.Writer, v any) error {
	// the echo of a 5 MB name is not 5 MB
	switch e := v.(type) {
	case envelope:
		e.Query = redact.Bound(e.Query, redact.MaxQuoted)
		v = e
	case *envelope:
		c := *e
		c.Query = redact.Bound(c.Query, redact.MaxQuoted)
		v = &c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// maxUnknown bounds the files an answer lists as not analysed (a large
// repository's timeouts and failures would be an answer of their own).
const maxUnknown = 20

// setUnknown states, in a JSON answer, the files whose facts are missing
// or partial (they may hide answers): the first maxUnknown in path order
// and how many there are. The text form does not print them, so it does
// not pay for reading every file's record (on the Linux kernel, 78,311 of
// them: 60–170 ms of a refs or callers answer).
func (g *globals) setUnknown(ctx context.Context, r graph.Reader, env *envelope) {
	if g.json {
		env.Unknown, env.UnknownCount = unanalysed(ctx, r, maxUnknown)
	}
}

// unanalysed lists up to most of the files whose facts are missing or
// partial, and counts them all.
func unanalysed(ctx context.Context, r graph.Reader, most int) (list []string, n int) {
	files, err := r.Files(ctx)
	if err != nil {
		return nil, 0
	}
	for _, f := range files {
		if f.Lang.HasParser() && !f.Status.Analysed() {
			if n < most {
				list = append(list, fmt.Sprintf("%s (%s)", f.Path, f.Status))
			}
			n++
		}
	}
	return list, n
}

func revShort(m graph.Meta) string {
	rev := m.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		rev = "no-git"
	}
	if m.Dirty {
		rev += "+dirty"
	}
	return rev
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
