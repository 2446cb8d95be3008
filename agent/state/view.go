package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// View is a run read without its lock, for `cairn agent status|log|show`:
// what was durable when Read looked.
type View struct {
	Dir        string
	Meta       Meta
	Contract   []byte
	Events     []Event
	Checkpoint *TaskState // nil when none was saved yet
	// Torn is the size of a torn last line of the log, which Read leaves
	// for Open to repair (0 when the log ends cleanly). The run's driver
	// may simply be mid-write.
	Torn int
}

// Read reads a run without taking its lock and without writing anything.
// A corrupt line before the last is a *CorruptError.
func Read(dir string) (*View, error) {
	meta, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	v := &View{Dir: dir, Meta: meta}
	if v.Contract, err = os.ReadFile(filepath.Join(dir, ContractFile)); err != nil {
		return nil, fmt.Errorf("run %s: read contract: %w", meta.RunID, err)
	}
	// The checkpoint first: its events are then surely in the log read
	// after it (the log is fsynced before a checkpoint names its seq).
	if v.Checkpoint, err = readCheckpoint(dir); err != nil {
		return nil, err
	}
	p, err := readLog(dir)
	if err != nil {
		return nil, err
	}
	v.Events, v.Torn = p.events, len(p.torn)
	return v, nil
}

// Summary is one line of `cairn agent list`.
type Summary struct {
	ID        string    `json:"id"`
	Dir       string    `json:"dir"`
	Status    string    `json:"status"`
	Created   time.Time `json:"created"`
	Objective string    `json:"objective,omitempty"`
	Model     string    `json:"model,omitempty"`
	Steps     int       `json:"steps"`
	CostUSD   float64   `json:"cost_usd"`
	Events    int       `json:"events"`
	// Err says why a directory under root could not be read as a run
	// (then Status is "unreadable").
	Err string `json:"error,omitempty"`
}

// List summarises the runs under root (REPO/.cairn/runs), newest first.
// A missing root is no runs; a directory that is not a readable run is
// listed with Status "unreadable" and the reason, not skipped.
func List(root string) ([]Summary, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []Summary
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		out = append(out, summarize(filepath.Join(root, e.Name()), e.Name()))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

func summarize(dir, name string) Summary {
	s := Summary{ID: name, Dir: dir}
	v, err := Read(dir)
	if err != nil {
		s.Status, s.Err = "unreadable", err.Error()
		if fi, err := os.Stat(dir); err == nil {
			s.Created = fi.ModTime().UTC()
		}
		return s
	}
	s.ID, s.Created, s.Model, s.Events = v.Meta.RunID, v.Meta.Created, v.Meta.Model, len(v.Events)
	s.Status = "running"
	if st := v.Checkpoint; st != nil {
		s.Status, s.Objective, s.Steps, s.CostUSD = st.Status, st.Objective, st.Step, st.Usage.CostUSD
	}
	// A run_finished event after the checkpoint has the last word.
	for i := len(v.Events) - 1; i >= 0; i-- {
		ev := v.Events[i]
		if v.Checkpoint != nil && ev.Seq <= v.Checkpoint.Seq {
			break
		}
		if ev.Kind == KindRunFinished {
			var d struct {
				Status string `json:"status"`
			}
			if json.Unmarshal(ev.Data, &d) == nil && d.Status != "" {
				s.Status = d.Status
			}
			break
		}
	}
	if s.Steps == 0 && len(v.Events) > 0 {
		s.Steps = v.Events[len(v.Events)-1].Step
	}
	return s
}
