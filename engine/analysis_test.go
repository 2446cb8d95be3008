package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
	"github.com/cairn-dev/cairn/retrieval/impact"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// snapshot opens the fixture repository and acquires a snapshot.
func snapshot(t *testing.T) (string, *engine.Snapshot) {
	t.Helper()
	root := enginetest.Repo(t)
	s, err := open(t, root).Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Release)
	return root, s
}

func wantCategory(t *testing.T, what string, err error, want engine.Category) *engine.Error {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Category != want {
		t.Fatalf("%s: error %v, want category %s", what, err, want)
	}
	return e
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	_, s := snapshot(t)
	res, err := s.Search(ctx, engine.SearchOptions{Query: "serve requests from a store", Limit: 5, Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || len(res.Hits) > 5 || len(res.Files) == 0 {
		t.Fatalf("search = %+v", res)
	}
	h := res.Hits[0]
	if h.Revision == "" || h.StartLine < 1 || h.EndLine < h.StartLine || h.Stale || len(h.Ranks) == 0 {
		t.Fatalf("first hit not cited (revision, lines, ranks): %+v", h)
	}
	if res.Files[0].Revision == "" {
		t.Fatalf("file not cited: %+v", res.Files[0])
	}
	noRanks, err := s.Search(ctx, engine.SearchOptions{Query: "serve requests from a store", Limit: 5})
	if err != nil || noRanks.Hits[0].Ranks != nil {
		t.Fatalf("ranks given unasked: %+v, %v", noRanks.Hits[0], err)
	}
	for _, o := range []engine.SearchOptions{
		{Query: "  "},
		{Query: "x", Limit: -1},
		{Query: "x", Limit: engine.MaxSearchLimit + 1},
		{Query: "x", Files: engine.MaxSearchFiles + 1},
		{Query: "x", Only: []string{"bogus"}},
	} {
		_, err := s.Search(ctx, o)
		wantCategory(t, fmt.Sprintf("Search(%+v)", o), err, engine.InvalidArgument)
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	_, s := snapshot(t)
	unindexed := true
	pack, err := s.Context(ctx, engine.ContextOptions{Task: "how does the server get values from the store", Budget: 1500,
		Tokenizer: "o200k_base", Worktree: &engine.Worktree{Unindexed: &unindexed, HeadMoved: true, Head: "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pack.Items) == 0 || pack.UsedTokens > 1500 || pack.Budget != 1500 || pack.Format != "markdown" || pack.Tokenizer != "o200k_base" {
		t.Fatalf("pack: %d items, %d/%d tokens, format %s, tokenizer %s", len(pack.Items), pack.UsedTokens, pack.Budget, pack.Format, pack.Tokenizer)
	}
	if pack.Index.Unindexed == nil || !*pack.Index.Unindexed || pack.Index.Head != "abc" {
		t.Fatalf("the worktree given is not stated: %+v", pack.Index)
	}
	def, err := s.Context(ctx, engine.ContextOptions{Focus: []string{"NewServer"}})
	if err != nil || def.Budget != engine.DefaultBudget || def.Tokenizer != "cl100k_base" || len(def.Items) == 0 {
		t.Fatalf("defaults: %+v, %v", def, err)
	}
	for _, c := range []struct {
		o    engine.ContextOptions
		want engine.Category
	}{
		{engine.ContextOptions{Task: " "}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Budget: engine.MaxBudget + 1}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Budget: engine.MinBudget - 1}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Budget: -5}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", FullShare: 1.5}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Format: "html"}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Tokenizer: "gpt2-bogus"}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Diff: "--output=/tmp/x"}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Diff: "no-such-revision"}, engine.InvalidArgument},
		{engine.ContextOptions{Task: "x", Focus: []string{"../../etc/passwd"}}, engine.OutsideRepository},
	} {
		_, err := s.Context(ctx, c.o)
		wantCategory(t, fmt.Sprintf("Context(%+v)", c.o), err, c.want)
	}
}

func TestTrace(t *testing.T) {
	ctx := context.Background()
	_, s := snapshot(t)
	res, err := s.Trace(ctx, engine.TraceOptions{Target: "Server.st"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Writes) == 0 || len(res.Reads) == 0 {
		t.Fatalf("trace(Server.st): %d writes, %d reads", len(res.Writes), len(res.Reads))
	}
	for _, site := range append(res.Writes, res.Reads...) {
		if site.Revision == "" || site.StartLine < 1 || site.EndLine != site.StartLine || site.Column < 1 {
			t.Fatalf("trace site not cited: %+v", site.Loc)
		}
	}
	_, err = s.Trace(ctx, engine.TraceOptions{Target: "no_such_value_anywhere"})
	e := wantCategory(t, "Trace(unknown)", err, engine.NotFound)
	if !strings.Contains(e.Message, "try search") {
		t.Errorf("not-found trace gives no hint: %q", e.Message)
	}
	_, err = s.Trace(ctx, engine.TraceOptions{Target: " "})
	wantCategory(t, "Trace(empty)", err, engine.InvalidArgument)
	_, err = s.Trace(ctx, engine.TraceOptions{Target: "Server.st", Depth: engine.MaxTraceDepth + 1})
	wantCategory(t, "Trace(depth)", err, engine.InvalidArgument)
}

func TestImpact(t *testing.T) {
	ctx := context.Background()
	root, s := snapshot(t)
	// Serve is a Go method and a Python function: ambiguous unless all
	// are asked for, or one is picked.
	_, err := s.Impact(ctx, engine.ImpactOptions{Name: "Serve"})
	e := wantCategory(t, "Impact(Serve)", err, engine.Ambiguous)
	if len(e.Candidates) != 2 {
		t.Fatalf("candidates %+v, want the method and the function", e.Candidates)
	}
	all, err := s.Impact(ctx, engine.ImpactOptions{Name: "Serve", All: true})
	if err != nil || len(all.Changed) != 2 {
		t.Fatalf("Impact(Serve, all) = %+v, %v", all, err)
	}
	for _, c := range all.Changed {
		if c.Why != "named" {
			t.Errorf("%s chosen because %q, want named", c.Name, c.Why)
		}
	}
	one, err := s.Impact(ctx, engine.ImpactOptions{Name: string(e.Candidates[0].SymbolID)})
	if err != nil || len(one.Changed) != 1 || one.Changed[0].Path != e.Candidates[0].Path {
		t.Fatalf("Impact(candidate) = %+v, %v", one, err)
	}
	res, err := s.Impact(ctx, engine.ImpactOptions{Name: "NewServer"})
	if err != nil || len(res.Dependents) == 0 || res.Dependents[0].QualifiedName != "Run" ||
		res.Dependents[0].Revision == "" || res.Changed[0].Path != "server/server.go" || res.Changed[0].Revision == "" {
		t.Fatalf("Impact(NewServer) = %+v, %v", res, err)
	}
	// A working-tree change: the changed method, and why.
	os.WriteFile(filepath.Join(root, "store", "store.go"), []byte(strings.Replace(enginetest.Files["store/store.go"],
		"return s.m[key]", "return s.m[key] + \"!\"", 1)), 0o644)
	res, err = s.Impact(ctx, engine.ImpactOptions{Working: true})
	if err != nil || len(res.Changed) != 1 || res.Changed[0].QualifiedName != "MemStore.Get" || !strings.Contains(res.Changed[0].Why, "changed") {
		t.Fatalf("Impact(working) = %+v, %v", res, err)
	}
	for _, c := range []struct {
		o    engine.ImpactOptions
		want engine.Category
	}{
		{engine.ImpactOptions{}, engine.InvalidArgument},
		{engine.ImpactOptions{Name: "Run", Working: true}, engine.InvalidArgument},
		{engine.ImpactOptions{Staged: true, Kind: "method"}, engine.InvalidArgument},
		{engine.ImpactOptions{Name: "Run", Depth: engine.MaxImpactDepth + 1}, engine.InvalidArgument},
		{engine.ImpactOptions{Diff: "--output=/tmp/x"}, engine.InvalidArgument},
		// git refuses the revision: impact.ErrDiff, mapped
		{engine.ImpactOptions{Diff: "no-such-revision"}, engine.InvalidArgument},
		{engine.ImpactOptions{Name: "Nope"}, engine.NotFound},
	} {
		_, err := s.Impact(ctx, c.o)
		wantCategory(t, fmt.Sprintf("Impact(%+v)", c.o), err, c.want)
	}
}

func TestStatus(t *testing.T) {
	ctx := context.Background()
	root, s := snapshot(t)
	st, err := s.Status(ctx, engine.StatusOptions{Skips: true})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Fresh || st.Files < 6 || st.Languages["go"] != 4 || st.StaleFiles != 0 || st.Worktree.Source == "" || st.IndexDir == "" {
		t.Fatalf("status = %+v", st)
	}
	os.WriteFile(filepath.Join(root, "server", "greet.go"), []byte("package server\n"), 0o644)
	s2, err := open(t, root).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Release()
	st, err = s2.Status(ctx, engine.StatusOptions{SkipWorktree: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Fresh || st.StaleFiles != 1 || st.StaleExamples[0] != "server/greet.go" || st.Advice == "" || st.Worktree.Source != "skipped" {
		t.Fatalf("status after an edit = %+v", st)
	}
}

// TestClassify maps the libraries' typed errors, wrapped as they come, to
// their categories.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want engine.Category
	}{
		{fmt.Errorf("pack: %w: an empty pack takes 90 tokens", contextpack.ErrBudgetTooSmall), engine.InvalidArgument},
		{fmt.Errorf("%w: unknown format", contextpack.ErrInvalidRequest), engine.InvalidArgument},
		{fmt.Errorf("%w: git diff: unknown revision", impact.ErrDiff), engine.InvalidArgument},
		{fmt.Errorf("trace x: %w", trace.ErrNoTarget), engine.NotFound},
		{errors.New("disk on fire"), engine.Internal},
	} {
		if got := engine.Classify(c.err).Category; got != c.want {
			t.Errorf("Classify(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
