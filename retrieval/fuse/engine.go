package fuse

import (
	"context"
	"fmt"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/repofs"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/vector"
)

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
	// Values traces the values a query talks about (GenValue); nil: no
	// value generator.
	Values  ValueFinder
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
