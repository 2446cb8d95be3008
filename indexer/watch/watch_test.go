package watch_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/watch"
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

// writeFilesAtomically writes each file aside and renames it into place,
// as editors save: a watcher never reads one half-written. The killed
// watcher's test needs it — a file read between WriteFile's truncate and
// its write is indexed empty, rightly, and a kill then leaves it so.
func writeFilesAtomically(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp~")
		if err := os.WriteFile(tmp, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			t.Fatal(err)
		}
	}
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a git repository with files, committed.
func newRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	git(t, root, "init", "-q")
	writeFiles(t, root, files)
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "initial")
	return root
}

func goFile(pkg string, funcs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n", pkg)
	for _, f := range funcs {
		fmt.Fprintf(&b, "\nfunc %s() {}\n", f)
	}
	return b.String()
}

// begin opens the embedded store in dir for each batch.
func begin(dir string) watch.Begin {
	return func(ctx context.Context) (graph.Writer, []indexer.Sink, error) {
		w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir, Wait: 30 * time.Second})
		return w, nil, err
	}
}

type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type fixture struct {
	t    *testing.T
	root string
	dir  string
	w    *watch.Watcher
	log  *logBuf
	mu   sync.Mutex
	seen []watch.Batch
}

// start runs a watcher on root with its index in a directory of its own.
func start(t *testing.T, root string, tune func(*watch.Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, root: root, dir: t.TempDir(), log: &logBuf{}}
	f.startAgain(tune)
	return f
}

func (f *fixture) startAgain(tune func(*watch.Options)) {
	f.t.Helper()
	o := watch.Options{Root: f.root, StateDir: f.dir, Begin: begin(f.dir),
		Log: slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		OnBatch: func(b watch.Batch) {
			f.mu.Lock()
			f.seen = append(f.seen, b)
			f.mu.Unlock()
		}}
	if tune != nil {
		tune(&o)
	}
	w, err := watch.Start(context.Background(), o)
	if err != nil {
		f.t.Fatal(err)
	}
	f.w = w
	f.t.Cleanup(func() { w.Close() })
	f.sync()
}

// sync waits for the batches of every change received so far.
func (f *fixture) sync() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := f.w.Sync(ctx); err != nil {
		f.t.Fatalf("sync: %v\nlog:\n%s", err, f.log)
	}
}

func (f *fixture) batches() []watch.Batch {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

// defs returns "path:line" of every definition of name in the committed index.
func (f *fixture) defs(name string) []string {
	f.t.Helper()
	s, err := embedded.Open(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	defer s.Close()
	ds, err := graph.FindDefinitions(context.Background(), s, name)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s:%d", d.Path, d.Range.StartLine))
	}
	slices.Sort(out)
	return out
}

// eventually waits until every name has exactly the wanted definitions
// ("" for none).
func (f *fixture) eventually(want map[string]string) {
	f.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var bad []string
		for name, w := range want {
			if got := strings.Join(f.defs(name), ","); got != w {
				bad = append(bad, fmt.Sprintf("def %s = %q, want %q", name, got, w))
			}
		}
		if len(bad) == 0 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("not reflected in the index:\n  %s\nstatus: %+v\nlog:\n%s", strings.Join(bad, "\n  "), f.w.Status(), f.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fixture) meta() graph.Meta {
	s, err := embedded.Open(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	defer s.Close()
	m, err := s.Meta(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func TestCreateModifyDeleteRename(t *testing.T) {
	root := newRepo(t, map[string]string{"a/a.go": goFile("a", "Alpha"), "b.py": "def beta():\n    pass\n"})
	f := start(t, root, nil)
	f.eventually(map[string]string{"Alpha": "a/a.go:3", "beta": "b.py:1"})

	writeFiles(t, root, map[string]string{"a/new.go": goFile("a", "Created")})
	f.eventually(map[string]string{"Created": "a/new.go:3"})

	writeFiles(t, root, map[string]string{"a/a.go": goFile("a", "Alpha2", "Alpha3")})
	f.eventually(map[string]string{"Alpha": "", "Alpha2": "a/a.go:3", "Alpha3": "a/a.go:5"})

	os.Remove(filepath.Join(root, "b.py"))
	f.eventually(map[string]string{"beta": ""})

	if err := os.Rename(filepath.Join(root, "a/new.go"), filepath.Join(root, "renamed.go")); err != nil {
		t.Fatal(err)
	}
	f.eventually(map[string]string{"Created": "renamed.go:3"})

	// an editor's save: write a temporary file, rename it over the original
	tmp := filepath.Join(root, "a/.a.go.tmp123")
	os.WriteFile(tmp, []byte(goFile("a", "Saved")), 0o644)
	os.Rename(tmp, filepath.Join(root, "a/a.go"))
	f.eventually(map[string]string{"Saved": "a/a.go:3", "Alpha2": ""})
	f.sync()
	s, _ := embedded.Open(f.dir)
	defer s.Close()
	if _, err := s.File(context.Background(), "a/.a.go.tmp123"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("temporary file left in the index: %v", err)
	}
}

// TestMoveDirectory: a moved tree is re-indexed under its new name, and
// its subdirectories are watched under the new name too.
func TestMoveDirectory(t *testing.T) {
	root := newRepo(t, map[string]string{
		"src/x/y/deep.go": goFile("y", "Deep"),
		"src/x/top.go":    goFile("x", "Top"),
		"keep.go":         goFile("main", "Keep"),
	})
	f := start(t, root, nil)
	f.eventually(map[string]string{"Deep": "src/x/y/deep.go:3", "Top": "src/x/top.go:3"})
	if err := os.Rename(filepath.Join(root, "src/x"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	f.eventually(map[string]string{"Deep": "moved/y/deep.go:3", "Top": "moved/top.go:3", "Keep": "keep.go:3"})
	// events from the moved subtree carry the new names
	writeFiles(t, root, map[string]string{"moved/y/deep.go": goFile("y", "Deeper")})
	f.eventually(map[string]string{"Deep": "", "Deeper": "moved/y/deep.go:3"})
	writeFiles(t, root, map[string]string{"moved/y/z/new.go": goFile("z", "InNewDir")})
	f.eventually(map[string]string{"InNewDir": "moved/y/z/new.go:3"})
	// and back out of the repository
	outside := filepath.Join(t.TempDir(), "gone")
	if err := os.Rename(filepath.Join(root, "moved"), outside); err != nil {
		t.Fatal(err)
	}
	f.eventually(map[string]string{"Deeper": "", "Top": "", "InNewDir": ""})
}

// TestNewAndIgnoredDirectories: new directories are watched as they
// appear; ignored ones are neither watched nor indexed, and an ignore-file
// change re-decides.
func TestNewAndIgnoredDirectories(t *testing.T) {
	root := newRepo(t, map[string]string{".gitignore": "gen/\n", "main.go": goFile("main", "Main"), "gen/g.go": goFile("gen", "Gen")})
	f := start(t, root, nil)
	f.eventually(map[string]string{"Main": "main.go:3", "Gen": ""})
	watched := f.w.Status().Watched

	writeFiles(t, root, map[string]string{"a/b/c/d/new.go": goFile("d", "Nested"), "gen/more/x.go": goFile("more", "Ignored"),
		"node_modules/m/index.js": "function Mod() {}\n"})
	f.eventually(map[string]string{"Nested": "a/b/c/d/new.go:3"})
	writeFiles(t, root, map[string]string{"a/b/c/d/later.go": goFile("d", "Later")})
	f.eventually(map[string]string{"Later": "a/b/c/d/later.go:3", "Ignored": "", "Mod": ""})
	if got := f.w.Status().Watched; got != watched+4 {
		t.Errorf("watched directories: %d, want %d (a, a/b, a/b/c, a/b/c/d; not gen/more or node_modules)", got, watched+4)
	}

	// un-ignore gen/: its files are indexed and its directories watched
	writeFiles(t, root, map[string]string{".gitignore": "# nothing\n"})
	f.eventually(map[string]string{"Gen": "gen/g.go:3", "Ignored": "gen/more/x.go:3"})
	writeFiles(t, root, map[string]string{"gen/more/y.go": goFile("more", "AfterUnignore")})
	f.eventually(map[string]string{"AfterUnignore": "gen/more/y.go:3"})

	// a nested ignore file hides what it names
	writeFiles(t, root, map[string]string{"a/.gitignore": "b/\n"})
	f.eventually(map[string]string{"Nested": "", "Later": "", "Main": "main.go:3"})
}

// TestBranchSwitch: checking out another revision is one batch (or two),
// not one per file, and leaves the index at the new HEAD.
func TestBranchSwitch(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 300; i++ {
		files[fmt.Sprintf("pkg%d/f%d.go", i%10, i)] = goFile(fmt.Sprintf("pkg%d", i%10), fmt.Sprintf("Main%d", i))
	}
	root := newRepo(t, files)
	main := git(t, root, "rev-parse", "HEAD")
	git(t, root, "checkout", "-q", "-b", "feature")
	for i := 0; i < 300; i++ {
		files[fmt.Sprintf("pkg%d/f%d.go", i%10, i)] = goFile(fmt.Sprintf("pkg%d", i%10), fmt.Sprintf("Feature%d", i))
	}
	writeFiles(t, root, files)
	writeFiles(t, root, map[string]string{"newdir/n.go": goFile("newdir", "OnlyOnFeature")})
	os.RemoveAll(filepath.Join(root, "pkg9"))
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "feature")
	feature := git(t, root, "rev-parse", "HEAD")
	git(t, root, "checkout", "-q", "main")

	f := start(t, root, nil)
	f.eventually(map[string]string{"Main7": "pkg7/f7.go:3", "Main9": "pkg9/f9.go:3", "Feature7": ""})
	before := len(f.batches())

	git(t, root, "checkout", "-q", "feature")
	f.eventually(map[string]string{"Main7": "", "Feature7": "pkg7/f7.go:3", "Main9": "", "Feature9": "",
		"OnlyOnFeature": "newdir/n.go:3"})
	f.sync()
	if m := f.meta(); m.Revision != feature || m.Dirty {
		t.Errorf("after checkout: revision %s dirty=%v, want %s clean", m.Revision, m.Dirty, feature)
	}
	after := f.batches()[before:]
	if len(after) > 3 {
		t.Errorf("checkout of 300 files took %d batches, want at most 3: %+v", len(after), after)
	}
	if !slices.ContainsFunc(after, func(b watch.Batch) bool { return b.Full && strings.Contains(b.Reason, "HEAD moved") }) {
		t.Errorf("no batch says HEAD moved: %+v", after)
	}

	git(t, root, "checkout", "-q", "main")
	f.eventually(map[string]string{"Main9": "pkg9/f9.go:3", "OnlyOnFeature": "", "Feature7": ""})
	f.sync()
	if m := f.meta(); m.Revision != main || m.Dirty {
		t.Errorf("back on main: revision %s dirty=%v, want %s clean", m.Revision, m.Dirty, main)
	}

	// a commit moves HEAD without touching a file: the revision follows
	writeFiles(t, root, map[string]string{"pkg0/f0.go": goFile("pkg0", "Committed")})
	f.eventually(map[string]string{"Committed": "pkg0/f0.go:3"})
	f.sync()
	if !f.meta().Dirty {
		t.Errorf("uncommitted edit: index not dirty")
	}
	git(t, root, "commit", "-q", "-am", "edit")
	head := git(t, root, "rev-parse", "HEAD")
	deadline := time.Now().Add(20 * time.Second)
	for m := f.meta(); m.Revision != head || m.Dirty; m = f.meta() {
		if time.Now().After(deadline) {
			t.Fatalf("after commit: revision %s dirty=%v, want %s clean\n%s", m.Revision, m.Dirty, head, f.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBurst: 10,000 events in a burst are coalesced into a few batches and
// nothing is lost.
func TestBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	root := newRepo(t, map[string]string{"main.go": goFile("main", "Main")})
	f := start(t, root, nil)
	before := len(f.batches())
	// 5,000 files, each a create and a write: 10,000 events.
	for i := 0; i < 5000; i++ {
		p := filepath.Join(root, fmt.Sprintf("d%02d/f%d.py", i%50, i))
		if i < 50 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "def burst_%d():\n    pass\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.eventually(map[string]string{"burst_0": "d00/f0.py:1", "burst_4999": "d49/f4999.py:1", "burst_2500": "d00/f2500.py:1"})
	f.sync()
	m := f.meta()
	if m.Files != 5001 {
		t.Errorf("files indexed: %d, want 5001", m.Files)
	}
	n := len(f.batches()) - before
	if n > 6 {
		t.Errorf("10,000 events took %d batches, want a few", n)
	}
	t.Logf("10,000 events: %d batches", n)
}

// TestOverflow: when the kernel drops events, a full rescan finds what
// they said; the status says it happened.
func TestOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	limit, err := strconv.Atoi(strings.TrimSpace(readFile(t, "/proc/sys/fs/inotify/max_queued_events")))
	if err != nil || limit > 60000 {
		t.Skipf("inotify queue of %d events: too long to overflow in a test", limit)
	}
	root := newRepo(t, map[string]string{"main.go": goFile("main", "Main")})
	gate, hold, held := make(chan struct{}), make(chan struct{}), make(chan struct{})
	// The loop reads freely until hold is closed, then blocks ...
	go func() {
		defer close(held)
		for {
			select {
			case gate <- struct{}{}:
			case <-hold:
				return
			}
		}
	}()
	f := start(t, root, func(o *watch.Options) { watch.SetBeforeRead(o, gate) })
	f.eventually(map[string]string{"Main": "main.go:3"})
	os.MkdirAll(filepath.Join(root, "many"), 0o755)
	for deadline := time.Now().Add(10 * time.Second); f.w.Status().Watched < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("many/ not watched: %+v", f.w.Status())
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(hold)
	<-held
	// ... while more events than the kernel queues are written.
	// Eight events a file: a create, then writes and mode changes in turn
	// (the kernel merges only identical consecutive events).
	n := limit/8 + 500
	for i := 0; i < n; i++ {
		p := filepath.Join(root, "many", fmt.Sprintf("f%d.py", i))
		fh, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 4; j++ {
			fmt.Fprintf(fh, "def over_%d_%d():\n    pass\n", i, j)
			if j < 3 {
				fh.Chmod(0o644 | os.FileMode(j%2)<<6)
			}
		}
		fh.Close()
	}
	close(gate)
	f.eventually(map[string]string{"over_0_0": "many/f0.py:1", fmt.Sprintf("over_%d_3", n-1): fmt.Sprintf("many/f%d.py:7", n-1)})
	f.sync()
	st := f.w.Status()
	if st.Overflows == 0 {
		t.Errorf("no overflow recorded: %+v", st)
	}
	if !strings.Contains(f.log.String(), "inotify queue overflow") {
		t.Errorf("overflow not logged:\n%s", f.log)
	}
	fst, running, err := watch.ReadStatus(f.dir)
	if err != nil || !running || fst.Overflows == 0 {
		t.Errorf("published status: running=%v overflows=%d err=%v", running, fst.Overflows, err)
	}
}

// TestWatchLimit: directories the kernel refuses to watch are covered by
// rescans, and the watcher says it is degraded.
func TestWatchLimit(t *testing.T) {
	root := newRepo(t, map[string]string{"main.go": goFile("main", "Main"), "big/sub/s.go": goFile("sub", "Sub")})
	f := start(t, root, func(o *watch.Options) {
		o.DegradedRescan = 200 * time.Millisecond
		watch.SetAddWatch(o, func(w *fsnotify.Watcher, dir string) error {
			if strings.Contains(dir, "/big") {
				return fmt.Errorf("inotify_add_watch %s: %w", dir, syscall.ENOSPC)
			}
			return w.Add(dir)
		})
	})
	st := f.w.Status()
	if st.Mode != watch.ModeDegraded || st.Unwatched != 2 || !strings.Contains(st.Degraded, "watch limit") {
		t.Fatalf("status: mode=%s unwatched=%d degraded=%q", st.Mode, st.Unwatched, st.Degraded)
	}
	writeFiles(t, root, map[string]string{"big/sub/s.go": goFile("sub", "SubChanged")})
	f.eventually(map[string]string{"SubChanged": "big/sub/s.go:3", "Sub": ""})
	f.sync()
	if !slices.ContainsFunc(f.batches(), func(b watch.Batch) bool { return b.Reason == "periodic rescan" && b.Committed }) {
		t.Errorf("the change was not found by a rescan: %+v", f.batches())
	}
	if !strings.Contains(f.log.String(), "watch limit reached") {
		t.Errorf("not logged:\n%s", f.log)
	}
}

func readFile(t testing.TB, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	return string(b)
}

// TestLifecycle: a second watcher refuses; a restarted watcher catches up
// with what changed while none ran; an idle watcher does nothing.
func TestLifecycle(t *testing.T) {
	root := newRepo(t, map[string]string{"main.go": goFile("main", "Main")})
	f := start(t, root, nil)
	f.eventually(map[string]string{"Main": "main.go:3"})

	_, err := watch.Start(context.Background(), watch.Options{Root: root, StateDir: f.dir, Begin: begin(f.dir)})
	if !errors.Is(err, watch.ErrWatching) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second watcher: %v, want ErrWatching naming the holder", err)
	}

	// idle: no batch, no generation; editor junk does not wake it
	f.sync()
	gen, n := f.meta().Generation, len(f.batches())
	writeFiles(t, root, map[string]string{".main.go.swp": "junk", "main.go~": "junk"})
	time.Sleep(300 * time.Millisecond)
	f.sync()
	if got := len(f.batches()); got != n {
		t.Errorf("editor junk caused %d batches", got-n)
	}
	if g := f.meta().Generation; g != gen {
		t.Errorf("idle watcher committed generation %d", g)
	}

	if err := f.w.Close(); err != nil {
		t.Fatal(err)
	}
	if st, running, _ := watch.ReadStatus(f.dir); running || st.State != watch.StateStopped {
		t.Errorf("after close: running=%v state=%s", running, st.State)
	}
	writeFiles(t, root, map[string]string{"main.go": goFile("main", "WhileStopped"), "added.go": goFile("main", "Added")})
	f.startAgain(nil)
	f.eventually(map[string]string{"Main": "", "WhileStopped": "main.go:3", "Added": "added.go:3"})
}

// TestCheck: the freshness block tells unindexed changes apart, from a
// running watcher or from a scan.
func TestCheck(t *testing.T) {
	root := newRepo(t, map[string]string{"main.go": goFile("main", "Main")})
	f := start(t, root, nil)
	f.eventually(map[string]string{"Main": "main.go:3"})
	f.sync()
	check := func() watch.Worktree {
		s, err := embedded.Open(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		m, _ := s.Meta(context.Background())
		return watch.Check(context.Background(), s, m, watch.CheckOptions{Root: root, StateDir: f.dir})
	}
	wt := check()
	if wt.Source != "watcher" || wt.Watcher != "running" || wt.Unindexed == nil || *wt.Unindexed || wt.HeadMoved {
		t.Errorf("fresh, watched: %+v", wt)
	}
	f.w.Close()
	wt = check()
	if wt.Source != "scan" || wt.Watcher != "none" || wt.Unindexed == nil || *wt.Unindexed {
		t.Errorf("fresh, not watched: %+v", wt)
	}
	writeFiles(t, root, map[string]string{"main.go": goFile("main", "Changed"), "new.go": goFile("main", "New")})
	wt = check()
	if wt.Unindexed == nil || !*wt.Unindexed || wt.NChanged != 2 || !slices.Equal(wt.Changed, []string{"main.go", "new.go"}) {
		t.Errorf("two changes, not watched: %+v", wt)
	}
	git(t, root, "commit", "-q", "--allow-empty", "-m", "move HEAD")
	if wt = check(); !wt.HeadMoved || wt.Head == "" {
		t.Errorf("HEAD moved: %+v", wt)
	}
	// an index that recorded no revision (git could not read the tree
	// when it was built) has no HEAD to have moved from
	s, err := embedded.Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _ := s.Meta(context.Background())
	m.Revision = ""
	if wt = watch.Check(context.Background(), s, m, watch.CheckOptions{Root: root, StateDir: f.dir}); wt.HeadMoved || wt.Head == "" {
		t.Errorf("no revision indexed: %+v", wt)
	}
}

// TestKilledWatcher: a watcher killed (SIGKILL) in the middle of a batch
// leaves the last committed index readable and consistent — every file has
// its old facts or its new ones — and a restarted watcher catches up.
func TestKilledWatcher(t *testing.T) {
	if os.Getenv("CAIRN_WATCH_CHILD") != "" {
		return
	}
	if testing.Short() {
		t.Skip("slow")
	}
	gen := func(word string) map[string]string {
		files := map[string]string{}
		for i := 0; i < 400; i++ {
			var names []string
			for j := 0; j < 30; j++ {
				names = append(names, fmt.Sprintf("%s_%d_%d", word, i, j))
			}
			files[fmt.Sprintf("d%d/f%d.go", i%13, i)] = goFile(fmt.Sprintf("p%d", i%13), names...)
		}
		return files
	}
	root := newRepo(t, gen("Old"))
	dir := t.TempDir()
	ctx := context.Background()
	w, err := embedded.NewWriter(ctx, embedded.WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Run(ctx, w, indexer.Options{Root: root, StateDir: dir}); err != nil {
		t.Fatal(err)
	}
	child := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWatcherChild$")
		cmd.Env = append(os.Environ(), "CAIRN_WATCH_CHILD=1", "CAIRN_WATCH_ROOT="+root, "CAIRN_WATCH_DIR="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	waitState := func(cmd *exec.Cmd, ok func(watch.Status) bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			st, running, _ := watch.ReadStatus(dir)
			if running && ok(st) {
				return
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("watcher never reached the state: %+v running=%v", st, running)
			}
		}
	}
	// consistent checks that every file holds all its old names or all its
	// new ones, and returns how many are new.
	consistent := func() int {
		t.Helper()
		s, err := embedded.Open(dir)
		if err != nil {
			t.Fatalf("index unreadable after kill: %v", err)
		}
		defer s.Close()
		var ok string
		if err := s.DB().QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
			t.Fatalf("integrity: %q %v", ok, err)
		}
		fresh := 0
		for i := 0; i < 400; i++ {
			p := fmt.Sprintf("d%d/f%d.go", i%13, i)
			syms, err := s.SymbolsInFile(ctx, p)
			if err != nil || len(syms) != 30 {
				t.Fatalf("%s: %d symbols (%v), want 30", p, len(syms), err)
			}
			word, _, _ := strings.Cut(syms[0].Name, "_")
			for _, sym := range syms {
				if !strings.HasPrefix(sym.Name, word+"_") {
					t.Fatalf("%s mixes old and new facts: %s and %s", p, syms[0].Name, sym.Name)
				}
			}
			if word == "New" {
				fresh++
			}
		}
		return fresh
	}

	cmd := child()
	waitState(cmd, func(st watch.Status) bool { return st.State == watch.StateWatching && st.Batches >= 1 })
	writeFilesAtomically(t, root, gen("New"))
	waitState(cmd, func(st watch.Status) bool { return st.State == watch.StateIndexing })
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	n := consistent()
	t.Logf("killed mid-batch: %d of 400 files had their new facts committed", n)
	if st, running, _ := watch.ReadStatus(dir); running || st.State != watch.StateStopped || !strings.Contains(st.LastError, "without shutting down") {
		t.Errorf("after kill: running=%v state=%s error=%q", running, st.State, st.LastError)
	}

	// Restart: the new watcher takes both locks and catches up.
	f := &fixture{t: t, root: root, dir: dir, log: &logBuf{}}
	f.startAgain(nil)
	f.eventually(map[string]string{"Old_0_0": "", "New_0_0": "d0/f0.go:3", "New_399_29": "d9/f399.go:61"})
	if n := consistent(); n != 400 {
		t.Errorf("after restart: %d of 400 files new", n)
	}
}

func TestKilledWatcherChild(t *testing.T) {
	if os.Getenv("CAIRN_WATCH_CHILD") == "" {
		t.Skip("helper process for TestKilledWatcher")
	}
	dir := os.Getenv("CAIRN_WATCH_DIR")
	err := watch.Run(context.Background(), watch.Options{Root: os.Getenv("CAIRN_WATCH_ROOT"), StateDir: dir,
		Begin: begin(dir), Index: indexer.Options{Workers: 1}})
	t.Fatal(err)
}
