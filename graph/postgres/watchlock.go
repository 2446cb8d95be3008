package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
)

// watchLockKey is the advisory-lock key of a repository's watcher: a hash
// of its name in a key space of its own (the first argument).
func watchLockKey(repo string) int32 {
	h := fnv.New32a()
	h.Write([]byte(repo))
	return int32(h.Sum32())
}

const watchLockSpace = 0x63616972 // "cair"

// LockWatcher takes the repository's watcher lock: a session-level
// advisory lock on a connection held for as long as the watcher runs, so
// that only one watcher, on any machine, keeps a repository of the shared
// store fresh; it is released when the process exits or its connection
// drops. A second watcher gets an error naming the holder. release gives
// the lock up (closing its session).
func (db *DB) LockWatcher(ctx context.Context, repo, who string) (release func(), err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.queryErr("connect for the watcher lock", err)
	}
	key := watchLockKey(repo)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, int32(watchLockSpace), key).Scan(&ok); err != nil {
		conn.Release()
		return nil, db.queryErr("take the watcher lock", err)
	}
	if !ok {
		conn.Release()
		var holder string
		_ = db.pool.QueryRow(ctx, `SELECT coalesce(a.application_name, '') || ' (' || coalesce(host(a.client_addr), 'local') || ', backend pid ' || a.pid || ', since ' || to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS') || ')'
			FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::int::oid AND l.objid = $2::int::oid`,
			int32(watchLockSpace), key).Scan(&holder)
		if holder == "" {
			holder = "another process"
		}
		return nil, fmt.Errorf("repository %s of %s is already watched by %s: one watcher per repository", repo, db.where, holder)
	}
	if who != "" {
		_, _ = conn.Exec(ctx, `SELECT set_config('application_name', $1, false)`, who)
	}
	// The connection leaves the pool for good: the lock lives as long as
	// its session.
	pc := conn.Hijack()
	var once sync.Once
	return func() {
		once.Do(func() {
			// Unlock first: closing the connection alone frees the lock only
			// when the server's backend has exited, a moment later, and a
			// watcher started right after a release was refused.
			uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = pc.Exec(uctx, `SELECT pg_advisory_unlock($1, $2)`, int32(watchLockSpace), key)
			pc.Close(uctx)
		})
	}, nil
}
