package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer/watch"
	"github.com/cairn-dev/cairn/retrieval/bm25"
)

var (
	mode       = flag.String("mode", "watch", "watch or oneshot")
	cairn      = flag.String("cairn", "cairn", "cairn binary")
	repo       = flag.String("repo", "", "repository (a git clone of mono1m)")
	index      = flag.String("index", "", "index directory")
	n          = flag.Int("n", 40, "single-file edits")
	seed       = flag.Uint64("seed", 1, "which files are edited")
	branch     = flag.String("branch", "", "branch to check out and back (the many-file change)")
	makeBranch = flag.String("make-branch", "", "create this branch, changing -files files, and exit")
	files      = flag.Int("files", 1000, "files the branch changes")
	idle       = flag.Duration("idle", 60*time.Second, "idle period over which the watcher's CPU is measured")
	gap        = flag.Duration("gap", 300*time.Millisecond, "pause between saves")
	maxWait    = flag.Duration("wait", 60*time.Second, "how long a change may take to be reflected before the run fails")
	out        = flag.String("out", "", "write the raw measurements here (JSON)")
	base       string // the branch checked out at the start
)

// child is the watcher this program started; die stops it before exiting.
var child *exec.Cmd

func die(format string, args ...any) {
	log.Printf(format, args...)
	if child != nil && child.Process != nil {
		child.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { child.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			child.Process.Kill()
		}
	}
	os.Exit(1)
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *repo == "" || *index == "" {
		die("%v", "need -repo and -index")
	}
	base = strings.TrimSpace(run("git", "-C", *repo, "rev-parse", "--abbrev-ref", "HEAD"))
	if *makeBranch != "" {
		makeTheBranch()
		return
	}
	switch *mode {
	case "watch":
		runWatch()
	case "oneshot":
		runOneshot()
	default:
		die("unknown -mode %q", *mode)
	}
}

// edit is how a file of one language gets a new definition.
type edit struct {
	path, lang string
	orig       []byte
	name       string // the added definition
	word       string // a unique word in its changed body
}

// with returns the file with the definition added; body adds the word.
func (e *edit) with(body bool) []byte {
	w := "0"
	if body {
		w = e.word
	}
	var add string
	switch e.lang {
	case "go":
		add = fmt.Sprintf("\nfunc %s() int {\n\t%s := 1\n\treturn %s\n}\n", e.name, idOr(w, "x"), idOr(w, "x"))
	case "python":
		add = fmt.Sprintf("\n\ndef %s():\n    %s = 1\n    return %s\n", e.name, idOr(w, "x"), idOr(w, "x"))
	case "typescript", "tsx":
		add = fmt.Sprintf("\nexport function %s() {\n  const %s = 1;\n  return %s;\n}\n", e.name, idOr(w, "x"), idOr(w, "x"))
	case "c":
		add = fmt.Sprintf("\nint %s(void)\n{\n\tint %s = 1;\n\treturn %s;\n}\n", e.name, idOr(w, "x"), idOr(w, "x"))
	case "java":
		add = fmt.Sprintf("\n  static int %s() {\n    int %s = 1;\n    return %s;\n  }\n", e.name, idOr(w, "x"), idOr(w, "x"))
		i := strings.LastIndexByte(string(e.orig), '}')
		return slices.Concat(e.orig[:i], []byte(add), e.orig[i:])
	}
	return slices.Concat(e.orig, []byte(add))
}

func idOr(w, def string) string {
	if w == "0" {
		return def
	}
	return w
}

// pick chooses n indexed source files at random (fixed seed).
func pick(s *embedded.Store, k int, r *rand.Rand, prefix string) []*edit {
	fs, err := s.Files(context.Background())
	if err != nil {
		die("%v", err)
	}
	var cands []graph.File
	for _, f := range fs {
		lang := f.Lang.String()
		if f.Status == graph.ParseOK && f.Size < 256<<10 && !strings.HasSuffix(f.Path, ".d.ts") &&
			!strings.HasSuffix(f.Path, "package-info.java") && !strings.HasSuffix(f.Path, "module-info.java") &&
			slices.Contains([]string{"go", "python", "typescript", "tsx", "java", "c"}, lang) {
			cands = append(cands, f)
		}
	}
	if r != nil {
		r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	} else {
		// every step-th file across the tree, then the ones between, so
		// that files skipped below are replaced by their neighbours
		step := max(len(cands)/k, 1)
		var every []graph.File
		for off := 0; off < step; off++ {
			for i := off; i < len(cands); i += step {
				every = append(every, cands[i])
			}
		}
		cands = every
	}
	var out []*edit
	for i, f := range cands {
		if len(out) == k {
			break
		}
		b, err := os.ReadFile(filepath.Join(*repo, f.Path))
		if err != nil {
			die("%v", err)
		}
		if f.Lang.String() == "java" && (!strings.Contains(string(b), "}") || strings.Contains(string(b), "@interface")) {
			continue // no class to add a method to (package-info.java, annotation types)
		}
		name := fmt.Sprintf("%s%d", prefix, i)
		if f.Lang.String() == "python" {
			name = strings.ToLower(prefix) + "_" + strconv.Itoa(i)
		}
		out = append(out, &edit{path: f.Path, lang: f.Lang.String(), orig: b, name: name, word: word(i)})
	}
	return out
}

// word is a unique, purely alphabetic token (the text analyser splits
// identifiers at case changes and digits).
func word(i int) string {
	r := rand.New(rand.NewPCG(uint64(i)+77, 99))
	b := []byte("zq")
	for len(b) < 12 {
		b = append(b, byte('a'+r.IntN(26)))
	}
	return string(b)
}

func (e *edit) write(b []byte) {
	if err := os.WriteFile(filepath.Join(*repo, e.path), b, 0o644); err != nil {
		die("%v", err)
	}
}

func openStore() *embedded.Store {
	s, err := embedded.Open(*index)
	if err != nil {
		die("%v", err)
	}
	return s
}

func found(s graph.Reader, name, path string) bool {
	ds, err := graph.FindDefinitions(context.Background(), s, name)
	if err != nil {
		die("%v", err)
	}
	for _, d := range ds {
		if d.Path == path {
			return true
		}
	}
	return false
}

// searchFinds asks the text index of the committed generation (what
// `cairn search` ranks by BM25) for the word, and whether a hit is in path.
// Only the text segments are opened, so that the poll measures when the
// change is searchable, not how long a full engine takes to open.
func searchFinds(s *embedded.Store, word, path string) bool {
	ctx := context.Background()
	m, err := s.Meta(ctx)
	if err != nil {
		die("%v", err)
	}
	x, err := bm25.Open(s.EpochDir(), m.Extra)
	if err != nil {
		return false // a segment just replaced: try again
	}
	defer x.Close()
	hits, err := x.Search(ctx, bm25.Query{Text: word}, 5)
	if err != nil {
		die("%v", err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
	}
	refs, err := s.ChunksByID(ctx, ids)
	if err != nil {
		die("%v", err)
	}
	for _, r := range refs {
		if r.Path == path {
			return true
		}
	}
	return false
}

// statusChanged waits for the watcher's status file to change (it is
// rewritten when a batch starts and ends), or a millisecond.
type statusFile struct{ mtime time.Time }

func (sf *statusFile) changed() bool {
	st, err := os.Stat(filepath.Join(*index, "watch.json"))
	if err != nil {
		return true
	}
	if st.ModTime().Equal(sf.mtime) {
		return false
	}
	sf.mtime = st.ModTime()
	return true
}

// until polls cond — whenever the watcher's status changed — and returns
// how long after t0 it first held.
func until(t0 time.Time, sf *statusFile, cond func() bool) time.Duration {
	deadline := t0.Add(*maxWait)
	for {
		if sf == nil || sf.changed() {
			if cond() {
				return time.Since(t0)
			}
		}
		if time.Now().After(deadline) {
			die("not reflected after %s", *maxWait)
		}
		time.Sleep(time.Millisecond)
	}
}

type results struct {
	Mode      string               `json:"mode"`
	Lat       map[string][]float64 `json:"latency_ms"`
	Branch    map[string]float64   `json:"branch_s,omitempty"`
	IdleCPU   float64              `json:"idle_cpu_percent,omitempty"`
	RSSMB     float64              `json:"rss_mb,omitempty"`
	PeakMB    float64              `json:"peak_rss_mb,omitempty"`
	Edits     []string             `json:"edits"`
	QueryCLI  []float64            `json:"cli_def_ms,omitempty"`
	SearchCLI []float64            `json:"cli_search_ms,omitempty"`
}

func (r *results) add(k string, d time.Duration) {
	r.Lat[k] = append(r.Lat[k], float64(d.Microseconds())/1000)
}

func runWatch() {
	res := &results{Mode: "watch", Lat: map[string][]float64{}, Branch: map[string]float64{}}
	if st, running, _ := watch.ReadStatus(*index); running {
		die("a watcher (pid %d) already runs on %s: stop it first", st.PID, *index)
	}
	cmd := exec.Command(*cairn, "watch", "-q", "--repo", *repo, "--index-dir", *index)
	logf, _ := os.Create(filepath.Join(filepath.Dir(*index), "watch.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		die("%v", err)
	}
	child = cmd
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	t0 := time.Now()
	waitIdle(t0)
	fmt.Printf("watcher up and caught up in %s\n", time.Since(t0).Round(time.Millisecond))
	s := openStore()
	defer s.Close()
	edits := pick(s, *n, rand.New(rand.NewPCG(*seed, 1)), "CairnWatch")
	sf := &statusFile{}
	for i, e := range edits {
		res.Edits = append(res.Edits, e.path)
		sf.changed()
		t := time.Now()
		e.write(e.with(false))
		res.add("add→def", until(t, sf, func() bool { return found(s, e.name, e.path) }))
		if i%4 == 0 {
			q := time.Now()
			if err := exec.Command(*cairn, "def", "--index-dir", *index, "--repo", *repo, e.name).Run(); err != nil {
				die("cairn def %s: %v", e.name, err)
			}
			res.QueryCLI = append(res.QueryCLI, float64(time.Since(q).Microseconds())/1000)
		}
		time.Sleep(*gap)
		t = time.Now()
		e.write(e.with(true))
		gen := generation(s)
		res.add("body→search", until(t, sf, func() bool { return generation(s) > gen && searchFinds(s, e.word, e.path) }))
		if i%4 == 0 {
			q := time.Now()
			b, err := exec.Command(*cairn, "search", "--json", "--index-dir", *index, "--repo", *repo, e.word).Output()
			if err != nil || !strings.Contains(string(b), `"path": "`+e.path+`"`) {
				die("cairn search %s: %v (file not found)", e.word, err)
			}
			res.SearchCLI = append(res.SearchCLI, float64(time.Since(q).Microseconds())/1000)
		}
		time.Sleep(*gap)
		t = time.Now()
		e.write(e.orig)
		res.add("remove→def gone", until(t, sf, func() bool { return !found(s, e.name, e.path) }))
		time.Sleep(*gap)
	}
	report(res)
	if *branch != "" {
		checkout(res, s, sf, *branch)
		checkout(res, s, sf, base)
	}
	pid := cmd.Process.Pid
	waitIdle(time.Now())
	c0 := cpuTicks(pid)
	time.Sleep(*idle)
	c1 := cpuTicks(pid)
	hz := 100.0 // USER_HZ
	res.IdleCPU = (c1 - c0) / hz / idle.Seconds() * 100
	res.RSSMB, res.PeakMB = memMB(pid, "VmRSS"), memMB(pid, "VmHWM")
	fmt.Printf("idle: %.3f%% CPU over %s; RSS %.0f MB (peak %.0f MB)\n", res.IdleCPU, *idle, res.RSSMB, res.PeakMB)
	if st, _, _ := watch.ReadStatus(*index); true {
		fmt.Printf("watcher: %d batches, %d committed, %d directories watched, %d overflows, mode %s\n",
			st.Batches, st.Commits, st.Watched, st.Overflows, st.Mode)
	}
	save(res)
}

func generation(s *embedded.Store) int64 {
	g, err := s.Generation(context.Background())
	if err != nil {
		die("%v", err)
	}
	return g
}

// waitIdle waits until the watcher runs, has caught up and has nothing pending.
func waitIdle(t0 time.Time) {
	for {
		st, running, _ := watch.ReadStatus(*index)
		if running && st.State == watch.StateWatching && st.Pending == 0 && st.Batches > 0 {
			return
		}
		if time.Since(t0) > 10*time.Minute {
			die("watcher not idle after 10 minutes: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkout switches the worktree to rev and waits until the index holds
// it: HEAD's revision, every definition the branch adds present (or gone).
func checkout(res *results, s *embedded.Store, sf *statusFile, rev string) {
	t := time.Now()
	c := exec.Command("git", "-C", *repo, "checkout", "-q", rev)
	c.Stderr = os.Stderr
	if err := c.Run(); err != nil {
		die("%v", err)
	}
	gitDone := time.Since(t)
	head := strings.TrimSpace(run("git", "-C", *repo, "rev-parse", "HEAD"))
	midway(head)
	want := 0
	if rev != base {
		want = *files
	}
	d := until(t, sf, func() bool {
		m, err := s.Meta(context.Background())
		return err == nil && m.Revision == head && countBranch(s) == want
	})
	res.Branch["checkout "+rev] = d.Seconds()
	fmt.Printf("checkout %s (%d files changed): git took %s, index reflected it %s after the checkout began\n",
		rev, *files, gitDone.Round(time.Millisecond), d.Round(time.Millisecond))
}

// midway asks one question right after a checkout, while the index is
// still catching up, and says whether the answer admits it: an index not
// yet at head must say the head moved, or that the worktree holds
// unindexed or pending changes — never answer as if fresh.
func midway(head string) {
	c := exec.Command(*cairn, "status", "--json", "--repo", *repo, "--index-dir", *index)
	b, err := c.Output()
	if err != nil {
		fmt.Printf("  midway: status failed: %v\n", err)
		return
	}
	var st struct {
		Index    struct{ Revision string }
		Fresh    bool `json:"fresh"`
		Worktree struct {
			HeadMoved bool  `json:"head_moved"`
			Unindexed *bool `json:"unindexed"`
			Pending   int   `json:"pending"`
			NChanged  int   `json:"changed_count"`
		}
	}
	if err := json.Unmarshal(b, &st); err != nil {
		fmt.Printf("  midway: %v\n", err)
		return
	}
	if st.Index.Revision == head {
		fmt.Println("  midway: the index already held the new head")
		return
	}
	said := st.Worktree.HeadMoved || (st.Worktree.Unindexed != nil && *st.Worktree.Unindexed) || st.Worktree.Pending > 0 || !st.Fresh
	verdict := "said so"
	if !said {
		verdict = "ANSWERED AS IF FRESH"
	}
	fmt.Printf("  midway: index at %.12s, head %.12s: %s (head moved %v, unindexed %v, pending %d, changed %d, fresh %v)\n",
		st.Index.Revision, head, verdict, st.Worktree.HeadMoved, st.Worktree.Unindexed != nil && *st.Worktree.Unindexed,
		st.Worktree.Pending, st.Worktree.NChanged, st.Fresh)
}

func countBranch(s *embedded.Store) int {
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM symbols WHERE name LIKE 'cairnbranch%'`).Scan(&n); err != nil {
		die("%v", err)
	}
	return n
}

func run(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		die("%s %v: %v", name, args, err)
	}
	return string(b)
}

func runOneshot() {
	res := &results{Mode: "oneshot", Lat: map[string][]float64{}, Branch: map[string]float64{}}
	cairnIndex := func() {
		c := exec.Command(*cairn, "index", "-q", "--index-dir", *index, *repo)
		c.Stderr = os.Stderr
		if err := c.Run(); err != nil {
			die("%v", err)
		}
	}
	cairnIndex()
	s := openStore()
	edits := pick(s, *n, rand.New(rand.NewPCG(*seed, 1)), "CairnWatch")
	s.Close()
	// The baseline's queries skip the worktree check (CAIRN_WORKTREE_CHECK=0):
	// right after an index run there is nothing for it to find.
	quiet := append(os.Environ(), "CAIRN_WORKTREE_CHECK=0")
	def := func(name string) bool {
		c := exec.Command(*cairn, "def", "-q", "--index-dir", *index, "--repo", *repo, name)
		c.Env = quiet
		return c.Run() == nil
	}
	search := func(word, path string) bool {
		c := exec.Command(*cairn, "search", "--json", "--index-dir", *index, "--repo", *repo, "--only", "text", word)
		c.Env = quiet
		b, _ := c.Output()
		return strings.Contains(string(b), `"path": "`+path+`"`)
	}
	for _, e := range edits {
		res.Edits = append(res.Edits, e.path)
		t := time.Now()
		e.write(e.with(false))
		cairnIndex()
		if !def(e.name) {
			die("oneshot: %s not found after index", e.name)
		}
		res.add("add→def", time.Since(t))
		t = time.Now()
		e.write(e.with(true))
		cairnIndex()
		if !search(e.word, e.path) {
			die("oneshot: %s not found by search after index", e.word)
		}
		res.add("body→search", time.Since(t))
		t = time.Now()
		e.write(e.orig)
		cairnIndex()
		if def(e.name) {
			die("oneshot: %s still found after index", e.name)
		}
		res.add("remove→def gone", time.Since(t))
	}
	report(res)
	if *branch != "" {
		for _, rev := range []string{*branch, base} {
			t := time.Now()
			run("git", "-C", *repo, "checkout", "-q", rev)
			cairnIndex()
			res.Branch["checkout "+rev] = time.Since(t).Seconds()
			fmt.Printf("checkout %s + cairn index: %s\n", rev, time.Since(t).Round(time.Millisecond))
		}
	}
	save(res)
}

func report(r *results) {
	for _, k := range []string{"add→def", "body→search", "remove→def gone"} {
		fmt.Printf("%-16s %s\n", k, pct(r.Lat[k]))
	}
	if len(r.QueryCLI) > 0 {
		fmt.Printf("%-16s %s\n", "cairn def (CLI)", pct(r.QueryCLI))
		fmt.Printf("%-16s %s\n", "cairn search (CLI)", pct(r.SearchCLI))
	}
}

func pct(xs []float64) string {
	if len(xs) == 0 {
		return "n=0"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	p := func(q float64) float64 { return s[int(q*float64(len(s)-1)+0.5)] }
	return fmt.Sprintf("n=%d p50=%.0fms p95=%.0fms max=%.0fms", len(s), p(0.5), p(0.95), s[len(s)-1])
}

func save(r *results) {
	if *out == "" {
		return
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		log.Fatalf("save results: %v", err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatalf("save results: %v", err)
	}
}

func cpuTicks(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		die("%v", err)
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+2:])
	u, _ := strconv.ParseFloat(f[11], 64) // utime (field 14)
	k, _ := strconv.ParseFloat(f[12], 64) // stime (field 15)
	return u + k
}

func memMB(pid int, key string) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// makeTheBranch commits, on a new branch, a definition added to each of
// -files source files spread over the repository, and returns to main.
func makeTheBranch() {
	s := openStore()
	edits := pick(s, *files, nil, "CairnBranch")
	s.Close()
	if len(edits) < *files {
		die("only %d eligible files", len(edits))
	}
	run("git", "-C", *repo, "checkout", "-q", "-B", *makeBranch)
	for _, e := range edits {
		e.write(e.with(false))
	}
	run("git", "-C", *repo, "add", "-A")
	run("git", "-C", *repo, "-c", "user.name=bench", "-c", "user.email=bench@cairn", "-c", "commit.gpgsign=false",
		"commit", "-q", "-m", fmt.Sprintf("add a definition to %d files", len(edits)))
	run("git", "-C", *repo, "checkout", "-q", base)
	fmt.Printf("branch %s: %d files changed\n", *makeBranch, len(edits))
}
