package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/postgres"
	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// repo writes a Go repository of dirs packages with files files each; every
// function calls the one of the previous package. tag varies the content.
func repo(t *testing.T, root string, dirs, files int, tag string) {
	t.Helper()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(root, fmt.Sprintf("p%02d", d))
		os.MkdirAll(dir, 0o755)
		for f := 0; f < files; f++ {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%02d\n\n", d)
			if d > 0 {
				fmt.Fprintf(&b, "import \"example.com/m/p%02d\"\n\n", d-1)
			}
			fmt.Fprintf(&b, "// F%d%s is function %d of package %d.\nfunc F%d%s() int {\n", f, tag, f, d, f, tag)
			if d > 0 {
				fmt.Fprintf(&b, "\treturn p%02d.F%d%s() + 1\n}\n", d-1, f, tag)
			} else {
				b.WriteString("\treturn 1\n}\n")
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func connect(t *testing.T, u string) *postgres.DB {
	t.Helper()
	db, err := postgres.Connect(context.Background(), u, postgres.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func setup(t *testing.T) (string, string) {
	u := pgtest.NewDB(t)
	db := connect(t, u)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	repo(t, root, 8, 5, "")
	return u, root
}

func opts(root string, worker string) Options {
	return Options{Index: indexer.Options{Root: root, Workers: 1}, Repo: "m", Jobs: 4, Worker: worker, Poll: 20 * time.Millisecond}
}

// versionsOf counts, per path, the file versions a build wrote.
func duplicates(t *testing.T, db *postgres.DB) int {
	var n int
	err := db.Pool().QueryRow(context.Background(), `SELECT count(*) FROM (SELECT gen_id, path FROM files GROUP BY gen_id, path HAVING count(*) > 1) d`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func callersOf(t *testing.T, db *postgres.DB, name string) []graph.Hop {
	t.Helper()
	ctx := context.Background()
	s, err := db.Open(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := s.SymbolsByName(ctx, name)
	if err != nil || len(defs) == 0 {
		t.Fatalf("%s: %v %v", name, defs, err)
	}
	hops, err := graph.Callers(ctx, s, []graph.SymbolID{defs[0].ID}, graph.TraverseOptions{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	return hops
}

func TestTwoProcessesShareABuild(t *testing.T) {
	u, root := setup(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	var results [2]Result
	var errs [2]error
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts(root, fmt.Sprintf("w%d", i))
			// Slow each job down a little, so that both processes get some.
			o.afterJob = func(int) { time.Sleep(150 * time.Millisecond) }
			results[i], errs[i] = Run(ctx, connect(t, u), o)
		}()
		time.Sleep(30 * time.Millisecond)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	a, b := results[0], results[1]
	if a.Joined && !b.Joined {
		// the second process won the race to start the build (a loaded
		// machine can delay the first past its head start): the roles
		// are what matters, not which goroutine took which
		a, b = b, a
	}
	if a.Generation != 1 || b.Generation != 1 || a.Joined || !b.Joined || a.Jobs != 4 {
		t.Fatalf("not one build: %+v / %+v", a, b)
	}
	if a.JobsDone == 0 || b.JobsDone == 0 || a.JobsDone+b.JobsDone != 4 {
		t.Fatalf("jobs split %d + %d of 4", a.JobsDone, b.JobsDone)
	}
	if a.Finalized == b.Finalized {
		t.Fatalf("finalized by both or neither: %v %v", a.Finalized, b.Finalized)
	}
	db := connect(t, u)
	if n := duplicates(t, db); n != 0 {
		t.Fatalf("%d files indexed twice", n)
	}
	s, err := db.Open(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := s.Meta(ctx)
	if m.Files != 41 || m.Symbols != 40 {
		t.Fatalf("meta: %d files %d symbols", m.Files, m.Symbols)
	}
	// Resolution saw every job's files: F0 of p00 is reached from p07 in 3 hops.
	hops := callersOf(t, db, "F0")
	if len(hops) < 3 {
		t.Fatalf("callers across jobs: %+v", hops)
	}
}

// TestConnectionDroppedMidIndex: the database drops the connection during
// a job. The run fails with a clear error, readers keep the previous
// generation, the finished jobs stay done and running again resumes.
func TestConnectionDroppedMidIndex(t *testing.T) {
	u, root := setup(t)
	ctx := context.Background()
	if _, err := Run(ctx, connect(t, u), opts(root, "first")); err != nil {
		t.Fatal(err)
	}
	// The next generation renames every function.
	for d := 0; d < 8; d++ {
		os.RemoveAll(filepath.Join(root, fmt.Sprintf("p%02d", d)))
	}
	repo(t, root, 8, 5, "v2")
	future := time.Now().Add(-time.Minute) // not racy
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, future, future) })

	victim, _ := url.Parse(u)
	q := victim.Query()
	q.Set("application_name", "victim")
	victim.RawQuery = q.Encode()
	admin := connect(t, u)
	vdb := connect(t, victim.String())
	o := opts(root, "victim")
	// Kill the connections in the middle of the third job.
	jobs := 0
	o.afterJob = func(int) { jobs++ }
	killed := false
	o.Index.Progress = func(p indexer.Progress) {
		if jobs == 2 && p.Phase == "parse" && !killed {
			killed = true
			if _, err := admin.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim'`); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := Run(ctx, vdb, o)
	if err == nil || !killed {
		t.Fatalf("run survived a dropped connection (killed %v)", killed)
	}
	if !strings.Contains(err.Error(), "PostgreSQL") || !strings.Contains(err.Error(), "run the same command again to resume") {
		t.Fatalf("unclear error: %v", err)
	}
	t.Logf("error: %v", err)
	// Readers keep generation 1.
	s, err := admin.Open(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Meta(ctx); m.Generation != 1 {
		t.Fatalf("readers see generation %d", m.Generation)
	}
	if got, _ := s.SymbolsByName(ctx, "F0v2"); len(got) != 0 {
		t.Fatal("a reader sees the failed build")
	}
	// Running again resumes: the two finished jobs are not done again.
	res, err := Run(ctx, connect(t, u), opts(root, "again"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Generation != 2 || !res.Joined || res.JobsDone != 2 || !res.Finalized {
		t.Fatalf("resume: %+v", res)
	}
	if n := duplicates(t, admin); n != 0 {
		t.Fatalf("%d files indexed twice", n)
	}
	if hops := callersOf(t, admin, "F0v2"); len(hops) < 3 {
		t.Fatalf("callers after resume: %+v", hops)
	}
	s2, _ := admin.Open(ctx, "m")
	if got, _ := s2.SymbolsByName(ctx, "F0"); len(got) != 0 {
		t.Fatalf("generation 2 still has generation 1's functions: %v", got)
	}
}

// TestHungWorkerJobRetried: a worker claims a job and stops (no heartbeat,
// connection alive). Another process takes the job over once its lease
// ends and finishes the build.
func TestHungWorkerJobRetried(t *testing.T) {
	u, root := setup(t)
	ctx := context.Background()
	db := connect(t, u)
	wk, _ := walk.New(walk.Options{Root: root})
	var entries []walk.Entry
	wk.Walk(ctx, func(e walk.Entry) error { entries = append(entries, e); return nil }, func(graph.Skip) error { return nil })
	o := opts(root, "hung")
	b, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "m", Root: root, Revision: gitrepo.Head(ctx, root), Worker: "hung",
		Lease: 500 * time.Millisecond, NoHeartbeat: true,
		Plan: func(_ context.Context, base map[string]graph.FileState) ([]graph.JobSpec, error) {
			return plan(entries, nil, base, o, time.Now()), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.Claim(ctx)
	if err != nil || j == nil {
		t.Fatal(j, err)
	}
	w, err := j.Writer(ctx) // holds the claim, never commits
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	start := time.Now()
	res, err := Run(ctx, connect(t, u), opts(root, "rescuer"))
	if err != nil {
		t.Fatal(err)
	}
	if res.JobsDone != 4 || !res.Joined || time.Since(start) < 400*time.Millisecond {
		t.Fatalf("rescue: %+v after %v", res, time.Since(start))
	}
	if n := duplicates(t, db); n != 0 {
		t.Fatalf("%d files indexed twice", n)
	}
	if err := w.Commit(ctx, graph.Meta{}); !errors.Is(err, graph.ErrClaimLost) {
		t.Fatalf("the hung worker's late commit: %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	_, err := postgres.Connect(context.Background(), "postgres://cairn:pw@127.0.0.1:9/x?connect_timeout=2", postgres.Options{})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("%v", err)
	}
}

func TestPlanCoversEveryPathOnce(t *testing.T) {
	var entries []walk.Entry
	for _, p := range []string{"a/x.go", "a/b/y.go", "a/b/z.go", "a/b.go", "c/d/e/f.go", "c/g.go", "top.go", "z/big.go"} {
		entries = append(entries, walk.Entry{Path: p, Size: 1000})
	}
	entries[len(entries)-1].Size = 50000
	skips := []graph.Skip{{Path: "node_modules", Dir: true}}
	base := map[string]graph.FileState{"gone/old.go": {Path: "gone/old.go"}, "a/x.go": {Path: "a/x.go", Size: 1000}}
	specs := plan(entries, skips, base, Options{Jobs: 3, MaxJobs: 64, JobBytes: 1}, time.Now())
	if len(specs) < 2 || len(specs) > 3 {
		t.Fatalf("%d jobs: %+v", len(specs), specs)
	}
	all := append([]string{"node_modules", "gone/old.go"}, func() []string {
		var ps []string
		for _, e := range entries {
			ps = append(ps, e.Path)
		}
		return ps
	}()...)
	for _, p := range all {
		n := 0
		for _, s := range specs {
			for _, pre := range s.Prefixes {
				if p == pre || strings.HasPrefix(p, pre+"/") {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("%s is under %d jobs: %+v", p, n, specs)
		}
	}
}

// A watcher's batches: builds restricted to a change set, and none at all
// when the change set holds no change.
func TestPathsBuildsAndSkipUnchanged(t *testing.T) {
	u, root := setup(t)
	ctx := context.Background()
	db := connect(t, u)
	o := opts(root, "w")
	o.Jobs = 0
	if _, err := Run(ctx, db, o); err != nil {
		t.Fatal(err)
	}
	gen := func() int64 {
		s, err := db.Open(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		m, err := s.Meta(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m.Generation
	}
	has := func(name string) bool {
		s, err := db.Open(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		defs, err := s.SymbolsByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return len(defs) > 0
	}
	g0 := gen()
	// Rescan with nothing changed (past the racy-clean window): no build.
	past := time.Now().Add(-time.Minute)
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { os.Chtimes(p, past, past); return nil })
	o.Full = false
	if _, err := Run(ctx, db, o); err != nil { // stamps the new mtimes
		t.Fatal(err)
	}
	g1 := gen()
	o.SkipUnchanged = true
	res, err := Run(ctx, db, o)
	if err != nil || !res.NoChange || gen() != g1 {
		t.Fatalf("unchanged rescan: %+v %v, generation %d → %d", res.Result, err, g1, gen())
	}
	o.Paths = []string{"p03/f1.go"}
	if res, err := Run(ctx, db, o); err != nil || !res.NoChange {
		t.Fatalf("unchanged path: %+v %v", res.Result, err)
	}

	// An edit and a new file: only they are read.
	os.WriteFile(filepath.Join(root, "p03/f1.go"), []byte("package p03\n\nfunc Edited() int { return F0() }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "p03/new.go"), []byte("package p03\n\nfunc Added() int { return 2 }\n"), 0o644)
	o.Paths = []string{"p03/f1.go", "p03/new.go"}
	res, err = Run(ctx, db, o)
	if err != nil || res.NoChange || res.Parsed != 2 || res.Walked != 2 {
		t.Fatalf("edit: %+v %v", res.Result, err)
	}
	if !has("Edited") || !has("Added") || has("F1") != true || gen() <= g1 {
		t.Fatalf("after the edit: Edited %v Added %v F1 %v (other packages keep theirs), generation %d", has("Edited"), has("Added"), has("F1"), gen())
	}
	// F1 of p03 is gone, the F1 of the other packages stay.
	s, _ := db.Open(ctx, "m")
	defs, _ := s.SymbolsByName(ctx, "F1")
	s.Close()
	for _, d := range defs {
		if strings.HasPrefix(d.Path, "p03/") {
			t.Fatalf("stale definition %+v", d)
		}
	}
	if len(defs) != 7 {
		t.Fatalf("F1 defined %d times, want 7", len(defs))
	}

	// A deleted directory, named by its path: everything under it goes,
	// and nothing outside it.
	os.RemoveAll(filepath.Join(root, "p03"))
	o.Paths = []string{"p03"}
	if res, err := Run(ctx, db, o); err != nil || res.Deleted != 6 {
		t.Fatalf("delete: %+v %v", res.Result, err)
	}
	if has("Edited") || has("Added") || !has("F0") {
		t.Fatal("after deleting p03")
	}
	_ = g0
}

func TestPlanPaths(t *testing.T) {
	entries := []walk.Entry{{Path: "a/x.go", Size: 10, ModTime: 5}}
	base := map[string]graph.FileState{
		"a/x.go": {Path: "a/x.go", Size: 10, ModTime: 5}, "a/gone.go": {Path: "a/gone.go"},
		"b/y.go": {Path: "b/y.go"}, "ab/z.go": {Path: "ab/z.go"},
	}
	specs := plan(entries, nil, base, Options{Paths: []string{"a"}}, time.Now())
	if len(specs) != 1 || strings.Join(specs[0].Prefixes, ",") != "a" || specs[0].Weight != 1<<10 {
		t.Fatalf("%+v: want one job over a, the deletion of a/gone.go its only work", specs)
	}
	// The same stat within two seconds of now is work.
	now := time.Unix(0, 5).Add(time.Second)
	if specs := plan(entries, nil, base, Options{Paths: []string{"a/x.go"}}, now); specs[0].Weight != 1<<10 {
		t.Fatalf("%+v: a file modified a second ago is read", specs)
	}
}
