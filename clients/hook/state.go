package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// StateDir holds the hooks' per-session state, relative to the repository
// root; RunsDir the evidence bundles the stop hook writes. Both keep
// themselves out of git with a .gitignore of "*" (as the index directory
// and the agent's runs do), so the gate's working candidate never
// includes them.
const (
	StateDir = ".cairn/hooks"
	RunsDir  = ".cairn/runs"
)

// stateFormat is the state file's format version.
//
//	1  base, blocks, runs
const stateFormat = 1

// state is one session's: <StateDir>/<session>.json.
type state struct {
	Format int `json:"format"`
	// Base is the commit checked out when the session started: the
	// default contract's base, so a change the session committed is still
	// the session's change.
	Base string `json:"base,omitempty"`
	// Blocks counts the stops blocked in a row; Runs the gate runs (the
	// evidence directories' numbers).
	Blocks int `json:"blocks"`
	Runs   int `json:"runs"`
}

// sessionName is a session id made a plain file name.
func sessionName(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() >= 64 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' && b.Len() > 0 {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "nosession"
	}
	return b.String()
}

func statePath(repo, session string) string {
	return filepath.Join(repo, StateDir, sessionName(session)+".json")
}

// loadState reads a session's state; a missing file is a fresh state.
func loadState(repo, session string) (*state, error) {
	data, err := os.ReadFile(statePath(repo, session))
	if errors.Is(err, os.ErrNotExist) {
		return &state{Format: stateFormat}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the session's state: %w", err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil || s.Format != stateFormat {
		// an unreadable or other-format state starts over: it only
		// counts blocks
		return &state{Format: stateFormat}, nil
	}
	return &s, nil
}

// save writes the state aside and renames it into place.
func (s *state) save(repo, session string) error {
	dir := filepath.Join(repo, StateDir)
	if err := ignoredDir(dir, "the hooks' session state"); err != nil {
		return err
	}
	s.Format = stateFormat
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode the session's state: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".state-*")
	if err != nil {
		return fmt.Errorf("write the session's state: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), statePath(repo, session))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write the session's state: %w", err)
	}
	return nil
}

// ignoredDir makes dir with a .gitignore of "*" unless it has one.
func ignoredDir(dir, what string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("keep %s out of git: %w", what, err)
	}
	_, err = fmt.Fprintf(f, "# written by cairn: %s is not part of the repository\n*\n", what)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
