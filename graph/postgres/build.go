package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/schema"
)

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
// paths when empty).
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
	Plan func(ctx context.Context, base map[string]graph.FileState) ([]JobSpec, error)
	// SkipUnchanged starts no build, and fails with ErrUnchanged, when the
	// plan extends the current generation at the same revision and has no
	// work (every job's Weight is zero): a watcher's rescan that finds
	// nothing costs no generation.
	SkipUnchanged bool
}

// Build is a generation being built by one or more processes.
type Build struct {
	db       *DB
	opts     BuildOptions
	ID       int64 // generations.id
	RepoID   int64
	Seq      int64
	Base     int64 // 0: from scratch
	Fresh    bool
	Why      string
	Revision string
	Joined   bool // the build was started by another process
	Jobs     int

	stop chan struct{}
	wg   sync.WaitGroup
}

func defaultWorker() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

// StartBuild joins the repository's build in progress (same revision), or
// starts the next generation's build: it plans the jobs and copies the
// membership of the generation it extends, in one transaction.
func (db *DB) StartBuild(ctx context.Context, o BuildOptions) (*Build, error) {
	if err := db.checkSchema(ctx, true); err != nil {
		return nil, err
	}
	if o.Worker == "" {
		o.Worker = defaultWorker()
	}
	if o.Lease == 0 {
		o.Lease = 2 * time.Minute
	}
	b := &Build{db: db, opts: o, stop: make(chan struct{})}
	if err := db.startBuild(ctx, b); err != nil {
		return nil, err
	}
	if !o.NoHeartbeat {
		b.wg.Add(1)
		go b.heartbeat()
	}
	return b, nil
}

func (db *DB) startBuild(ctx context.Context, b *Build) error {
	o := b.opts
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.queryErr("begin build", err)
	}
	defer tx.Rollback(ctx)
	if !o.JoinOnly {
		if _, err := tx.Exec(ctx, `INSERT INTO repositories(name) VALUES($1) ON CONFLICT (name) DO NOTHING`, o.Repo); err != nil {
			return db.queryErr("register repository", err)
		}
	}
	var current *int64
	err = tx.QueryRow(ctx, `SELECT id, current_gen FROM repositories WHERE name = $1 FOR UPDATE`, o.Repo).Scan(&b.RepoID, &current)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("repository %s: %w", o.Repo, ErrNoBuild)
	}
	if err != nil {
		return db.queryErr("lock repository", err)
	}
	// A build in progress: join it, or set it aside if nobody works on it.
	var id, seq int64
	var base *int64
	var rev, why, startedBy string
	var feature int
	var startedAt time.Time
	err = tx.QueryRow(ctx, `SELECT id, seq, base_id, revision, why, feature, started_by, started_at FROM generations
		WHERE repo_id = $1 AND state IN ('building', 'finalizing')`, b.RepoID).Scan(&id, &seq, &base, &rev, &why, &feature, &startedBy, &startedAt)
	switch {
	case err == nil && rev == o.Revision && feature == schema.FeatureVersion:
		b.ID, b.Seq, b.Why, b.Revision, b.Joined = id, seq, why, rev, true
		if base != nil {
			b.Base = *base
		}
		b.Fresh = b.Base == 0
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE gen_id = $1`, id).Scan(&b.Jobs); err != nil {
			return db.queryErr("read jobs", err)
		}
		return db.queryErr("join build", tx.Commit(ctx))
	case err == nil:
		live, err := buildLive(ctx, tx, id)
		if err != nil {
			return db.queryErr("inspect build", err)
		}
		if live {
			return &BusyError{Repo: o.Repo, Revision: rev, StartedBy: startedBy, StartedAt: startedAt}
		}
		if _, err := tx.Exec(ctx, `UPDATE generations SET state = 'aborted' WHERE id = $1`, id); err != nil {
			return db.queryErr("abort abandoned build", err)
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return db.queryErr("find build", err)
	}
	if o.JoinOnly {
		return fmt.Errorf("repository %s: %w", o.Repo, ErrNoBuild)
	}

	// A new build: from the current generation, when it can be extended.
	b.Why = "incremental"
	if current != nil {
		var feat int
		if err := tx.QueryRow(ctx, `SELECT feature FROM generations WHERE id = $1`, *current).Scan(&feat); err != nil {
			return db.queryErr("read current generation", err)
		}
		switch {
		case o.Full:
			b.Why = "full rebuild requested"
		case feat != schema.FeatureVersion:
			b.Why = fmt.Sprintf("extractor features changed (%d → %d)", feat, schema.FeatureVersion)
		default:
			b.Base = *current
		}
	} else {
		b.Why = "no index yet"
	}
	b.Fresh = b.Base == 0
	known := map[string]graph.FileState{}
	if b.Base != 0 {
		if known, err = readKnown(ctx, tx, b.Base); err != nil {
			return db.queryErr("read indexed files", err)
		}
	}
	specs := []JobSpec{{}}
	if o.Plan != nil {
		if specs, err = o.Plan(ctx, known); err != nil {
			return err
		}
		if len(specs) == 0 {
			specs = []JobSpec{{}}
		}
	}
	if o.SkipUnchanged && b.Base != 0 {
		var work int64
		for _, s := range specs {
			work += s.Weight
		}
		if work == 0 {
			var baseRev string
			if err := tx.QueryRow(ctx, `SELECT revision FROM generations WHERE id = $1`, b.Base).Scan(&baseRev); err != nil {
				return db.queryErr("read current generation", err)
			}
			if baseRev == o.Revision {
				return ErrUnchanged
			}
		}
	}
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM generations WHERE repo_id = $1`, b.RepoID).Scan(&b.Seq); err != nil {
		return db.queryErr("number generation", err)
	}
	var baseArg *int64
	if b.Base != 0 {
		baseArg = &b.Base
	}
	err = tx.QueryRow(ctx, `INSERT INTO generations(repo_id, seq, base_id, state, why, feature, root, revision, started_by)
		VALUES($1, $2, $3, 'building', $4, $5, $6, $7, $8) RETURNING id`,
		b.RepoID, b.Seq, baseArg, b.Why, schema.FeatureVersion, o.Root, o.Revision, o.Worker).Scan(&b.ID)
	if err != nil {
		return db.queryErr("create generation", err)
	}
	b.Revision = o.Revision
	rows := make([][]any, len(specs))
	for i, s := range specs {
		p := s.Prefixes
		if p == nil {
			p = []string{}
		}
		rows[i] = []any{b.ID, int32(i), p, s.Weight}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"jobs"}, []string{"gen_id", "ord", "prefixes", "weight"}, pgx.CopyFromRows(rows)); err != nil {
		return db.queryErr("plan jobs", err)
	}
	b.Jobs = len(specs)
	if b.Base != 0 {
		for _, q := range []string{
			`INSERT INTO gen_files(gen_id, path, file_id, res_id, size, mtime, committed, category)
				SELECT $1, path, file_id, res_id, size, mtime, committed, category FROM gen_files WHERE gen_id = $2`,
			`INSERT INTO gen_skips(gen_id, path, reason, detail, dir, size, mtime)
				SELECT $1, path, reason, detail, dir, size, mtime FROM gen_skips WHERE gen_id = $2`,
			`INSERT INTO gen_edges(gen_id, src, dst, kind, confidence, ambiguous, start_byte, end_byte, line, col)
				SELECT $1, src, dst, kind, confidence, ambiguous, start_byte, end_byte, line, col FROM gen_edges WHERE gen_id = $2`,
			`INSERT INTO ranks(gen_id, sid, score) SELECT $1, sid, score FROM ranks WHERE gen_id = $2`,
		} {
			if _, err := tx.Exec(ctx, q, b.ID, b.Base); err != nil {
				return db.queryErr("copy the previous generation", err)
			}
		}
	}
	return db.queryErr("start build", tx.Commit(ctx))
}

// claimLive is the SQL condition under which a claim (a job's or a
// finalizer's) still holds: its lease runs and its connection exists.
const claimLive = `(coalesce(%[1]slease_until > now(), false) AND EXISTS (SELECT 1 FROM pg_stat_activity a
	WHERE a.pid = %[1]s%[2]s AND a.backend_start = %[1]s%[3]s))`

func liveCond(alias, pid, start string) string {
	return fmt.Sprintf(claimLive, alias, pid, start)
}

// buildLive reports whether any process still works on a build.
func buildLive(ctx context.Context, q querier, gen int64) (bool, error) {
	var live bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs j WHERE j.gen_id = $1 AND j.state = 'running' AND `+liveCond("j.", "backend_pid", "backend_start")+`)
		OR EXISTS (SELECT 1 FROM generations g WHERE g.id = $1 AND g.state = 'finalizing' AND `+liveCond("g.", "finalizer_pid", "finalizer_start")+`)`, gen).Scan(&live)
	return live, err
}

// readKnown reads what a generation holds about each path.
func readKnown(ctx context.Context, q querier, gen int64) (map[string]graph.FileState, error) {
	out := map[string]graph.FileState{}
	rows, err := q.Query(ctx, `SELECT g.path, f.hash, g.size, g.mtime, f.lang, f.status, g.committed, f.scip
		FROM gen_files g JOIN files f ON f.id = g.file_id WHERE g.gen_id = $1`, gen)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var st graph.FileState
		var lang, status int16
		if err := rows.Scan(&st.Path, &st.Hash, &st.Size, &st.ModTime, &lang, &status, &st.Committed, &st.SCIP); err != nil {
			rows.Close()
			return nil, err
		}
		st.Lang, st.Status = graph.Language(lang), graph.ParseStatus(status)
		out[st.Path] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT path, reason, size, mtime FROM gen_skips WHERE gen_id = $1`, gen)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var st graph.FileState
		var reason int16
		if err := rows.Scan(&st.Path, &reason, &st.Size, &st.ModTime); err != nil {
			return nil, err
		}
		st.Skip = graph.SkipReason(reason)
		out[st.Path] = st
	}
	return out, rows.Err()
}

// heartbeat extends this process's claims until Close.
func (b *Build) heartbeat() {
	defer b.wg.Done()
	t := time.NewTicker(max(b.opts.Lease/4, 50*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), b.opts.Lease/2)
			lease := b.opts.Lease.Seconds()
			b.db.pool.Exec(ctx, `UPDATE jobs SET lease_until = now() + $3::float8 * interval '1 second'
				WHERE gen_id = $1 AND worker = $2 AND state = 'running'`, b.ID, b.opts.Worker, lease)
			b.db.pool.Exec(ctx, `UPDATE generations SET lease_until = now() + $3::float8 * interval '1 second'
				WHERE id = $1 AND finalizer = $2 AND state = 'finalizing'`, b.ID, b.opts.Worker, lease)
			cancel()
		}
	}
}

// Close stops the heartbeat. Claims still held lapse after their lease (or
// at once, when their connections are gone).
func (b *Build) Close() {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	b.wg.Wait()
}

// Worker is the name this process claims work under.
func (b *Build) Worker() string { return b.opts.Worker }

// Job is a claimed part of a build.
type Job struct {
	b        *Build
	ID       int64
	Ord      int
	Prefixes []string
	Attempt  int
	conn     *pgxpool.Conn
}

// Claim takes the next job nobody holds (pending, or claimed by a process
// whose lease ran out or whose connection is gone), or returns nil when
// there is none right now.
func (b *Build) Claim(ctx context.Context) (*Job, error) {
	conn, err := b.db.pool.Acquire(ctx)
	if err != nil {
		return nil, connectErr(b.db.where, err)
	}
	j := &Job{b: b, conn: conn}
	var ord int32
	var attempt int32
	err = conn.QueryRow(ctx, `UPDATE jobs j SET state = 'running', attempt = j.attempt + 1, worker = $2,
			backend_pid = pg_backend_pid(),
			backend_start = (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()),
			lease_until = now() + $3::float8 * interval '1 second', started_at = now()
		WHERE j.id = (SELECT id FROM jobs k WHERE k.gen_id = $1
				AND (k.state = 'pending' OR (k.state = 'running' AND NOT `+liveCond("k.", "backend_pid", "backend_start")+`))
			ORDER BY k.ord FOR UPDATE SKIP LOCKED LIMIT 1)
		RETURNING j.id, j.ord, j.prefixes, j.attempt`, b.ID, b.opts.Worker, b.opts.Lease.Seconds()).Scan(&j.ID, &ord, &j.Prefixes, &attempt)
	if errors.Is(err, pgx.ErrNoRows) {
		conn.Release()
		return nil, nil
	}
	if err != nil {
		conn.Release()
		return nil, b.db.queryErr("claim a job", err)
	}
	j.Ord, j.Attempt = int(ord), int(attempt)
	return j, nil
}

// Release gives a job back unfinished (after an error), so that another
// process can take it at once.
func (j *Job) Release() {
	if j.conn != nil {
		j.conn.Release()
		j.conn = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	j.b.db.pool.Exec(ctx, `UPDATE jobs SET state = 'pending', worker = NULL, backend_pid = NULL, backend_start = NULL, lease_until = NULL
		WHERE id = $1 AND attempt = $2 AND state = 'running'`, j.ID, j.Attempt)
}

// BuildState is a snapshot of a build's progress.
type BuildState struct {
	State                  string // generations.state
	Pending, Running, Done int
	Total                  int
}

// State reads the build's progress.
func (b *Build) State(ctx context.Context) (BuildState, error) {
	var st BuildState
	err := b.db.pool.QueryRow(ctx, `SELECT g.state,
			count(*) FILTER (WHERE j.state = 'pending'), count(*) FILTER (WHERE j.state = 'running'),
			count(*) FILTER (WHERE j.state = 'done'), count(j.id)
		FROM generations g LEFT JOIN jobs j ON j.gen_id = g.id WHERE g.id = $1 GROUP BY g.state`, b.ID).
		Scan(&st.State, &st.Pending, &st.Running, &st.Done, &st.Total)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, fmt.Errorf("build %d of %s vanished", b.Seq, b.opts.Repo)
	}
	return st, b.db.queryErr("read build state", err)
}

// JobResults returns the results every finished job recorded, in job order.
func (b *Build) JobResults(ctx context.Context) ([][]byte, error) {
	rows, err := b.db.pool.Query(ctx, `SELECT coalesce(result::text, '{}') FROM jobs WHERE gen_id = $1 AND state = 'done' ORDER BY ord`, b.ID)
	if err != nil {
		return nil, b.db.queryErr("read job results", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, []byte(s))
	}
	return out, b.db.queryErr("read job results", rows.Err())
}

// ClaimFinalize makes this process the build's finalizer once every job is
// done (or takes over from a finalizer whose claim lapsed). It returns nil
// when the build is not ready or someone else finalizes it.
func (b *Build) ClaimFinalize(ctx context.Context) (*Writer, error) {
	conn, err := b.db.pool.Acquire(ctx)
	if err != nil {
		return nil, connectErr(b.db.where, err)
	}
	var got int64
	err = conn.QueryRow(ctx, `UPDATE generations g SET state = 'finalizing', finalizer = $2,
			finalizer_pid = pg_backend_pid(),
			finalizer_start = (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()),
			lease_until = now() + $3::float8 * interval '1 second'
		WHERE g.id = $1 AND (g.state = 'building' OR (g.state = 'finalizing' AND NOT `+liveCond("g.", "finalizer_pid", "finalizer_start")+`))
			AND NOT EXISTS (SELECT 1 FROM jobs WHERE gen_id = $1 AND state <> 'done')
		RETURNING g.id`, b.ID, b.opts.Worker, b.opts.Lease.Seconds()).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		conn.Release()
		return nil, nil
	}
	if err != nil {
		conn.Release()
		return nil, b.db.queryErr("claim finalization", err)
	}
	w, err := newWriter(ctx, b, conn, nil)
	if err != nil {
		conn.Release()
		return nil, err
	}
	return w, nil
}

// Writer opens the job's writer: its extraction is written in one
// transaction that Commit ends by marking the job done.
func (j *Job) Writer(ctx context.Context) (*Writer, error) {
	w, err := newWriter(ctx, j.b, j.conn, j)
	if err != nil {
		j.Release()
		return nil, err
	}
	j.conn = nil // the writer owns it now
	return w, nil
}

// Wait blocks until the build is committed (nil) or aborted, polling.
func (b *Build) Wait(ctx context.Context, poll time.Duration) error {
	for {
		var state string
		err := b.db.pool.QueryRow(ctx, `SELECT state FROM generations WHERE id = $1`, b.ID).Scan(&state)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("build %d of %s vanished", b.Seq, b.opts.Repo)
		}
		if err != nil {
			return b.db.queryErr("wait for build", err)
		}
		switch state {
		case "committed", "superseded":
			return nil
		case "aborted":
			return fmt.Errorf("build %d of %s was aborted", b.Seq, b.opts.Repo)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
