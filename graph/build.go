package graph

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Shared builds: a store that many processes write at once (the PostgreSQL
// store) splits the build of a generation into jobs that processes claim
// from the store itself. These are the words of that protocol, which the
// store implements and package indexer/fleet drives; see
// graph/postgres's doc.go for how the database keeps it.

// ErrNoBuild: there is no build of the repository to join (cairn worker).
var ErrNoBuild = errors.New("no index build in progress")

// ErrUnchanged: with BuildOptions.SkipUnchanged, the planned build had no
// work and the revision had not moved, so no generation was started.
var ErrUnchanged = errors.New("nothing changed since the current generation")

// ErrClaimLost is returned by a job's or a finalizer's commit when its
// claim lapsed and another process took the work over: the work is
// discarded, the other process's counts.
var ErrClaimLost = errors.New("claim lapsed; another process took the work over")

// BusyError reports a build of another revision that live processes are
// still working on.
type BusyError struct {
	Repo, Revision, StartedBy string
	StartedAt                 time.Time
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("repository %s: an index build of revision %s (started by %s at %s) is in progress: wait for it, or run `cairn worker` to help it",
		e.Repo, shortRev(e.Revision), e.StartedBy, e.StartedAt.Format(time.RFC3339))
}

func shortRev(r string) string {
	if r == "" {
		return "(not a git tree)"
	}
	if len(r) > 12 {
		return r[:12]
	}
	return r
}

// JobSpec is one part of a build: the paths at or below Prefixes (all
// paths when empty), and the work planned for them (bytes to read).
type JobSpec struct {
	Prefixes []string
	Weight   int64
}

// BuildOptions start or join a build.
type BuildOptions struct {
	Repo     string // repository name
	Root     string // repository root on this machine
	Revision string // git commit of the worktree ("" if none)
	// Full builds from scratch even when the current generation could be
	// extended.
	Full bool
	// JoinOnly joins a build in progress but never starts one (cairn
	// worker); StartBuild then fails with ErrNoBuild.
	JoinOnly bool
	// Worker names this process in claims; default host/pid.
	Worker string
	// Lease is how long a claim lasts without a heartbeat; default 2 min.
	Lease time.Duration
	// NoHeartbeat (tests) lets claims lapse after Lease.
	NoHeartbeat bool
	// Plan splits a new build into jobs, given the generation it extends
	// (empty for a build from scratch). It runs while the repository is
	// locked, so that concurrent starters agree on one build.
	Plan func(ctx context.Context, base map[string]FileState) ([]JobSpec, error)
	// SkipUnchanged starts no build, and fails with ErrUnchanged, when the
	// plan extends the current generation at the same revision and has no
	// work (every job's Weight is zero): a watcher's rescan that finds
	// nothing costs no generation.
	SkipUnchanged bool
}

// BuildInfo describes a build a process started or joined.
type BuildInfo struct {
	Seq      int64  // the generation's number in its repository
	Fresh    bool   // from scratch (not extending the current generation)
	Why      string // why it is fresh, or "incremental"
	Revision string // the revision being built
	Joined   bool   // the build was started by another process
	Jobs     int    // jobs in the build
}

// BuildState is a snapshot of a build's progress. State is "building",
// "finalizing", "committed", "superseded" or "aborted".
type BuildState struct {
	State                  string
	Pending, Running, Done int
	Total                  int
}

// JobInfo describes a claimed job.
type JobInfo struct {
	Ord      int      // the job's place in the build, from 0
	Prefixes []string // the paths it covers (all when empty)
	Attempt  int      // 1 for the first claim, more when retried
}

// Coordinator starts or joins builds of a shared store.
type Coordinator interface {
	// StartBuild joins the repository's build in progress for the same
	// revision, or starts the next generation's build (planned by
	// o.Plan). It fails with ErrNoBuild (o.JoinOnly, nothing to join),
	// ErrUnchanged (o.SkipUnchanged, nothing to do) or *BusyError (a live
	// build of another revision).
	StartBuild(ctx context.Context, o BuildOptions) (Build, error)
}

// Build is a generation being built by one or more processes. Every
// process claims jobs until none is left; one of them then claims the
// finalization.
type Build interface {
	Info() BuildInfo
	// StateDir is this machine's directory for the repository's local
	// state (crash journals), the same for every build of it.
	StateDir() string
	// Claim takes the next job nobody holds, or returns nil (and no
	// error) when there is none right now.
	Claim(ctx context.Context) (Job, error)
	// State reads the build's progress.
	State(ctx context.Context) (BuildState, error)
	// JobResults returns what every finished job recorded with
	// BuildWriter.SetResult (JSON), in job order.
	JobResults(ctx context.Context) ([][]byte, error)
	// ClaimFinalize makes this process the finalizer once every job is
	// done, or returns nil (and no error) when the build is not ready or
	// another process finalizes it. The writer's Commit makes the
	// generation current.
	ClaimFinalize(ctx context.Context) (BuildWriter, error)
	// Close stops renewing this process's claims.
	Close()
}

// Job is a claimed part of a build.
type Job interface {
	Info() JobInfo
	// Writer opens the job's writer; its Commit marks the job done, or
	// fails wrapping ErrClaimLost when another process took it over.
	Writer(ctx context.Context) (BuildWriter, error)
}

// BuildWriter writes a job's part of a shared build, or finalizes it.
type BuildWriter interface {
	Writer
	// Fresh reports whether the build is from scratch, and why.
	Fresh() (bool, string)
	// Previous describes the generation the build extends, without the
	// counts.
	Previous() Meta
	// StateDir is the repository's local state directory (Build.StateDir).
	StateDir() string
	// SetResult records v (as JSON) with the job at Commit, for the
	// finalizer's Build.JobResults.
	SetResult(v any)
}
