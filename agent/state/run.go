package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// The files of a run directory.
const (
	MetaFile       = "meta.json"
	ContractFile   = "contract"
	EventsFile     = "events.jsonl"
	CheckpointFile = "checkpoint.json"
	LockFile       = "LOCK"
	RequestsDir    = "requests"
)

// FormatVersion is the run directory's format, in meta.json; Open and Read
// refuse another.
//
//	1: meta.json, contract, events.jsonl, checkpoint.json, requests/, LOCK.
const FormatVersion = 1

// FormatError is returned for a run directory of another format version.
type FormatError struct {
	Dir       string
	Got, Want int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("run %s: format version %d, this cairn reads %d", e.Dir, e.Got, e.Want)
}

// Run is a run directory held open for writing: it owns the run lock, so
// one process at a time drives a run.
type Run struct {
	ID  string
	Dir string

	meta     Meta
	contract []byte
	lockf    *os.File

	mu     sync.Mutex
	log    *os.File // events.jsonl, O_APPEND
	size   int64    // bytes of complete lines in log
	seq    int64    // last sequence number written
	step   int      // the last event's step
	broken error    // a failed append that could not be undone
	closed bool
}

// NewID returns a fresh run id, sortable by creation time:
// 20261202-013000-<6 hex>.
func NewID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// IgnoreFile is what root holds so that git leaves the runs out of the
// repository's status: its own .gitignore, matching everything (itself
// too), as the index directory has. The user's ignore files are never
// touched, and files the repository tracks under .cairn (policy.yaml, a
// task) stay tracked.
const IgnoreFile = ".gitignore"

// ignoreSelf writes root's IgnoreFile unless there is one.
func ignoreSelf(root string) error {
	f, err := os.OpenFile(filepath.Join(root, IgnoreFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("keep the runs out of git: %w", err)
	}
	_, err = f.WriteString("# written by cairn: agent runs are not part of the repository\n*\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Create makes the run directory root/ID (root is REPO/.cairn/runs) and
// takes its lock. It writes the contract (its exact bytes, read-only) and
// meta.json atomically and starts an empty event log. A zero meta.RunID is
// NewID; a zero Created is now.
func Create(root string, meta Meta, contract []byte) (*Run, error) {
	if meta.RunID == "" {
		meta.RunID = NewID()
	}
	if !idRE.MatchString(meta.RunID) || meta.RunID == "." || meta.RunID == ".." {
		return nil, fmt.Errorf("create run: id %q is not a plain name", meta.RunID)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	meta.Format = FormatVersion
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create run: %w", err)
	}
	if err := ignoreSelf(root); err != nil {
		return nil, fmt.Errorf("create run: %w", err)
	}
	dir := filepath.Join(root, meta.RunID)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run %s: %w", meta.RunID, err)
	}
	lf, err := lock(dir, meta.RunID)
	if err != nil {
		return nil, err
	}
	r := &Run{ID: meta.RunID, Dir: dir, meta: meta, contract: append([]byte(nil), contract...), lockf: lf}
	fail := func(err error) (*Run, error) {
		r.Close()
		return nil, fmt.Errorf("create run %s: %w", meta.RunID, err)
	}
	if err := writeAtomic(filepath.Join(dir, ContractFile), contract, 0o444); err != nil {
		return fail(err)
	}
	mb, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fail(err)
	}
	if err := writeAtomic(filepath.Join(dir, MetaFile), append(mb, '\n'), 0o644); err != nil {
		return fail(err)
	}
	if r.log, err = os.OpenFile(filepath.Join(dir, EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
		return fail(err)
	}
	if err := syncDir(dir); err != nil {
		return fail(err)
	}
	if err := syncDir(root); err != nil {
		return fail(err)
	}
	return r, nil
}

// Open opens a run to resume it. It takes the run lock (a second live
// process gets a *LockedError naming the holder's pid), reads the event log
// and repairs a torn last line — cut back to the last complete line, then a
// `recovered` event saying what was dropped. A corrupt line before the last
// is a *CorruptError naming the line, and nothing is rewritten.
func Open(dir string) (*Run, error) {
	meta, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	lf, err := lock(dir, meta.RunID)
	if err != nil {
		return nil, err
	}
	r := &Run{ID: meta.RunID, Dir: dir, meta: meta, lockf: lf}
	fail := func(err error) (*Run, error) {
		r.Close()
		return nil, err
	}
	if r.contract, err = os.ReadFile(filepath.Join(dir, ContractFile)); err != nil {
		return fail(fmt.Errorf("run %s: read contract: %w", meta.RunID, err))
	}
	p, err := readLog(dir)
	if err != nil {
		return fail(err)
	}
	if r.log, err = os.OpenFile(filepath.Join(dir, EventsFile), os.O_WRONLY|os.O_APPEND, 0); err != nil {
		return fail(fmt.Errorf("run %s: open event log: %w", meta.RunID, err))
	}
	r.size, r.seq, r.step = p.good, int64(len(p.events)), lastStep(p.events)
	if p.torn != nil {
		if err := r.log.Truncate(p.good); err != nil {
			return fail(fmt.Errorf("run %s: cut the torn last line: %w", meta.RunID, err))
		}
		if err := r.log.Sync(); err != nil {
			return fail(fmt.Errorf("run %s: cut the torn last line: %w", meta.RunID, err))
		}
		if _, err := r.Append(KindRecovered, r.step, describeTorn(p.torn)); err != nil {
			return fail(err)
		}
	}
	if cp, err := readCheckpoint(dir); err != nil {
		return fail(err)
	} else if cp != nil && cp.Seq > r.seq {
		return fail(fmt.Errorf("run %s: the checkpoint reflects event %d, the log ends at %d", meta.RunID, cp.Seq, r.seq))
	}
	return r, nil
}

func lastStep(evs []Event) int {
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Step
}

// readMeta reads and checks meta.json.
func readMeta(dir string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return m, fmt.Errorf("open run %s: %w", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("open run %s: %s: %w", dir, MetaFile, err)
	}
	if m.Format != FormatVersion {
		return m, &FormatError{Dir: dir, Got: m.Format, Want: FormatVersion}
	}
	if m.RunID == "" {
		return m, fmt.Errorf("open run %s: %s has no run_id", dir, MetaFile)
	}
	return m, nil
}

// ErrClosed is returned by a Run's methods after Close.
var ErrClosed = errors.New("state: run closed")

// Append writes one event: data (marshalled to JSON, every string passed
// through internal/redact) on one line, written and fsynced before Append
// returns. Safe for concurrent use; sequence numbers follow the order in
// which calls take the run's mutex.
func (r *Run) Append(kind string, step int, data any) (Event, error) {
	ev := Event{Kind: kind, Step: step, ContractHash: r.meta.ContractHash}
	if kind == "" {
		return ev, errors.New("append event: no kind")
	}
	if data != nil {
		raw, err := redactJSON(data)
		if err != nil {
			return ev, fmt.Errorf("append %s event: %w", kind, err)
		}
		if string(raw) != "null" {
			ev.Data = raw
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.appendLocked(ev)
}

func (r *Run) appendLocked(ev Event) (Event, error) {
	if r.closed {
		return ev, ErrClosed
	}
	if r.broken != nil {
		return ev, r.broken
	}
	ev.Seq = r.seq + 1
	ev.Time = time.Now().UTC()
	line, err := json.Marshal(ev)
	if err != nil {
		return ev, fmt.Errorf("append %s event: %w", ev.Kind, err)
	}
	line = append(line, '\n')
	n, werr := r.log.Write(line)
	if werr == nil {
		werr = r.log.Sync()
	}
	if werr != nil {
		// Undo a partial line so the next append does not corrupt the
		// middle of the log; if that fails too, refuse further appends.
		if n > 0 {
			if terr := r.log.Truncate(r.size); terr != nil {
				r.broken = fmt.Errorf("run %s: event log unusable after a failed write (%v): %w", r.ID, werr, terr)
			}
		}
		return ev, fmt.Errorf("append %s event: %w", ev.Kind, werr)
	}
	r.seq, r.step = ev.Seq, ev.Step
	r.size += int64(len(line))
	return ev, nil
}

// Events reads the run's events back from the log, in order.
func (r *Run) Events() ([]Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	p, err := readLog(r.Dir)
	if err != nil {
		return nil, err
	}
	if p.torn != nil {
		return nil, fmt.Errorf("run %s: event log ends in a torn line while held open", r.ID)
	}
	return p.events, nil
}

// LastSeq is the sequence number of the last event written (0 for none).
func (r *Run) LastSeq() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Meta is the run's meta.json.
func (r *Run) Meta() Meta { return r.meta }

// Contract is the contract's exact bytes, as Create was given them.
func (r *Run) Contract() []byte { return append([]byte(nil), r.contract...) }

// Close closes the log and releases the run lock. It is safe to call twice.
func (r *Run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	if r.log != nil {
		err = r.log.Close()
	}
	if r.lockf != nil {
		if e := r.lockf.Close(); err == nil {
			err = e
		}
	}
	return err
}
