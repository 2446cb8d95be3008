package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
	"github.com/cairn-dev/cairn/schema"
)

func migrated(t *testing.T) (*DB, string) {
	t.Helper()
	u := pgtest.NewDB(t)
	ctx := context.Background()
	db, err := Connect(ctx, u, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db, u
}

func TestMigrate(t *testing.T) {
	u := pgtest.NewDB(t)
	ctx := context.Background()
	db, err := Connect(ctx, u, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// No schema yet: reading and writing say to migrate.
	_, err = db.Open(ctx, "r")
	var se *SchemaError
	if !errors.As(err, &se) || se.Found != 0 || !strings.Contains(err.Error(), "cairn migrate") {
		t.Fatalf("open before migrate: %v", err)
	}
	res, err := db.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.From != 0 || res.To != schema.PostgresVersion() || len(res.Applied) != schema.PostgresVersion() {
		t.Fatalf("first migrate: %+v", res)
	}
	res, err = db.Migrate(ctx)
	if err != nil || len(res.Applied) != 0 || res.To != schema.PostgresVersion() {
		t.Fatalf("second migrate: %+v %v", res, err)
	}
	// An applied migration whose text changed is refused.
	if _, err := db.pool.Exec(ctx, `UPDATE cairn_migrations SET checksum = 'x' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err == nil || !strings.Contains(err.Error(), "different content") {
		t.Fatalf("tampered migration: %v", err)
	}
}

func TestFailedMigrationLeavesNothing(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	bad := schema.Migration{Version: 99, Name: "bad", SQL: `CREATE TABLE half_done(x int); SELECT 1/0;`, Checksum: "c", MinReader: 1}
	if _, err := db.applyMigration(ctx, bad); err == nil || !strings.Contains(err.Error(), "nothing of it was applied") {
		t.Fatalf("bad migration: %v", err)
	}
	var exists bool
	db.pool.QueryRow(ctx, `SELECT to_regclass('half_done') IS NOT NULL`).Scan(&exists)
	v, _, _ := db.SchemaVersion(ctx)
	if exists || v != schema.PostgresVersion() {
		t.Fatalf("after failed migration: table exists %v, version %d", exists, v)
	}
}

func TestSchemaFromNewerBinary(t *testing.T) {
	db, u := migrated(t)
	ctx := context.Background()
	commitGeneration(t, db, "r", 1, map[string]string{"a.go": "A"})
	next := schema.PostgresVersion() + 1
	if _, err := db.pool.Exec(ctx, `INSERT INTO cairn_migrations(version, name, checksum, min_reader) VALUES($1, 'future', 'x', 1)`, next); err != nil {
		t.Fatal(err)
	}
	db2, err := Connect(ctx, u, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	_, err = db2.StartBuild(ctx, graph.BuildOptions{Repo: "r"})
	var se *SchemaError
	if !errors.As(err, &se) || !se.Write || !strings.Contains(err.Error(), "refusing to write") {
		t.Fatalf("write to newer schema: %v", err)
	}
	s, err := db2.Open(ctx, "r")
	if err != nil {
		t.Fatalf("read newer additive schema: %v", err)
	}
	if len(db2.Warnings) == 0 {
		t.Error("no warning about the newer schema")
	}
	if syms, err := s.SymbolsByName(ctx, "A"); err != nil || len(syms) != 1 {
		t.Fatalf("read: %v %v", syms, err)
	}
	// A migration that breaks older readers stops reading too.
	if _, err := db.pool.Exec(ctx, `UPDATE cairn_migrations SET min_reader = $1 WHERE version = $1`, next); err != nil {
		t.Fatal(err)
	}
	if _, err := db2.Open(ctx, "r"); !errors.As(err, &se) || se.Write || !strings.Contains(err.Error(), "cannot read") {
		t.Fatalf("read breaking newer schema: %v", err)
	}
	// And a database behind the binary asks for a migration.
	e := &SchemaError{Where: "db", Found: 1, Want: 2}
	if !strings.Contains(e.Error(), "cairn migrate") {
		t.Fatal(e.Error())
	}
}

// testFacts builds the facts of a file defining one function per name, each
// calling the next.
func testFacts(path string, names ...string) *graph.FileFacts {
	ff := &graph.FileFacts{File: graph.File{Path: path, Lang: graph.LangGo, Hash: fmt.Sprintf("h-%s-%v", path, names), Size: 10, ModTime: 1, Lines: 3 * len(names), Status: graph.ParseOK, Package: "p"}}
	for i, n := range names {
		id := graph.SymbolID("cairn go p . " + n + "().")
		line := uint32(3*i + 1)
		ff.Symbols = append(ff.Symbols, graph.Symbol{ID: id, Name: n, Kind: graph.KindFunction, Lang: graph.LangGo, Path: path,
			Range:     graph.Range{StartByte: uint32(30 * i), EndByte: uint32(30*i + 20), StartLine: line, EndLine: line + 2},
			NameRange: graph.Range{StartByte: uint32(30*i + 5), EndByte: uint32(30*i + 5 + len(n)), StartLine: line, EndLine: line, StartCol: 5, EndCol: uint32(5 + len(n))},
			Signature: "func " + n + "()", Exported: true, Parent: -1, Extends: []string{"Base"}})
		ff.Chunks = append(ff.Chunks, graph.Chunk{Path: path, Kind: graph.ChunkFunction, Symbol: id, Name: n,
			Range: graph.Range{StartByte: uint32(30 * i), EndByte: uint32(30*i + 20), StartLine: line, EndLine: line + 2}, Hash: "c" + n,
			Text: "func " + n + "() {}\n"})
		ff.Occurrences = append(ff.Occurrences, graph.Occurrence{Name: n, Role: graph.RoleDefinition, Enclosing: -1, Symbol: id,
			Range: ff.Symbols[i].NameRange, Confidence: graph.ConfPrecise})
	}
	ff.Imports = []graph.Import{{Module: "fmt"}}
	return ff
}

// commitGeneration indexes files (path → space-separated function names)
// as a new generation of repo, through the build protocol with one job.
func commitGeneration(t *testing.T, db *DB, repo string, seq int, files map[string]string) {
	t.Helper()
	commitGenerationSkips(t, db, repo, seq, files, nil)
}

// commitGenerationSkips is commitGeneration with skipped paths recorded.
func commitGenerationSkips(t *testing.T, db *DB, repo string, seq int, files map[string]string, skips []graph.Skip) {
	t.Helper()
	ctx := context.Background()
	b, err := db.StartBuild(ctx, graph.BuildOptions{Repo: repo, Revision: fmt.Sprint(seq)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	j, err := b.Claim(ctx)
	if err != nil || j == nil {
		t.Fatalf("claim: %v %v", j, err)
	}
	w, err := j.Writer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	known, err := w.Known(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for p := range known {
		if _, ok := files[p]; !ok {
			w.Delete(ctx, p)
		}
	}
	for p, names := range files {
		if _, err := w.PutFile(ctx, testFacts(p, strings.Fields(names)...)); err != nil {
			t.Fatal(err)
		}
		w.SetCommitted(ctx, p, true)
	}
	for _, sk := range skips {
		if err := w.PutSkip(ctx, sk, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx, graph.Meta{}); err != nil {
		t.Fatal(err)
	}
	fw, err := b.ClaimFinalize(ctx)
	if err != nil || fw == nil {
		t.Fatalf("claim finalize: %v %v", fw, err)
	}
	paths, err := fw.(*Writer).WrittenPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		ff, err := fw.Facts(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		// "Resolve": each function calls the next one of its file.
		syms, err := fw.View().SymbolsInFile(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var edges []graph.Edge
		for i := 0; i+1 < len(syms); i++ {
			edges = append(edges, graph.Edge{From: syms[i].ID, To: syms[i+1].ID, Kind: graph.EdgeCalls, Confidence: graph.ConfResolved, Path: p,
				Range: graph.Range{StartByte: syms[i].Range.StartByte + 10, EndByte: syms[i].Range.StartByte + 12, StartLine: syms[i].Range.StartLine + 1, EndLine: syms[i].Range.StartLine + 1, StartCol: 2, EndCol: 4}})
		}
		if err := fw.SetResolution(ctx, ff, edges); err != nil {
			t.Fatal(err)
		}
	}
	ranks := map[graph.SymbolID]float64{}
	if err := fw.AllEdges(ctx, nil, func(from, to graph.SymbolID) { ranks[to] += 1 }); err != nil {
		t.Fatal(err)
	}
	if err := fw.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	if err := fw.Commit(ctx, graph.Meta{Root: "/r", Revision: fmt.Sprint(seq), Extra: map[string]string{"k": fmt.Sprint(seq)}}); err != nil {
		t.Fatal(err)
	}
}

func TestGenerationsAndGC(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	commitGeneration(t, db, "r", 1, map[string]string{"a.go": "A B", "b.go": "C D"})
	s1, err := db.Open(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s1.Meta(ctx)
	if err != nil || m.Generation != 1 || m.Files != 2 || m.Symbols != 4 || m.Chunks != 4 || m.Extra["k"] != "1" {
		t.Fatalf("meta 1: %+v %v", m, err)
	}
	// Facts round-trip.
	ff, err := s1.FileFacts(ctx, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(ff.Symbols) != 2 || ff.Symbols[0].Name != "A" || ff.Symbols[0].Extends[0] != "Base" || len(ff.Occurrences) != 2 ||
		ff.Occurrences[1].Symbol != "cairn go p . B()." || len(ff.Imports) != 1 || !ff.File.Committed {
		t.Fatalf("facts: %+v", ff)
	}
	callers, err := graph.Callers(ctx, s1, []graph.SymbolID{"cairn go p . B()."}, graph.TraverseOptions{})
	if err != nil || len(callers) != 1 || callers[0].Def.Name != "A" || callers[0].Via.Path != "a.go" {
		t.Fatalf("callers: %+v %v", callers, err)
	}
	ranks, err := s1.Ranks(ctx, []graph.SymbolID{"cairn go p . B()."})
	if err != nil || ranks["cairn go p . B()."] != 1 {
		t.Fatalf("ranks: %v %v", ranks, err)
	}
	if got, _ := s1.FilesMentioning(ctx, "C"); len(got) != 1 || got[0] != "b.go" {
		t.Fatalf("mentioning: %v", got)
	}
	aChunks, _ := s1.ChunksInFile(ctx, "a.go")

	// Generation 2 changes b.go; while it is built, readers see 1.
	b, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "r", Revision: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if info := b.Info(); info.Fresh || info.Why != "incremental" {
		t.Fatalf("second build: fresh %v (%s)", info.Fresh, info.Why)
	}
	b.Close()
	j, _ := b.Claim(ctx)
	w, _ := j.Writer(ctx)
	if _, err := w.PutFile(ctx, testFacts("b.go", "E")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx, graph.Meta{}); err != nil {
		t.Fatal(err)
	}
	mid, err := db.Open(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if syms, _ := mid.SymbolsByName(ctx, "E"); len(syms) != 0 || mid.GenerationID() != s1.GenerationID() {
		t.Fatalf("a reader sees a generation before it commits: %v", syms)
	}
	fw, _ := b.ClaimFinalize(ctx)
	if fw == nil {
		t.Fatal("no finalization")
	}
	if err := fw.Commit(ctx, graph.Meta{Revision: "2"}); err != nil {
		t.Fatal(err)
	}
	s2, err := db.Open(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if syms, _ := s2.SymbolsByName(ctx, "e"); len(syms) != 1 || syms[0].Path != "b.go" {
		t.Fatalf("generation 2: %v", syms)
	}
	if syms, _ := s2.SymbolsByName(ctx, "C"); len(syms) != 0 {
		t.Fatalf("generation 2 still has C: %v", syms)
	}
	// a.go is shared: same chunk ids, and its edges (resolution) carried over.
	if c2, _ := s2.ChunksInFile(ctx, "a.go"); len(c2) != 2 || c2[0].ID != aChunks[0].ID {
		t.Fatalf("a.go chunks: %v vs %v", c2, aChunks)
	}
	if callers, _ := graph.Callers(ctx, s2, []graph.SymbolID{"cairn go p . B()."}, graph.TraverseOptions{}); len(callers) != 1 {
		t.Fatalf("carried edges: %v", callers)
	}
	// The old reader keeps reading generation 1 within the grace period.
	if syms, _ := s1.SymbolsByName(ctx, "C"); len(syms) != 1 {
		t.Fatalf("old reader lost its generation: %v", syms)
	}
	var versions int
	db.pool.QueryRow(ctx, `SELECT count(*) FROM files`).Scan(&versions)
	if versions != 3 {
		t.Fatalf("%d file versions, want 3 (a, b, b')", versions)
	}
	res, err := db.GC(ctx, b.(*Build).RepoID, GCOptions{Grace: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Generations != 1 || res.Files != 1 {
		t.Fatalf("gc: %+v", res)
	}
	for tbl, want := range map[string]int{"files": 2, "symbols": 3, "chunks": 3, "generations": 1, "occurrences": 2, "edges": 1} {
		var n int
		db.pool.QueryRow(ctx, `SELECT count(*) FROM `+tbl).Scan(&n)
		if n != want {
			t.Errorf("after gc: %d rows in %s, want %d", n, tbl, want)
		}
	}
	if _, err := s1.Meta(ctx); !errors.Is(err, graph.ErrNoIndex) {
		t.Fatalf("reader of a collected generation: %v", err)
	}
}

func TestManyRepositories(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	commitGeneration(t, db, "one", 1, map[string]string{"a.go": "Shared One"})
	commitGeneration(t, db, "two", 1, map[string]string{"a.go": "Shared Two"})
	for repo, own := range map[string]string{"one": "One", "two": "Two"} {
		s, err := db.Open(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.SymbolsByName(ctx, "Shared"); len(got) != 1 {
			t.Errorf("%s: Shared: %v", repo, got)
		}
		if got, _ := s.SymbolsByName(ctx, own); len(got) != 1 {
			t.Errorf("%s: %s: %v", repo, own, got)
		}
		if files, _ := s.Files(ctx); len(files) != 1 {
			t.Errorf("%s: files %v", repo, files)
		}
	}
	if _, err := db.Open(ctx, "three"); !errors.Is(err, graph.ErrNoIndex) {
		t.Fatalf("unknown repository: %v", err)
	}
}

func TestJobClaims(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	plan := func(context.Context, map[string]graph.FileState) ([]graph.JobSpec, error) {
		return []graph.JobSpec{{Prefixes: []string{"a"}}, {Prefixes: []string{"b"}}, {Prefixes: []string{"c"}}}, nil
	}
	lease := 300 * time.Millisecond
	b1, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "r", Revision: "x", Worker: "w1", Plan: plan, Lease: lease, NoHeartbeat: true})
	if err != nil {
		t.Fatal(err)
	}
	b2, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "r", Revision: "x", Worker: "w2", Plan: plan, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if !b2.Info().Joined || b2.(*Build).ID != b1.(*Build).ID || b2.Info().Jobs != 3 {
		t.Fatalf("second process did not join: %+v", b2)
	}
	// Another revision cannot start while the build is alive.
	j1 := claim(t, b1)
	if _, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "r", Revision: "y", Worker: "w3"}); !errors.As(err, new(*graph.BusyError)) {
		t.Fatalf("start over a live build: %v", err)
	}
	j2 := claim(t, b2)
	if j1 == nil || j2 == nil || j1.ID == j2.ID {
		t.Fatalf("claims: %v %v", j1, j2)
	}
	w1, err := j1.Writer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w1.PutFile(ctx, testFacts("a/x.go", "X"))
	// w1's lease lapses (no heartbeat): w2 takes its job over.
	time.Sleep(2 * lease)
	j4 := claim(t, b2)
	if j4 == nil || j4.ID != j1.ID || j4.Attempt != 2 {
		w1.Abort()
		t.Fatalf("lapsed job not retried first: %+v", j4)
	}
	j3 := claim(t, b2)
	if j3 == nil || j3.ID == j1.ID || j3.ID == j2.ID {
		w1.Abort()
		t.Fatalf("third job: %v", j3)
	}
	if err := w1.Commit(ctx, graph.Meta{}); !errors.Is(err, graph.ErrClaimLost) {
		t.Fatalf("commit after losing the claim: %v", err)
	}
	if j5 := claim(t, b2); j5 != nil {
		t.Fatalf("a fourth job: %+v", j5)
	}
	for _, j := range []*Job{j2, j3, j4} {
		w, err := j.Writer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.PutFile(ctx, testFacts(j.Prefixes[0]+"/x.go", strings.ToUpper(j.Prefixes[0]))); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx, graph.Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := b2.ClaimFinalize(ctx)
	if err != nil || fw == nil {
		t.Fatal("finalize", err)
	}
	if fw2, _ := b1.ClaimFinalize(ctx); fw2 != nil {
		t.Fatal("two finalizers")
	}
	if err := fw.Commit(ctx, graph.Meta{}); err != nil {
		t.Fatal(err)
	}
	s, err := db.Open(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := s.Files(ctx)
	if len(files) != 3 {
		t.Fatalf("files: %v", files)
	}
	// The lost writer's version of a/x.go never became visible.
	if syms, _ := s.SymbolsByName(ctx, "X"); len(syms) != 0 {
		t.Fatalf("work of a lapsed claim is visible: %v", syms)
	}
}

// claim claims b's next job, nil when there is none.
func claim(t *testing.T, b graph.Build) *Job {
	t.Helper()
	j, err := b.Claim(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if j == nil {
		return nil
	}
	return j.(*Job)
}

func TestDeadWorkerReclaimedAtOnce(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	b, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "r", Worker: "w1", Lease: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	j := claim(t, b)
	w, _ := j.Writer(ctx)
	w.PutFile(ctx, testFacts("a.go", "A"))
	var pid uint32 = w.(*Writer).conn.Conn().PgConn().PID()
	if _, err := db.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)); err != nil {
		t.Fatal(err)
	}
	err = w.Commit(ctx, graph.Meta{})
	if err == nil || !strings.Contains(err.Error(), "lost the connection") {
		t.Fatalf("commit on a killed connection: %v", err)
	}
	// The lease is an hour, but the claiming connection is gone.
	time.Sleep(100 * time.Millisecond)
	b2, err := db.StartBuild(ctx, graph.BuildOptions{Repo: "r", Worker: "w2"})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	j2 := claim(t, b2)
	if j2 == nil || j2.ID != j.ID {
		t.Fatalf("dead worker's job not reclaimed: %+v %v", j2, err)
	}
	j2.Release()
}

func TestConnectionRefused(t *testing.T) {
	_, err := Connect(context.Background(), "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", Options{})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("refused connection: %v", err)
	}
}

// TestReadCache: a store answers chunk and rank reads it has made once
// from memory (its generation never changes), ids outside the generation
// included; what it has not read still goes to the database.
func TestReadCache(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	commitGeneration(t, db, "r", 1, map[string]string{"a.go": "A B", "b.go": "C D"})
	s, err := db.Open(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.ChunksInFile(ctx, "a.go")
	if err != nil || len(a) != 2 {
		t.Fatalf("chunks of a.go: %v %v", a, err)
	}
	ids := []int64{a[1].ID, 1 << 40, a[0].ID}
	first, err := s.ChunksByID(ctx, ids)
	if err != nil || len(first) != 2 || first[0].ID != a[1].ID || first[1].ID != a[0].ID {
		t.Fatalf("chunks by id (in the order asked): %v %v", first, err)
	}
	b := graph.SymbolID("cairn go p . B().")
	if r, err := s.Ranks(ctx, []graph.SymbolID{b, "cairn go p . nothing()."}); err != nil || len(r) != 1 || r[b] != 1 {
		t.Fatalf("ranks: %v %v", r, err)
	}
	// With the database gone, what was read is still answered.
	db.pool.Close()
	again, err := s.ChunksByID(ctx, ids)
	if err != nil || len(again) != 2 || again[0] != first[0] || again[1] != first[1] {
		t.Fatalf("cached chunks by id: %v %v", again, err)
	}
	if got, err := s.ChunksInFile(ctx, "a.go"); err != nil || len(got) != 2 || got[0] != a[0] {
		t.Fatalf("cached chunks of a.go: %v %v", got, err)
	}
	if r, err := s.Ranks(ctx, []graph.SymbolID{b, "cairn go p . nothing()."}); err != nil || len(r) != 1 || r[b] != 1 {
		t.Fatalf("cached ranks: %v %v", r, err)
	}
	// ... and what was not goes to the database (and fails).
	if _, err := s.ChunksInFile(ctx, "b.go"); err == nil {
		t.Fatal("b.go's chunks answered without a database")
	}
	if _, err := s.ChunksByID(ctx, []int64{a[0].ID, a[0].ID + 100}); err == nil {
		t.Fatal("an unread id answered without a database")
	}
}

// TestSkipsOf: the skipped paths of one reason, selected in the database,
// are what Skips lists of that reason, in path order.
func TestSkipsOf(t *testing.T) {
	db, _ := migrated(t)
	ctx := context.Background()
	commitGenerationSkips(t, db, "r", 1, map[string]string{"a.go": "A"}, []graph.Skip{
		{Path: "b/x_string.go", Reason: graph.SkipGenerated, Detail: "generated-code marker"},
		{Path: "a/y.pb.go", Reason: graph.SkipGenerated, Detail: "generated-code marker"},
		{Path: "a/logo.png", Reason: graph.SkipBinary, Detail: "NUL byte"},
	})
	s, err := db.Open(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Skips(ctx)
	if err != nil || len(all) != 3 {
		t.Fatalf("skips %+v, %v", all, err)
	}
	got, err := s.SkipsOf(ctx, graph.SkipGenerated)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, sk := range got {
		paths = append(paths, sk.Path)
	}
	if strings.Join(paths, " ") != "a/y.pb.go b/x_string.go" {
		t.Errorf("generated skips %v, want [a/y.pb.go b/x_string.go]", paths)
	}
	if got, err := s.SkipsOf(ctx, graph.SkipLockfile); err != nil || len(got) != 0 {
		t.Errorf("lockfile skips %v, %v", got, err)
	}
}
