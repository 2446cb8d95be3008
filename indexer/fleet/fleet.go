package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/scip"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// Options configure a process's part in a shared build.
type Options struct {
	// Index carries what an index run needs (Root, Workers, ParseTimeout,
	// MaxFileSize, ExcludeDirs, SCIP, NoSCIPDiscovery, Progress, Log).
	// Paths, Sinks and StateDir are set per job here.
	Index indexer.Options
	// Repo names the repository in the database.
	Repo string
	// Full rebuilds from scratch.
	Full bool
	// Paths, when not nil, restricts a new build to these paths (a
	// watcher's change set, as indexer.Options.Paths): only they are
	// walked, planned and extracted; every other file keeps its version.
	Paths []string
	// SkipUnchanged starts no build when the plan finds nothing to do and
	// the revision has not moved: Result.NoChange.
	SkipUnchanged bool
	// JoinOnly (cairn worker) helps a build in progress but never starts
	// one; it waits up to Wait for one to appear.
	JoinOnly bool
	Wait     time.Duration
	// Sinks makes the side indexes when this process finalizes.
	Sinks func(ctx context.Context, w graph.BuildWriter) ([]indexer.Sink, error)
	// JobBytes is the work (bytes of files to read) planned per job;
	// default 16 MiB. Jobs, when set, is the exact number of jobs; MaxJobs
	// bounds it (default 64).
	JobBytes int64
	Jobs     int
	MaxJobs  int
	// Lease and Poll: claim lease (default 2 min) and how often to look at
	// a build others are working on (default 200 ms).
	Lease time.Duration
	Poll  time.Duration
	// Worker names this process in claims (default host/pid).
	Worker string
	// Note receives one-line reports (joined a build, finished a job).
	Note func(msg string)
	// afterJob, for tests: called after each job this process commits.
	afterJob func(ord int)
}

// Result says what a process did in a build.
type Result struct {
	indexer.Result
	Generation int64 // the build's generation number
	Joined     bool  // started by another process
	Jobs       int   // jobs in the build
	JobsDone   int   // jobs this process did
	Finalized  bool  // this process finalized the build
}

func (o *Options) note(format string, args ...any) {
	if o.Note != nil {
		o.Note(fmt.Sprintf(format, args...))
	}
}

// Run takes part in the build of o.Repo's next generation: it starts the
// build (or joins the one in progress for the same revision), does jobs
// until none is left, finalizes the build if it is the one to see the last
// job done, and otherwise waits until another process has committed it.
//
// When it fails (the database went away, the process is interrupted), the
// jobs it finished stay done and the job it was doing goes back to the
// queue: running it again resumes the build. Readers keep the previous
// generation until the build commits.
func Run(ctx context.Context, c graph.Coordinator, o Options) (res Result, err error) {
	start := time.Now()
	if o.Poll == 0 {
		o.Poll = 200 * time.Millisecond
	}
	if o.JobBytes == 0 {
		o.JobBytes = 16 << 20
	}
	if o.MaxJobs == 0 {
		o.MaxJobs = 64
	}
	wk, err := walk.New(walk.Options{Root: o.Index.Root, MaxFileSize: o.Index.MaxFileSize, ExcludeDirs: o.Index.ExcludeDirs})
	if err != nil {
		return res, err
	}
	root := wk.Root()
	o.Index.Root = root
	rev := gitrepo.Head(ctx, root)

	// One walk of the whole tree per process: the plan (when this process
	// starts the build) and the SCIP indexes every job must see.
	var entries []walk.Entry
	var skips []graph.Skip
	keep := func(e walk.Entry) error { entries = append(entries, e); return nil }
	skip := func(s graph.Skip) error { skips = append(skips, s); return nil }
	if o.Paths != nil {
		err = wk.WalkPaths(ctx, o.Paths, nil, keep, skip)
	} else {
		err = wk.Walk(ctx, keep, skip)
	}
	if err != nil {
		return res, fmt.Errorf("walk %s: %w", root, err)
	}
	if !o.Index.NoSCIPDiscovery {
		for _, s := range skips {
			if !s.Dir && path.Base(s.Path) == "index.scip" {
				o.Index.SCIP = append(o.Index.SCIP, scip.Spec{File: filepath.Join(root, filepath.FromSlash(s.Path)), Subdir: path.Dir(s.Path)})
			}
		}
		o.Index.NoSCIPDiscovery = true
	}

	bo := graph.BuildOptions{Repo: o.Repo, Root: root, Revision: rev, Full: o.Full, JoinOnly: o.JoinOnly,
		Worker: o.Worker, Lease: o.Lease, SkipUnchanged: o.SkipUnchanged && !o.Full,
		Plan: func(ctx context.Context, base map[string]graph.FileState) ([]graph.JobSpec, error) {
			return plan(entries, skips, base, o, time.Now()), nil
		}}
	var b graph.Build
	deadline := time.Now().Add(o.Wait)
	for {
		b, err = c.StartBuild(ctx, bo)
		if errors.Is(err, graph.ErrUnchanged) {
			res.NoChange = true
			res.Walked, res.Unchanged, res.Skipped = len(entries), len(entries), len(skips)
			res.Duration = time.Since(start)
			return res, nil
		}
		if err == nil || !o.JoinOnly || !errors.Is(err, graph.ErrNoBuild) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(o.Poll):
		}
	}
	if err != nil {
		return res, err
	}
	defer b.Close()
	info := b.Info()
	res.Generation, res.Joined, res.Jobs = info.Seq, info.Joined, info.Jobs
	res.Fresh, res.Why = info.Fresh, info.Why
	if info.Joined {
		o.note("joined the build of generation %d (%d jobs)", info.Seq, info.Jobs)
	}
	stateDir, unlock := stateSlot(b.StateDir())
	defer unlock()

	for {
		j, err := b.Claim(ctx)
		if err != nil {
			return res, err
		}
		if j != nil {
			ji := j.Info()
			if err := runJob(ctx, info, j, o, stateDir); err != nil {
				if errors.Is(err, graph.ErrClaimLost) {
					o.note("job %d: %v", ji.Ord+1, err)
					continue
				}
				return res, fmt.Errorf("job %d of %d (%s): %w (finished jobs are kept: run the same command again to resume)",
					ji.Ord+1, info.Jobs, describe(ji.Prefixes), err)
			}
			res.JobsDone++
			if o.afterJob != nil {
				o.afterJob(ji.Ord)
			}
			continue
		}
		st, err := b.State(ctx)
		if err != nil {
			return res, err
		}
		switch st.State {
		case "committed", "superseded":
			return finish(ctx, b, res, start)
		case "aborted":
			return res, fmt.Errorf("the build of generation %d was aborted by another process", info.Seq)
		}
		if st.Pending == 0 && st.Running == 0 {
			fw, err := b.ClaimFinalize(ctx)
			if err != nil {
				return res, err
			}
			if fw != nil {
				r, err := finalize(ctx, b, fw, o, stateDir)
				if err != nil {
					if errors.Is(err, graph.ErrClaimLost) {
						continue
					}
					return res, fmt.Errorf("finalize generation %d: %w (the jobs are kept: run the same command again to finish)", info.Seq, err)
				}
				r.Fresh, r.Why = res.Fresh, res.Why
				res.Result, res.Finalized = r, true
				res.Duration = time.Since(start)
				return res, nil
			}
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(o.Poll):
		}
	}
}

// finish fills a result for a process whose build another one committed.
func finish(ctx context.Context, b graph.Build, res Result, start time.Time) (Result, error) {
	xs, err := results(ctx, b)
	if err != nil {
		return res, err
	}
	for _, x := range xs {
		res.Walked += x.Walked
		res.Parsed += x.Parsed
		res.Unchanged += x.Unchanged
		res.Deleted += x.Deleted
		res.Skipped += x.Skipped
		res.Problems = append(res.Problems, x.Problems...)
	}
	res.Duration = time.Since(start)
	return res, nil
}

func results(ctx context.Context, b graph.Build) ([]indexer.Extraction, error) {
	raw, err := b.JobResults(ctx)
	if err != nil {
		return nil, err
	}
	xs := make([]indexer.Extraction, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &xs[i]); err != nil {
			return nil, fmt.Errorf("job result: %w", err)
		}
	}
	return xs, nil
}

func runJob(ctx context.Context, b graph.BuildInfo, j graph.Job, o Options, stateDir string) error {
	ji := j.Info()
	w, err := j.Writer(ctx)
	if err != nil {
		return err
	}
	io := o.Index
	io.Paths, io.StateDir = ji.Prefixes, stateDir
	x, err := indexer.Extract(ctx, w, io)
	if err != nil {
		w.Abort()
		return err
	}
	w.SetResult(x)
	if err := w.Commit(ctx, graph.Meta{}); err != nil {
		return err
	}
	o.note("job %d of %d done: %d files parsed (%s)", ji.Ord+1, b.Jobs, x.Parsed, describe(ji.Prefixes))
	return nil
}

func finalize(ctx context.Context, b graph.Build, w graph.BuildWriter, o Options, stateDir string) (indexer.Result, error) {
	xs, err := results(ctx, b)
	if err != nil {
		w.Abort()
		return indexer.Result{}, err
	}
	io := o.Index
	io.StateDir = stateDir
	io.Paths = nil
	if o.Sinks != nil {
		if io.Sinks, err = o.Sinks(ctx, w); err != nil {
			w.Abort()
			return indexer.Result{}, err
		}
	}
	o.note("finalizing generation %d", b.Info().Seq)
	return indexer.Finalize(ctx, w, xs, io)
}

func describe(prefixes []string) string {
	switch len(prefixes) {
	case 0:
		return "all paths"
	case 1:
		return prefixes[0]
	}
	return fmt.Sprintf("%s … %s, %d prefixes", prefixes[0], prefixes[len(prefixes)-1], len(prefixes))
}

// stateSlot picks a local state directory (crash journal) no other process
// on this machine is using: slot 0 normally, so that a crashed run's
// journal is found by the next one.
func stateSlot(base string) (string, func()) {
	for i := 0; i < 64; i++ {
		dir := filepath.Join(base, fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			break
		}
		f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			break
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return dir, func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
		}
		f.Close()
	}
	return "", func() {}
}

// plan splits the work of a build into jobs by path prefix. A path's work
// is its size when it must be read (new, or its stat differs from the
// generation the build extends), a token for a deletion, nothing
// otherwise; the tree is cut into units (directories light enough, or
// single files) that are packed, in path order, into jobs of about equal
// work. Every path — unchanged ones too, whose committed flags a job
// keeps — falls under exactly one job. With o.Paths, only those paths are
// planned (entries and skips come from walking just them), a path of the
// base is deleted only when it lies under one of them, and a build of one
// job covers exactly them. A file modified within two seconds of now is
// work even when its stat matches (an edit in the same clock tick).
func plan(entries []walk.Entry, skips []graph.Skip, base map[string]graph.FileState, o Options, now time.Time) []graph.JobSpec {
	type item struct {
		path string
		work int64
	}
	const token = 1 << 10
	var items []item
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Path] = true
		k, had := base[e.Path]
		w := int64(0)
		if !had || k.Size != e.Size || k.ModTime != e.ModTime || now.UnixNano()-e.ModTime < int64(2*time.Second) {
			w = max(e.Size, token)
		}
		items = append(items, item{e.Path, w})
	}
	for _, s := range skips {
		seen[s.Path] = true
		w := int64(0)
		if k, had := base[s.Path]; !had || k.Skip != s.Reason {
			w = token
		}
		items = append(items, item{s.Path, w})
	}
	var scope []string // o.Paths, cleaned once
	for _, q := range o.Paths {
		scope = append(scope, strings.Trim(path.Clean(q), "/"))
	}
	under := func(p string) bool {
		if o.Paths == nil {
			return true
		}
		for _, q := range scope {
			if q == "." || q == "" || p == q || strings.HasPrefix(p, q+"/") {
				return true
			}
		}
		return false
	}
	for p := range base {
		if !seen[p] && under(p) {
			items = append(items, item{p, token})
		}
	}
	var total int64
	for _, it := range items {
		total += it.work
	}
	if o.JobBytes <= 0 {
		o.JobBytes = 16 << 20
	}
	if o.MaxJobs <= 0 {
		o.MaxJobs = 64
	}
	n := o.Jobs
	if n == 0 {
		n = int((total + o.JobBytes - 1) / o.JobBytes)
	}
	n = min(max(n, 1), o.MaxJobs)
	if n == 1 || len(items) == 0 {
		var prefixes []string
		if o.Paths != nil {
			prefixes = append([]string{}, o.Paths...)
		}
		return []graph.JobSpec{{Prefixes: prefixes, Weight: total}}
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.path, b.path) })

	// Directory weights.
	dirWork := map[string]int64{}
	for _, it := range items {
		for d := path.Dir(it.path); d != "."; d = path.Dir(d) {
			dirWork[d] += it.work
		}
	}
	target := max(total/int64(n), 1)
	// Units: the shallowest directory under half a job's work, else its
	// entries, recursively; single files otherwise.
	var units []item
	unitOf := func(p string) string {
		comps := strings.Split(p, "/")
		for i := 1; i < len(comps); i++ {
			d := strings.Join(comps[:i], "/")
			if dirWork[d] <= target/2 {
				return d
			}
		}
		return p
	}
	for _, it := range items {
		u := unitOf(it.path)
		if len(units) > 0 && units[len(units)-1].path == u {
			units[len(units)-1].work += it.work
			continue
		}
		units = append(units, item{u, it.work})
	}
	// Cut where the running total passes each n-th of the work: before a
	// unit whose middle lies past the boundary.
	var jobs []graph.JobSpec
	var cur graph.JobSpec
	var done int64
	for _, u := range units {
		boundary := int64(len(jobs)+1) * total / int64(n)
		if len(cur.Prefixes) > 0 && len(jobs) < n-1 && done+u.work/2 > boundary {
			jobs = append(jobs, cur)
			cur = graph.JobSpec{}
		}
		cur.Prefixes = append(cur.Prefixes, u.path)
		cur.Weight += u.work
		done += u.work
	}
	jobs = append(jobs, cur)
	return jobs
}
