package verify

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/graph"
)

// EngineImpact is the engine's impact analysis as an ImpactSelector: it
// indexes the workspace (the candidate applied, uncommitted, on the base)
// into an index beside it, asks Snapshot.Impact for the working tree's
// changes against HEAD (the base), and turns the Go tests it finds into
// one selector per package directory. Tests of other languages are not
// selected until their runners exist.
type EngineImpact struct{}

func (EngineImpact) ImpactTests(ctx context.Context, dir string, changed []string) ([]string, error) {
	res, err := WorkspaceImpact(ctx, dir)
	if err != nil {
		return nil, err
	}
	return TestSelectors(res), nil
}

// WorkspaceImpact is the engine's impact analysis of a workspace's
// uncommitted changes against its HEAD (the base): the workspace is
// indexed into dir/../index, beside it.
func WorkspaceImpact(ctx context.Context, dir string) (*engine.ImpactResult, error) {
	e, err := engine.Open(ctx, engine.Options{Root: dir, IndexDir: filepath.Join(filepath.Dir(dir), "index")})
	if err != nil {
		return nil, fmt.Errorf("open the engine on the workspace: %w", err)
	}
	defer e.Close()
	if _, err := e.Reindex(ctx, nil, time.Minute); err != nil {
		return nil, fmt.Errorf("index the workspace: %w", err)
	}
	snap, err := e.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	res, err := snap.Impact(ctx, engine.ImpactOptions{Working: true})
	if err != nil {
		return nil, fmt.Errorf("impact of the diff: %w", err)
	}
	return res, nil
}

// TestSelectors turns the Go tests of an impact analysis into one go test
// selector per package directory, sorted.
func TestSelectors(res *engine.ImpactResult) []string {
	byDir := map[string][]string{}
	for _, t := range res.Tests {
		if IsGoTest(t.Path, t.Name) {
			d := path.Dir(t.Path)
			byDir[d] = append(byDir[d], t.Name)
		}
	}
	var sels []string
	for d, names := range byDir {
		slices.Sort(names)
		sels = append(sels, "./"+strings.TrimPrefix(d, "./")+" -run ^("+strings.Join(slices.Compact(names), "|")+")$")
	}
	slices.Sort(sels)
	return sels
}

// PatchImpact is the engine's impact analysis of a patch against base in
// repo, outside a gate run: a workspace of the base with the patch
// applied is made under runDir (which must not exist), indexed, analysed
// and removed.
func PatchImpact(ctx context.Context, repo, base string, patch []byte, runDir string) (*engine.ImpactResult, error) {
	ws, err := sandbox.Create(ctx, repo, base, runDir, nil)
	if err != nil {
		return nil, fmt.Errorf("impact workspace: %w", err)
	}
	defer func() {
		ws.Remove(context.WithoutCancel(ctx))
		os.RemoveAll(runDir)
	}()
	if err := applyPatch(ctx, ws, patch, nil); err != nil {
		return nil, err
	}
	return WorkspaceImpact(ctx, ws.Dir)
}

// IsGoTest reports whether a function of a file is a test go test runs by
// -run: TestXxx in a _test.go file, not TestMain (the package's entry
// point, never reported) and not benchmarks, fuzz targets or examples.
// The rule is graph.IsGoTest's, the one impact's selectors use too.
func IsGoTest(path, name string) bool {
	return graph.IsGoTest(path, name)
}
