package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// writeAtomic publishes data at path: written aside, fsynced, renamed over
// path, the directory fsynced. A reader sees the old file or the new one,
// never a part of either; a crash at any point leaves one of the two.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeAside(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("publish %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// writeExclusive publishes data at path like writeAtomic, but fails with an
// error satisfying errors.Is(err, os.ErrExist) when path already exists
// (link(2) never replaces), so of two racing writers exactly one wins.
func writeExclusive(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeAside(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	if err := os.Remove(tmp); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeAside writes data to a fresh temporary file beside path and fsyncs
// it; the caller publishes or removes it.
func writeAside(path string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

// syncDir fsyncs a directory, making the names in it (a rename, a new
// file) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// LockedError is returned by Open (and Create) when another process drives
// the run.
type LockedError struct {
	RunID string
	PID   int // 0 when the holder did not record itself yet
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("run %s is being driven by pid %d", e.RunID, e.PID)
	}
	return fmt.Sprintf("run %s is being driven by another process", e.RunID)
}

// lock takes the run's exclusive lock: flock(2) on DIR/LOCK, held as long
// as the returned file is open (the kernel releases it when the process
// dies, however it dies). The holder's pid is written into the file for the
// message a second process gets.
func lock(dir, runID string) (*os.File, error) {
	p := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run %s: open lock: %w", runID, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &LockedError{RunID: runID, PID: lockHolder(p)}
		}
		return nil, fmt.Errorf("run %s: lock: %w", runID, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// lockHolder reads the pid the lock's holder wrote (0 when unknown).
func lockHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}
