package engine_test

// The real-code answer suite: hand-checked answers on pinned real code.
//
// The code comes from package registries, never from this repository:
// engine/testdata/realcode/corpora.txt pins each corpus (a Go module from
// the module proxy, a Debian package's Python sources, an npm package's
// TypeScript sources) and .ci/realcode.sh
// (run by .ci/deps.sh, so by `make test`) installs it — or a Debian source
// package's tree (Scala, which no binary package ships as source). Under `make test`
// (CAIRN_TEST_PG_REQUIRED set) a missing corpus fails the test; elsewhere it
// skips, saying what to run.
//
// A view is the part of a corpus a case needs (a few directories, so the
// index takes well under a second): it is copied into a temporary git
// repository, committed and indexed once per test run, and every case on
// that view shares the one index.
//
// To add a case:
//
//  1. If the code you need is not pinned yet, add a line to corpora.txt and
//     run `bash .ci/realcode.sh`.
//  2. If no view holds the files you need, add one to realViews: a name,
//     the corpus and the paths (files, directories or globs relative to
//     the corpus root) to copy. Keep views small; files of a view that you
//     add change the answers of the cases already on it, so prefer a new
//     view to growing a shared one.
//  3. Add a realCase to realCases from an init function in a file of your
//     own (realcode_<class>_test.go), so helpers adding cases do not edit
//     the same lines: a name (the class of answer and what is asked), the
//     view and a Check that asks the snapshot and compares with the answer
//     you checked by reading the real source. Say in a comment what you
//     read (file:line) — the answer is only as good as that check.
//
// Run one class with `go test ./engine -run 'TestRealCode/writes'`.
//
// Answers whose bug lies in how the command line prints them (text trees)
// are checked on the same pinned code by cmd/cairn's TestRealCodeTrees.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// realCorpus is one line of corpora.txt.
type realCorpus struct {
	Name, Kind, Source, Version, Root string
}

// realView is the part of a corpus one or more cases index.
type realView struct {
	Name   string
	Corpus string
	// Paths are copied from the corpus root, keeping their place: files,
	// directories (recursively) or path.Match globs ("*.go").
	Paths []string
}

// realCase is one hand-checked question on a view.
type realCase struct {
	// Name is "class/what", e.g. "writes/Response.encoding".
	Name  string
	View  string
	Check func(t *testing.T, s *engine.Snapshot)
}

// realViews are the views the cases use.
var realViews = []realView{
	// grpc's root package with the packages its calls name most.
	{Name: "grpc-core", Corpus: "grpc", Paths: []string{"go.mod", "*.go", "status", "codes", "internal/status", "grpclog", "internal/grpclog"}},
	{Name: "requests", Corpus: "requests", Paths: []string{"requests"}},
	{Name: "pytest", Corpus: "pytest", Paths: []string{"_pytest", "pytest"}},
	{Name: "pytest-junitxml", Corpus: "pytest", Paths: []string{"_pytest/__init__.py", "_pytest/junitxml.py"}},
	// pyplot, the backend base classes and one backend.
	// rxjs's subscription classes and the scheduler's actions (TypeScript).
	{Name: "rxjs-subscriptions", Corpus: "rxjs", Paths: []string{"package.json", "src/internal/Subscription.ts", "src/internal/Subscriber.ts", "src/internal/operators/OperatorSubscriber.ts", "src/internal/scheduler", "src/internal/types.ts"}},
	{Name: "matplotlib-backends", Corpus: "matplotlib", Paths: []string{"matplotlib/__init__.py", "matplotlib/pyplot.py", "matplotlib/backend_bases.py", "matplotlib/backends/__init__.py", "matplotlib/backends/backend_agg.py"}},
}

// realCases are the hand-checked answers; files of their own add to it
// from init functions.
var realCases = []realCase{
	{Name: "definitions/status.Error", View: "grpc-core", Check: func(t *testing.T, s *engine.Snapshot) {
		// status/status.go:58 func Error(c codes.Code, msg string) error;
		// internal/status/status.go:207 type Error struct, also of a
		// package named status.
		wantDefinitions(t, s, "status.Error", "status/status.go:58", "internal/status/status.go:207")
	}},
	{Name: "definitions/Session.send", View: "requests", Check: func(t *testing.T, s *engine.Snapshot) {
		// requests/sessions.py:671 def send(self, request, **kwargs)
		wantDefinitions(t, s, "Session.send", "requests/sessions.py:671")
	}},
}

func TestRealCode(t *testing.T) {
	top := t
	corpora, err := readCorpora()
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]realView{}
	for _, v := range realViews {
		views[v.Name] = v
	}
	var (
		mu      sync.Mutex
		built   = map[string]*engine.Snapshot{}
		skipped = map[string]bool{}
	)
	snapshotOf := func(t *testing.T, name string) *engine.Snapshot {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if s, ok := built[name]; ok {
			if s == nil {
				if skipped[name] {
					t.Skipf("view %s: its corpus is not installed (see the first case on it)", name)
				}
				t.Fatalf("view %s failed to build (see the first case on it)", name)
			}
			return s
		}
		built[name] = nil
		defer func() { skipped[name] = t.Skipped() }()
		v, ok := views[name]
		if !ok {
			t.Fatalf("no view %q in realViews", name)
		}
		c, ok := corpora[v.Corpus]
		if !ok {
			t.Fatalf("view %s: no corpus %q in testdata/realcode/corpora.txt", name, v.Corpus)
		}
		s := buildView(t, top, c, v)
		built[name] = s
		return s
	}
	cases := append([]realCase(nil), realCases...)
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Fatalf("two real-code cases are named %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			c.Check(t, snapshotOf(t, c.View))
		})
	}
}

// readCorpora reads testdata/realcode/corpora.txt.
func readCorpora() (map[string]realCorpus, error) {
	f, err := os.Open(filepath.Join("testdata", "realcode", "corpora.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]realCorpus{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w := strings.Fields(line)
		if len(w) != 5 {
			return nil, fmt.Errorf("corpora.txt:%d: want 5 fields (name kind source version root), got %q", n, line)
		}
		out[w[0]] = realCorpus{Name: w[0], Kind: w[1], Source: w[2], Version: w[3], Root: w[4]}
	}
	return out, sc.Err()
}

// corpusRoot is where .ci/realcode.sh installed c.
func corpusRoot(c realCorpus) (string, error) {
	switch c.Kind {
	case "gomod":
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			return "", fmt.Errorf("go env GOMODCACHE: %w", err)
		}
		return filepath.Join(strings.TrimSpace(string(out)), escapeModulePath(c.Source)+"@"+c.Version, c.Root), nil
	case "deb", "npm", "debsrc":
		dir := os.Getenv("CAIRN_REALCODE_DIR")
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				return "", err
			}
			dir = filepath.Join(base, "cairn", "realcode")
		}
		return filepath.Join(dir, c.Kind, c.Source+"_"+c.Version, c.Root), nil
	}
	return "", fmt.Errorf("corpus %s: unknown kind %q", c.Name, c.Kind)
}

// escapeModulePath is the module cache's spelling of a module path (an
// upper-case letter becomes "!" and its lower case).
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// buildView copies v's paths of corpus c into a git repository, indexes it
// and returns a snapshot. The repository and the snapshot outlive the
// subtest t that builds them (every case on the view uses them): they are
// cleaned up when top, TestRealCode, ends.
func buildView(t, top *testing.T, c realCorpus, v realView) *engine.Snapshot {
	t.Helper()
	src, err := corpusRoot(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); err != nil {
		msg := fmt.Sprintf("real-code corpus %s (%s %s %s) is not installed at %s: run `bash .ci/realcode.sh` (make test does)", c.Name, c.Kind, c.Source, c.Version, src)
		if os.Getenv("CAIRN_TEST_PG_REQUIRED") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root := filepath.Join(top.TempDir(), v.Name)
	for _, p := range v.Paths {
		matches, err := filepath.Glob(filepath.Join(src, filepath.FromSlash(p)))
		if err != nil || len(matches) == 0 {
			t.Fatalf("view %s: %s matches nothing in %s (%v)", v.Name, p, src, err)
		}
		for _, m := range matches {
			if err := enginetest.CopyFiles(m, filepath.Join(root, mustRel(t, src, m))); err != nil {
				t.Fatalf("view %s: %v", v.Name, err)
			}
		}
	}
	enginetest.Git(t, root, "init", "-q")
	enginetest.Git(t, root, "add", ".")
	enginetest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "real code: "+c.Source+" "+c.Version)
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{Root: root, Embedder: "none", CheckEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := e.Reindex(ctx, nil, 2*time.Minute); err != nil {
		e.Close()
		t.Fatalf("index view %s: %v", v.Name, err)
	}
	t.Logf("view %s indexed in %v", v.Name, time.Since(start).Round(time.Millisecond))
	s, err := e.Acquire(ctx)
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	top.Cleanup(func() { s.Release(); e.Close() })
	return s
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ---- helpers for checks

// wantDefinitions checks that name denotes exactly the definitions at
// want ("path:line").
func wantDefinitions(t *testing.T, s *engine.Snapshot, name string, want ...string) {
	t.Helper()
	res, err := s.Definitions(context.Background(), engine.DefinitionsOptions{Name: name})
	if err != nil {
		t.Fatalf("Definitions(%s): %v", name, err)
	}
	var got []string
	for _, d := range res.Definitions {
		got = append(got, fmt.Sprintf("%s:%d", d.Path, d.StartLine))
	}
	sameSet(t, "definitions of "+name, got, want)
}

// refSites lists References' answer as "path:line:col role".
func refSites(t *testing.T, s *engine.Snapshot, o engine.ReferencesOptions) []string {
	t.Helper()
	res, err := s.References(context.Background(), o)
	if err != nil {
		t.Fatalf("References(%+v): %v", o, err)
	}
	var got []string
	for _, r := range res.References {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", r.Path, r.StartLine, r.Column, r.Role))
	}
	return got
}

// sameSet fails unless got and want hold the same strings.
func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g := append([]string(nil), got...)
	w := append([]string(nil), want...)
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Fatalf("%s:\n got  %q\n want %q", what, g, w)
	}
}
