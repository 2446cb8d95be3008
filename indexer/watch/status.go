package watch

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/walk"
	"github.com/cairn-dev/cairn/internal/gitrepo"
)

// Watcher states.
const (
	StateStarting = "starting" // watches set, catching up
	StateWatching = "watching" // idle, or changes waiting for their batch
	StateIndexing = "indexing" // a batch is running
	StateStopped  = "stopped"
)

// Watcher modes.
const (
	ModeEvents   = "events"   // every indexed directory is watched
	ModeDegraded = "degraded" // some are not (watch limit): rescans cover them
	ModePolling  = "polling"  // no inotify at all: rescans only
)

// Status is a watcher's state, as Watcher.Status returns it and as the
// watcher publishes it in <state>/watch.json.
type Status struct {
	PID     int       `json:"pid"`
	Root    string    `json:"root"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	State   string    `json:"state"`
	Mode    string    `json:"mode"`
	// Degraded says why events may be missed, and what is done about it.
	Degraded  string `json:"degraded,omitempty"`
	Watched   int    `json:"watched_dirs"`
	Unwatched int    `json:"unwatched_dirs,omitempty"`
	// Overflows counts kernel event-queue overflows (each followed by a
	// full rescan).
	Overflows int `json:"overflows,omitempty"`
	// Pending is the size of the change set waiting or being indexed (1
	// for a full rescan); PendingSince is its oldest change.
	Pending      int        `json:"pending"`
	PendingSince *time.Time `json:"pending_since,omitempty"`
	Head         string     `json:"head,omitempty"`    // HEAD as last seen
	Indexed      string     `json:"indexed,omitempty"` // revision of the last batch
	Batches      int        `json:"batches"`
	Commits      int        `json:"commits"`
	Last         *Batch     `json:"last_batch,omitempty"`
	LastError    string     `json:"last_error,omitempty"`
}

const (
	lockFile   = "WATCH"
	statusFile = "watch.json"
)

func lockState(dir, root string) (*os.File, error) {
	p := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("watch: open lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(p)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s); stop it first, or use it: it is already keeping %s fresh",
				ErrWatching, strings.TrimSpace(string(holder)), dir)
		}
		return nil, fmt.Errorf("watch: lock %s: %w", p, err)
	}
	f.Truncate(0)
	f.WriteAt(fmt.Appendf(nil, "pid %d since %s, watching %s\n", os.Getpid(), time.Now().Format(time.RFC3339), root), 0)
	return f, nil
}

func unlockState(f *os.File) {
	f.Truncate(0)
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// lockHeld reports whether a live process holds the watch lock of dir.
func lockHeld(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// writeStatus publishes the status atomically (write, rename).
func (w *Watcher) writeStatus() {
	st := w.Status()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return
	}
	tmp := filepath.Join(w.opts.StateDir, statusFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return
	}
	os.Rename(tmp, filepath.Join(w.opts.StateDir, statusFile))
}

// ReadStatus reads the status a watcher published in stateDir, and whether
// that watcher is running now (it holds the lock). A watcher killed without
// a chance to say so is reported stopped.
func ReadStatus(stateDir string) (st Status, running bool, err error) {
	running = lockHeld(stateDir)
	b, err := os.ReadFile(filepath.Join(stateDir, statusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, running, nil
	}
	if err != nil {
		return st, running, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, running, fmt.Errorf("watcher status %s: %w", filepath.Join(stateDir, statusFile), err)
	}
	if !running && st.State != StateStopped {
		st.State = StateStopped
		st.LastError = cmp.Or(st.LastError, fmt.Sprintf("watcher (pid %d) ended without shutting down", st.PID))
	}
	return st, running, nil
}

// Worktree says whether the worktree holds changes an index generation
// does not: the freshness block of every answer.
type Worktree struct {
	// Head is the commit checked out now; HeadMoved: it is not the one
	// the generation was indexed at.
	Head      string `json:"head,omitempty"`
	HeadMoved bool   `json:"head_moved,omitempty"`
	// Unindexed: the worktree has changes the generation does not hold
	// (nil: it could not be told in time).
	Unindexed *bool `json:"unindexed"`
	// Changed lists some of the changed paths; NChanged counts them (a
	// scan only: a watcher reports Pending instead).
	Changed  []string `json:"changed,omitempty"`
	NChanged int      `json:"changed_count,omitempty"`
	// Pending: changes a running watcher has seen and not yet committed.
	Pending int `json:"pending,omitempty"`
	// Source is how it was told: "watcher" (a healthy watcher keeps the
	// index fresh) or "scan" (the worktree was compared with the index).
	Source string `json:"source"`
	// Snapshot: the scan was answered from the stat snapshot of the last
	// full scan (indexer.CachedChanges), one lstat per directory and file.
	Snapshot bool `json:"snapshot,omitempty"`
	// Watcher is "running", "degraded" or "none"; Note says more.
	Watcher string `json:"watcher"`
	Note    string `json:"note,omitempty"`
}

// CheckOptions configure Check.
type CheckOptions struct {
	Root     string
	StateDir string
	// Walk must match the index runs' walk (excluded directories, size
	// limit) so that the scan sees what they see.
	Walk walk.Options
	// Budget bounds the scan (default 500ms); Limit the paths listed
	// (default 10).
	Budget time.Duration
	Limit  int
	// FullScan ignores the stat snapshot kept in StateDir (and writes none):
	// every check walks the tree and reads the index's file list.
	FullScan bool
}

// Check tells whether the worktree has changes the generation m (read
// through r) does not hold. When a healthy watcher keeps this index, its
// word is taken (a file read); otherwise the worktree is compared with the
// index, stat by stat, within the budget.
func Check(ctx context.Context, r graph.Reader, m graph.Meta, o CheckOptions) Worktree {
	o.Budget = cmp.Or(o.Budget, 500*time.Millisecond)
	o.Limit = cmp.Or(o.Limit, 10)
	var wt Worktree
	headc := make(chan string, 1) // git runs while the status is read
	go func() { headc <- gitrepo.Head(ctx, o.Root) }()
	st, running, err := ReadStatus(o.StateDir)
	wt.Head = <-headc
	// Only a revision the index recorded can have moved: an index built
	// where git could not read HEAD's tree (no checkout yet, a broken
	// object store) cites files by content, and "HEAD moved, run cairn
	// index" would be advice that re-indexing cannot satisfy. The
	// engine's status and MCP's index view say the same.
	wt.HeadMoved = wt.Head != "" && m.Revision != "" && wt.Head != m.Revision
	switch {
	case err != nil:
		wt.Watcher, wt.Note = "none", err.Error()
	case !running:
		wt.Watcher = "none"
	case st.Mode != ModeEvents:
		wt.Watcher, wt.Note = "degraded", st.Degraded
	default:
		wt.Watcher = "running"
	}
	if wt.Watcher == "running" {
		wt.Source = "watcher"
		wt.Pending = st.Pending
		if st.State != StateWatching {
			wt.Pending = max(wt.Pending, 1)
		}
		u := wt.Pending > 0 || wt.HeadMoved
		wt.Unindexed = &u
		return wt
	}
	wt.Source = "scan"
	sctx, cancel := context.WithTimeout(ctx, o.Budget)
	defer cancel()
	walkOpts := o.Walk
	walkOpts.Root = o.Root
	snap := ""
	if o.StateDir != "" && !o.FullScan {
		snap = filepath.Join(o.StateDir, indexer.SnapshotFile)
	}
	cs, err := indexer.CachedChanges(sctx, r, m, walkOpts, o.Limit, snap)
	paths, n, complete := cs.Paths, cs.N, cs.Complete
	wt.Snapshot = cs.Fast
	if err != nil {
		wt.Note = err.Error()
		if wt.HeadMoved {
			u := true
			wt.Unindexed = &u
		}
		return wt
	}
	wt.Changed, wt.NChanged = paths, n
	u := n > 0 || wt.HeadMoved
	if u || complete {
		wt.Unindexed = &u
	}
	if !complete {
		wt.Note = fmt.Sprintf("the worktree scan stopped after %s", o.Budget)
	}
	return wt
}
