package impact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// Diff selects the changes to analyse: against a revision, the staged
// changes, or (neither) the working tree's changes against HEAD.
type Diff struct {
	Rev    string
	Staged bool
}

func (d Diff) String() string {
	switch {
	case d.Staged:
		return "staged changes"
	case d.Rev != "":
		return "changes since " + d.Rev
	}
	return "working-tree changes"
}

// ErrDiff: the diff a Diff selects cannot be read: a revision git does
// not know (or that is not a revision), a worktree that is not a git
// repository, no git at all.
var ErrDiff = errors.New("cannot diff")

// hunk is a changed line range of a file, on the new side (and the old
// side, for lines that only went away).
type hunk struct {
	path               string
	newStart, newCount int
	oldStart, oldCount int
	deleted            bool // the whole file
}

// hunksOf lists a diff's changed ranges by file, in git's order: a deleted
// file as one hunk marked deleted.
func hunksOf(files []gitrepo.FileDiff) []hunk {
	var hs []hunk
	for _, f := range files {
		if f.Change == gitrepo.Deleted && !f.Binary { // (git gives no lines of a binary file)
			hs = append(hs, hunk{path: f.OldPath, deleted: true})
			continue
		}
		for _, h := range f.Hunks {
			hs = append(hs, hunk{path: f.Path, oldStart: h.OldStart, oldCount: h.OldLines, newStart: h.NewStart, newCount: h.NewLines})
		}
	}
	return hs
}

// ForDiff analyses the impact of a diff: the symbols whose definitions
// hold changed lines (the innermost function, method or type), as the
// index knows them.
func ForDiff(ctx context.Context, r graph.Reader, d Diff, o Options) (*Result, error) {
	m, err := r.Meta(ctx)
	if err != nil {
		return nil, err
	}
	root := cmp.Or(o.Root, m.Root)
	if strings.HasPrefix(d.Rev, "-") {
		return nil, fmt.Errorf("%w: %q is not a revision", ErrDiff, d.Rev)
	}
	o2 := gitrepo.DiffOptions{Rev: d.Rev, Staged: d.Staged, NoRenames: true}
	if d.Staged {
		o2.Rev = "" // the staged changes against HEAD, whatever Rev says
	}
	files, err := gitrepo.Diff(ctx, root, o2)
	if err != nil {
		if ce := (*gitrepo.CommandError)(nil); errors.As(err, &ce) && ce.Exited() {
			return nil, fmt.Errorf("%w: git diff (%s): %s", ErrDiff, d, ce.Stderr)
		}
		return nil, fmt.Errorf("%w: git diff: %w", ErrDiff, err)
	}
	hunks := hunksOf(files)
	var changes []Change
	var removed, warnings []string
	seen := map[graph.SymbolID]bool{}
	byFile := map[string][]hunk{}
	var order []string
	for _, h := range hunks {
		if _, ok := byFile[h.path]; !ok {
			order = append(order, h.path)
		}
		byFile[h.path] = append(byFile[h.path], h)
	}
	for _, p := range order {
		f, err := r.File(ctx, p)
		if errors.Is(err, graph.ErrNotFound) {
			if !byFile[p][0].deleted {
				warnings = append(warnings, p+": changed but not in the index (new, skipped or the index is older): re-index to see its symbols")
			} else {
				removed = append(removed, p+": deleted (not in the index)")
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if !f.Status.Analysed() {
			warnings = append(warnings, fmt.Sprintf("%s: %s, its symbols are unknown", p, f.Status))
		}
		defs, err := r.SymbolsInFile(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, h := range byFile[p] {
			if h.deleted {
				for _, s := range defs {
					if !seen[s.ID] && s.Parent < 0 {
						seen[s.ID] = true
						changes = append(changes, Change{Symbol: s, Why: "file deleted"})
					}
				}
				removed = append(removed, p+": deleted")
				continue
			}
			lo, hi := h.newStart, h.newStart+h.newCount-1
			why := fmt.Sprintf("lines %d-%d changed", lo, hi)
			if h.newCount == 0 {
				// lines only removed: the definition around the spot
				lo, hi = max(h.newStart, 1), max(h.newStart, 1)
				why = fmt.Sprintf("lines %d-%d removed (old side)", h.oldStart, h.oldStart+h.oldCount-1)
			}
			best := innermost(defs, lo, hi)
			if len(best) == 0 {
				removed = append(removed, fmt.Sprintf("%s: %s outside any definition", p, why))
			}
			for _, s := range best {
				if !seen[s.ID] {
					seen[s.ID] = true
					changes = append(changes, Change{Symbol: s, Why: why})
				}
			}
		}
	}
	if m.Dirty || d.Rev != "" {
		warnings = append(warnings, "line numbers are mapped onto the indexed content; re-index first if the worktree changed since")
	}
	if len(changes) == 0 {
		res := &Result{Target: d.String(), Revision: m.Revision, Dirty: m.Dirty, Removed: removed, Warnings: warnings,
			Changed: []Symbol{}, Dependents: []Symbol{}, Tests: []Test{}, Commands: []string{}, Packages: []string{}}
		res.Risk = Risk{Level: "low", Reasons: []string{"no indexed definition changed"}}
		return res, nil
	}
	res, err := Analyze(ctx, r, changes, o)
	if err != nil {
		return nil, err
	}
	res.Target, res.Removed = d.String(), removed
	res.Warnings = append(warnings, res.Warnings...)
	return res, nil
}

// innermost returns the smallest definitions (callables and types, then
// anything) overlapping lines lo..hi: for each overlapped line, the
// deepest definition holding it.
func innermost(defs []graph.Symbol, lo, hi int) []graph.Symbol {
	var out []graph.Symbol
	seen := map[int]bool{}
	for line := lo; line <= hi; line++ {
		bi := -1
		for i := range defs {
			s := &defs[i]
			if int(s.Range.StartLine) > line || int(s.Range.EndLine) < line {
				continue
			}
			if !(s.Kind.IsCallable() || s.Kind.IsType() || s.Kind == graph.KindField || s.Kind == graph.KindVariable || s.Kind == graph.KindConstant) {
				continue
			}
			if bi < 0 || s.Range.EndByte-s.Range.StartByte < defs[bi].Range.EndByte-defs[bi].Range.StartByte {
				bi = i
			}
		}
		if bi >= 0 && !seen[bi] {
			seen[bi] = true
			out = append(out, defs[bi])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.StartByte < out[j].Range.StartByte })
	return out
}
