package indexer_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/schema"
)

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ageFiles moves every mtime into the past, so the racy-mtime window does
// not force re-reads.
func ageFiles(t testing.TB, root string) {
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func index(t testing.TB, root, dir string, opts indexer.Options) indexer.Result {
	t.Helper()
	res, err := tryIndex(root, dir, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func tryIndex(root, dir string, full bool, opts indexer.Options) (indexer.Result, error) {
	ctx := context.Background()
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir, Full: full})
	if err != nil {
		return indexer.Result{}, err
	}
	opts.Root, opts.StateDir = root, dir
	return indexer.Run(ctx, w, opts)
}

func open(t testing.TB, dir string) *embedded.Store {
	t.Helper()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func defPaths(t testing.TB, s graph.Reader, name string) []string {
	t.Helper()
	defs, err := graph.FindDefinitions(context.Background(), s, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range defs {
		out = append(out, fmt.Sprintf("%s:%d", d.Path, d.Range.StartLine))
	}
	return out
}

func TestIncremental(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"a/a.go":       "package a\n\nfunc Alpha() { Beta() }\n",
		"a/b.go":       "package a\n\nfunc Beta() {}\n",
		"p/mod.py":     "def gamma():\n    return 1\n",
		"p/old.py":     "def renamed_fn():\n    pass\n",
		"gone/gone.go": "package gone\n\nfunc Gone() {}\n",
	})
	ageFiles(t, root)
	res := index(t, root, dir, indexer.Options{})
	if !res.Fresh || res.Parsed != 5 {
		t.Fatalf("first run: fresh=%v parsed=%d, want fresh, 5", res.Fresh, res.Parsed)
	}
	s := open(t, dir)
	if got := defPaths(t, s, "Gone"); len(got) != 1 {
		t.Fatalf("Gone = %v", got)
	}

	// Nothing changed: nothing is read.
	res = index(t, root, dir, indexer.Options{})
	if res.Fresh || res.Parsed != 0 || res.Unchanged != 5 {
		t.Fatalf("no-op run: fresh=%v parsed=%d unchanged=%d", res.Fresh, res.Parsed, res.Unchanged)
	}

	// Touched but same content: re-stamped, not re-parsed.
	now := time.Now().Add(-time.Minute)
	os.Chtimes(filepath.Join(root, "a/b.go"), now, now)
	res = index(t, root, dir, indexer.Options{})
	if res.Parsed != 0 || res.Unchanged != 5 {
		t.Fatalf("touch run: parsed=%d unchanged=%d", res.Parsed, res.Unchanged)
	}

	// Edit one file, delete one, rename one.
	writeFiles(t, root, map[string]string{"a/b.go": "package a\n\nfunc Beta2() {}\n"})
	os.RemoveAll(filepath.Join(root, "gone"))
	os.Rename(filepath.Join(root, "p/old.py"), filepath.Join(root, "p/new.py"))
	ageFiles(t, root)
	res = index(t, root, dir, indexer.Options{})
	if res.Parsed != 2 || res.Deleted != 2 || res.Unchanged != 2 {
		t.Fatalf("edit run: parsed=%d deleted=%d unchanged=%d, want 2, 2, 2", res.Parsed, res.Deleted, res.Unchanged)
	}
	s2 := open(t, dir)
	for name, want := range map[string]string{"Beta": "", "Beta2": "a/b.go:3", "Gone": "", "renamed_fn": "p/new.py:1", "Alpha": "a/a.go:3"} {
		got := strings.Join(defPaths(t, s2, name), ",")
		if got != want {
			t.Errorf("def %s = %q, want %q", name, got, want)
		}
	}
	if _, err := s2.File(context.Background(), "p/old.py"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("old path still indexed: %v", err)
	}
	m, err := s2.Meta(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Generation != 4 {
		t.Errorf("generation = %d, want 4", m.Generation)
	}
}

// failingSink fails after n files, to inject a failure mid-run.
type failingSink struct{ n int }

func (f *failingSink) Begin(context.Context, string, bool) error { return nil }
func (f *failingSink) Put(context.Context, *graph.FileFacts, []int64) error {
	if f.n--; f.n < 0 {
		return errors.New("injected failure")
	}
	return nil
}
func (f *failingSink) Delete(context.Context, string) error              { return nil }
func (f *failingSink) Finish(context.Context) (map[string]string, error) { return nil, nil }
func (f *failingSink) Abort()                                            {}

func TestFailureKeepsPreviousGeneration(t *testing.T) {
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full=%v", full), func(t *testing.T) {
			root, dir := t.TempDir(), t.TempDir()
			files := map[string]string{}
			for i := 0; i < 20; i++ {
				files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package p\n\nfunc Old%d() {}\n", i)
			}
			writeFiles(t, root, files)
			ageFiles(t, root)
			index(t, root, dir, indexer.Options{})
			for i := 0; i < 20; i++ {
				files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package p\n\nfunc New%d() {}\n", i)
			}
			writeFiles(t, root, files)
			ageFiles(t, root)
			_, err := tryIndex(root, dir, full, indexer.Options{Sinks: []indexer.Sink{&failingSink{n: 7}}})
			if err == nil || !strings.Contains(err.Error(), "injected failure") {
				t.Fatalf("err = %v, want injected failure", err)
			}
			s := open(t, dir)
			m, err := s.Meta(context.Background())
			if err != nil || m.Generation != 1 {
				t.Fatalf("meta = %+v, %v; want generation 1", m, err)
			}
			if got := defPaths(t, s, "Old3"); len(got) != 1 {
				t.Errorf("Old3 = %v, want the old definition", got)
			}
			if got := defPaths(t, s, "New3"); len(got) != 0 {
				t.Errorf("New3 = %v, want nothing from the failed run", got)
			}
			// The next run succeeds and sees everything.
			if _, err := tryIndex(root, dir, false, indexer.Options{}); err != nil {
				t.Fatal(err)
			}
			if got := defPaths(t, open(t, dir), "New3"); len(got) != 1 {
				t.Errorf("after recovery New3 = %v", got)
			}
		})
	}
}

func TestFormatMismatch(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\nfunc A() {}\n"})
	index(t, root, dir, indexer.Options{})
	cur, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format int
		want   string
	}{{999, "newer"}, {0, "older"}} {
		bad := strings.Replace(string(cur), fmt.Sprintf(`"format":%d`, schema.EmbeddedFormat), fmt.Sprintf(`"format":%d`, tc.format), 1)
		os.WriteFile(filepath.Join(dir, "CURRENT"), []byte(bad), 0o644)
		_, err := embedded.Open(dir)
		var fe *graph.FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "re-index") {
			t.Errorf("format %d: err = %v, want a FormatError saying %q and asking for a re-index", tc.format, err, tc.want)
		}
	}
	// An index run replaces the unreadable index with a fresh one.
	res := index(t, root, dir, indexer.Options{})
	if !res.Fresh {
		t.Error("run over a foreign-format index was not fresh")
	}
	if got := defPaths(t, open(t, dir), "A"); len(got) != 1 {
		t.Errorf("A = %v after rebuild", got)
	}

	// The database's own format record is checked too.
	s := open(t, dir)
	epoch := s.EpochDir()
	s.Close()
	db, err := embeddedDB(filepath.Join(epoch, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"7", "1"} { // newer, older
		db.Exec(`UPDATE meta SET value = ? WHERE key = 'format'`, f)
		if _, err := embedded.Open(dir); err == nil || !strings.Contains(err.Error(), "format "+f) {
			t.Errorf("db format %s: err = %v", f, err)
		}
	}
	db.Close()
}

// TestFeatureVersionRebuilds: an index whose facts an older extractor
// wrote (its feature version differs) is rebuilt by the next run, not
// extended: the upgrade's new facts reach every file, unchanged ones too.
func TestFeatureVersionRebuilds(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\nfunc A() {}\n", "b.go": "package a\nfunc B() {}\n"})
	ageFiles(t, root)
	index(t, root, dir, indexer.Options{})
	if res := index(t, root, dir, indexer.Options{}); res.Fresh {
		t.Fatalf("a run over an index of this extractor was fresh: %s", res.Why)
	}
	s := open(t, dir)
	epoch := s.EpochDir()
	s.Close()
	for _, feature := range []int{schema.FeatureVersion - 1, schema.FeatureVersion + 1} {
		db, err := embeddedDB(filepath.Join(epoch, "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE meta SET value = ? WHERE key = 'feature'`, fmt.Sprint(feature)); err != nil {
			t.Fatal(err)
		}
		db.Close()
		res := index(t, root, dir, indexer.Options{})
		if !res.Fresh || !strings.Contains(res.Why, "feature") || res.Unchanged != 0 {
			t.Errorf("feature version %d (this extractor's is %d): fresh %v (%s), %d files kept unchanged; want a rebuild",
				feature, schema.FeatureVersion, res.Fresh, res.Why, res.Unchanged)
		}
		s := open(t, dir)
		epoch = s.EpochDir()
		s.Close()
		if got := defPaths(t, open(t, dir), "B"); len(got) != 1 {
			t.Errorf("B = %v after the rebuild", got)
		}
	}
}

// TestSameTickEdit: an edit that keeps the file's size and lands in the
// mtime tick the last run saw (here: the same, recent, mtime) is read, not
// taken for unchanged.
func TestSameTickEdit(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	p := filepath.Join(root, "a.go")
	// the tick is 1.5 s ahead: within the 2 s before the second run's start
	// (as an edit just before it would be), not after the start
	start := time.Now()
	tick := start.Add(1500 * time.Millisecond)
	writeFiles(t, root, map[string]string{"a.go": "package a\nfunc Old() {}\n"})
	os.Chtimes(p, tick, tick)
	index(t, root, dir, indexer.Options{})
	writeFiles(t, root, map[string]string{"a.go": "package a\nfunc New() {}\n"})
	os.Chtimes(p, tick, tick)
	if time.Since(start) > 3*time.Second {
		t.Skip("the first run took over 3 s: the tick is no longer recent")
	}
	res := index(t, root, dir, indexer.Options{})
	if got := defPaths(t, open(t, dir), "New"); len(got) != 1 || res.Unchanged != 0 {
		t.Errorf("after a same-size edit in the same mtime tick: New = %v, %d files unchanged", got, res.Unchanged)
	}
}

func TestReopenSameAnswers(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"s.py": "class S:\n    def m(self):\n        pass\n"})
	index(t, root, dir, indexer.Options{})
	first := defPaths(t, open(t, dir), "S.m")
	second := defPaths(t, open(t, dir), "S.m")
	if len(first) != 1 || strings.Join(first, "") != strings.Join(second, "") {
		t.Errorf("reopen: %v then %v", first, second)
	}
}

func TestParseTimeout(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	var b strings.Builder
	b.WriteString("package big\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "func F%d(x int) int { return x*%d + F%d(x-1) }\n", i, i, i)
	}
	writeFiles(t, root, map[string]string{"big.go": b.String(), "small.go": "package big\nfunc Small() {}\n"})
	res := index(t, root, dir, indexer.Options{ParseTimeout: time.Millisecond})
	if len(res.Problems) != 1 || res.Problems[0].Path != "big.go" || res.Problems[0].Status != graph.ParseTimeout {
		t.Fatalf("problems = %+v, want big.go timeout", res.Problems)
	}
	s := open(t, dir)
	if got := defPaths(t, s, "Small"); len(got) != 1 {
		t.Errorf("Small = %v: the other file must still be indexed", got)
	}
	f, err := s.File(context.Background(), "big.go")
	if err != nil || f.Status != graph.ParseTimeout {
		t.Errorf("big.go = %+v, %v", f, err)
	}
}

func TestCrashJournalQuarantines(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"boom.go": "package b\nfunc Boom() {}\n", "ok.go": "package b\nfunc OK() {}\n"})
	hash := indexer.BlobHash([]byte("package b\nfunc Boom() {}\n"))
	crash := func() {
		// What a run that died inside the parser leaves behind.
		os.MkdirAll(filepath.Join(dir, "journal"), 0o755)
		os.WriteFile(filepath.Join(dir, "journal", "inflight-0"), []byte(hash+"\tboom.go\n"), 0o644)
	}
	crash()
	index(t, root, dir, indexer.Options{})
	s := open(t, dir)
	if f, _ := s.File(context.Background(), "boom.go"); f.Status != graph.ParseOK {
		t.Fatalf("after one crash boom.go is %s, want a retry (ok)", f.Status)
	}
	// Two runs in a row died on it: the state the second crash leaves is a
	// suspect count of 1 plus the in-flight slot.
	crash()
	os.WriteFile(filepath.Join(dir, "journal", "suspects"), []byte("1\t"+hash+"\tboom.go\n"), 0o644)
	index(t, root, dir, indexer.Options{})
	s = open(t, dir)
	if f, _ := s.File(context.Background(), "boom.go"); f.Status != graph.ParseCrashed {
		t.Fatalf("after repeated crashes boom.go is %s, want crashed", f.Status)
	}
	if got := defPaths(t, s, "OK"); len(got) != 1 {
		t.Errorf("OK = %v", got)
	}
	// New content gets a fresh chance.
	writeFiles(t, root, map[string]string{"boom.go": "package b\nfunc Boom2() {}\n"})
	index(t, root, dir, indexer.Options{})
	if f, _ := open(t, dir).File(context.Background(), "boom.go"); f.Status != graph.ParseOK {
		t.Errorf("changed boom.go is %s, want ok", f.Status)
	}
}

// TestKilledRun kills a real index process at random points and checks that
// the last committed generation is intact and queryable every time.
func TestKilledRun(t *testing.T) {
	if os.Getenv("CAIRN_KILL_CHILD") != "" {
		return
	}
	if testing.Short() {
		t.Skip("slow")
	}
	root, dir := t.TempDir(), t.TempDir()
	gen := func(word string) {
		files := map[string]string{}
		for i := 0; i < 600; i++ {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%d\n\n", i%7)
			for j := 0; j < 30; j++ {
				fmt.Fprintf(&b, "func %s_%d_%d(x int) int { return x + %d }\n\n", word, i, j, j)
			}
			files[fmt.Sprintf("d%d/f%d.go", i%13, i)] = b.String()
		}
		writeFiles(t, root, files)
		ageFiles(t, root)
	}
	gen("Old")
	index(t, root, dir, indexer.Options{})
	gen("New")
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 10; round++ {
		full := round%2 == 1
		cmd := exec.Command(os.Args[0], "-test.run=TestKilledRunChild", "-test.v")
		cmd.Env = append(os.Environ(), "CAIRN_KILL_CHILD=1", "CAIRN_KILL_ROOT="+root, "CAIRN_KILL_DIR="+dir,
			fmt.Sprintf("CAIRN_KILL_FULL=%v", full))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(50+rng.Intn(1200)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		state, _ := cmd.Process.Wait()
		s, err := embedded.Open(dir)
		if err != nil {
			t.Fatalf("round %d (full=%v): index unreadable after kill: %v", round, full, err)
		}
		m, err := s.Meta(context.Background())
		if err != nil {
			t.Fatalf("round %d: meta: %v", round, err)
		}
		old := defPaths(t, s, "Old_5_5")
		nw := defPaths(t, s, "New_5_5")
		s.Close()
		completed := state != nil && state.Success()
		switch {
		case m.Generation == 1 && len(old) == 1 && len(nw) == 0:
		case m.Generation >= 2 && len(old) == 0 && len(nw) == 1:
			if !completed {
				t.Logf("round %d: the run committed before the kill", round)
			}
			return // the new generation is complete; nothing more to kill
		default:
			t.Fatalf("round %d: generation %d with old=%v new=%v: a half-built index is visible", round, m.Generation, old, nw)
		}
	}
}

func TestKilledRunChild(t *testing.T) {
	if os.Getenv("CAIRN_KILL_CHILD") == "" {
		t.Skip("helper process for TestKilledRun")
	}
	_, err := tryIndex(os.Getenv("CAIRN_KILL_ROOT"), os.Getenv("CAIRN_KILL_DIR"), os.Getenv("CAIRN_KILL_FULL") == "true",
		indexer.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
}

func embeddedDB(path string) (*sql.DB, error) { return sql.Open("sqlite3", path) }
