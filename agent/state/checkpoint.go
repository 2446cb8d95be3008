package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// checkpointFile is checkpoint.json: the task state with its format.
type checkpointFile struct {
	Format int        `json:"format"`
	State  *TaskState `json:"state"`
}

// SaveCheckpoint persists st as the run's latest checkpoint and appends a
// `checkpoint` event. st.Seq is set to the last event's sequence number
// (the checkpoint reflects every event up to it). The file is written
// aside, fsynced, renamed over the previous one and the directory fsynced:
// a reader, or a resume after a crash at any point, sees the previous
// checkpoint or this one, whole. Secrets in the state are redacted.
func (r *Run) SaveCheckpoint(st *TaskState) error {
	if st == nil {
		return errors.New("save checkpoint: no state")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if r.broken != nil {
		return r.broken
	}
	st.Seq = r.seq
	raw, err := redactJSON(checkpointFile{Format: FormatVersion, State: st})
	if err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	if err := writeAtomic(filepath.Join(r.Dir, CheckpointFile), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	data, err := json.Marshal(map[string]any{"seq": st.Seq, "step": st.Step, "status": st.Status, "bytes": len(raw) + 1})
	if err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	_, err = r.appendLocked(Event{Kind: KindCheckpoint, Step: st.Step, ContractHash: r.meta.ContractHash, Data: data})
	return err
}

// Checkpoint reads the latest checkpoint, nil when none was saved yet.
func (r *Run) Checkpoint() (*TaskState, error) {
	return readCheckpoint(r.Dir)
}

func readCheckpoint(dir string) (*TaskState, error) {
	path := filepath.Join(dir, CheckpointFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	var cf checkpointFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", path, err)
	}
	if cf.Format != FormatVersion {
		return nil, &FormatError{Dir: dir, Got: cf.Format, Want: FormatVersion}
	}
	if cf.State == nil {
		return nil, fmt.Errorf("read checkpoint %s: no state", path)
	}
	return cf.State, nil
}
