package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/schema"
)

// A URL of no shared store is refused with *URLError, before connecting.
func TestSharedURLError(t *testing.T) {
	ctx := context.Background()
	var ue *store.URLError
	if _, err := store.OpenShared(ctx, "/tmp/x/.cairn", store.SharedOptions{}); !errors.As(err, &ue) {
		t.Fatalf("OpenShared of a directory: %v", err)
	}
	if _, err := store.Migrate(ctx, "mysql://u:pw@h/db"); !errors.As(err, &ue) {
		t.Fatalf("Migrate of mysql://: %v", err)
	}
}

// TestMigrate: the first Migrate applies every migration, the second none;
// the result names the store without its password.
func TestMigrate(t *testing.T) {
	u := pgtest.NewDB(t)
	ctx := context.Background()
	res, err := store.Migrate(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	want := schema.PostgresVersion()
	if res.From != 0 || res.To != want || len(res.Applied) != want || res.Ahead {
		t.Fatalf("first migration: %+v, want 0 → %d", res, want)
	}
	if res.Where == "" || res.Where != store.Redact(u) {
		t.Fatalf("where %q, want %q", res.Where, store.Redact(u))
	}
	again, err := store.Migrate(ctx, u)
	if err != nil || again.From != want || again.To != want || len(again.Applied) != 0 {
		t.Fatalf("second migration: %+v %v", again, err)
	}
}

// TestSharedBuildProtocol drives a build through the interfaces alone: a
// worker finds nothing to join (graph.ErrNoBuild), a build of one job is
// claimed once (then Claim answers a nil Job, not a typed nil), nothing
// finalizes before the job is done, and the finalizer's commit makes the
// generation current for readers; one watcher per repository.
func TestSharedBuildProtocol(t *testing.T) {
	u := pgtest.NewDB(t)
	ctx := context.Background()
	if _, err := store.Migrate(ctx, u); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	sh, err := store.OpenShared(ctx, u, store.SharedOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if _, err := sh.StartBuild(ctx, graph.BuildOptions{Repo: "r", JoinOnly: true}); !errors.Is(err, graph.ErrNoBuild) {
		t.Fatalf("join with no build: %v", err)
	}
	b, err := sh.StartBuild(ctx, graph.BuildOptions{Repo: "r", Revision: "1", Worker: "w"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if info := b.Info(); info.Seq != 1 || info.Jobs != 1 || !info.Fresh || info.Joined {
		t.Fatalf("build: %+v", info)
	}
	if !strings.HasPrefix(b.StateDir(), cache) {
		t.Fatalf("state dir %s outside the cache %s", b.StateDir(), cache)
	}
	j, err := b.Claim(ctx)
	if err != nil || j == nil {
		t.Fatalf("claim: %v %v", j, err)
	}
	// (Errorf: the claimed job holds a connection until its writer
	// commits, and closing the store waits for it.)
	if again, err := b.Claim(ctx); err != nil || again != nil {
		t.Errorf("second claim of a one-job build: %#v %v", again, err)
	}
	if fw, err := b.ClaimFinalize(ctx); err != nil || fw != nil {
		t.Errorf("finalize before the job is done: %#v %v", fw, err)
	}
	w, err := j.Writer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ff := &graph.FileFacts{File: graph.File{Path: "a.go", Lang: graph.LangGo, Hash: "h", Size: 1, ModTime: 1, Lines: 1, Status: graph.ParseOK}}
	if _, err := w.PutFile(ctx, ff); err != nil {
		t.Fatal(err)
	}
	w.SetResult(map[string]int{"parsed": 1})
	if err := w.Commit(ctx, graph.Meta{}); err != nil {
		t.Fatal(err)
	}
	if st, err := b.State(ctx); err != nil || st.Done != 1 || st.Pending != 0 || st.State != "building" {
		t.Fatalf("state: %+v %v", st, err)
	}
	rs, err := b.JobResults(ctx)
	if err != nil || len(rs) != 1 || !strings.Contains(string(rs[0]), `"parsed": 1`) && !strings.Contains(string(rs[0]), `"parsed":1`) {
		t.Fatalf("job results: %q %v", rs, err)
	}
	fw, err := b.ClaimFinalize(ctx)
	if err != nil || fw == nil {
		t.Fatalf("finalize: %v %v", fw, err)
	}
	if err := fw.Commit(ctx, graph.Meta{Revision: "1"}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, store.Options{URL: u, RepoName: "r", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if files, err := s.Files(ctx); err != nil || len(files) != 1 || files[0].Path != "a.go" {
		t.Fatalf("committed generation: %v %v", files, err)
	}

	// One watcher per repository; released, the lock can be taken again.
	release, err := sh.LockWatcher(ctx, "r", "first watcher")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sh.LockWatcher(ctx, "r", "second"); err == nil || !strings.Contains(err.Error(), "already watched") {
		t.Fatalf("second watcher: %v", err)
	}
	release()
	release() // twice is harmless
	again, err := sh.LockWatcher(ctx, "r", "third")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
}
