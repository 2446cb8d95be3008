package fuse

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/gitrepo"
	"github.com/cairn-dev/cairn/retrieval/history"
)

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
