package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Request is a permission request: a tool call the policy's "ask" mode
// holds until a person answers it with `cairn agent approve|deny RUN ID`
// from another process. It lives in DIR/requests/ID.json.
type Request struct {
	ID       string          `json:"id"`
	Tool     string          `json:"tool"`
	Input    json.RawMessage `json:"input,omitempty"`
	Decision json.RawMessage `json:"decision,omitempty"` // the policy's decision, for the person
	Created  time.Time       `json:"created"`
}

// Answer is a person's answer to a Request, in DIR/requests/ID.answer.json.
type Answer struct {
	Approve bool      `json:"approve"`
	By      string    `json:"by,omitempty"`
	Note    string    `json:"note,omitempty"`
	Time    time.Time `json:"time"`
}

// Errors Decide returns.
var (
	ErrUnknownRequest = errors.New("no such permission request")
	ErrAnswered       = errors.New("permission request already answered")
)

var requestIDRE = regexp.MustCompile(`^r([1-9][0-9]{0,8})$`)

// Ask records a permission request: it assigns the next id (r1, r2…),
// writes the request atomically under DIR/requests/ and appends a
// `permission_request` event. The run waits for Answer.
func (r *Run) Ask(req Request) (Request, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return req, ErrClosed
	}
	dir := filepath.Join(r.Dir, RequestsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return req, fmt.Errorf("ask permission: %w", err)
	}
	ids, err := requestNumbers(dir)
	if err != nil {
		return req, fmt.Errorf("ask permission: %w", err)
	}
	next := 1
	if len(ids) > 0 {
		next = ids[len(ids)-1] + 1
	}
	req.ID = "r" + strconv.Itoa(next)
	if req.Created.IsZero() {
		req.Created = time.Now().UTC()
	}
	raw, err := redactJSON(req)
	if err != nil {
		return req, fmt.Errorf("ask permission: %w", err)
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return req, fmt.Errorf("ask permission: %w", err)
	}
	if err := writeExclusive(filepath.Join(dir, req.ID+".json"), append(raw, '\n'), 0o644); err != nil {
		return req, fmt.Errorf("ask permission: %w", err)
	}
	_, err = r.appendLocked(Event{Kind: KindPermissionRequest, Step: r.step, ContractHash: r.meta.ContractHash, Data: raw})
	return req, err
}

// requestNumbers lists the numbers of the requests in dir, ascending.
func requestNumbers(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if m := requestIDRE.FindStringSubmatch(name); m != nil {
			n, _ := strconv.Atoi(m[1])
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns, nil
}

// Decide answers the request id of the run in dir. It needs no run lock
// (the run's driver waits in another process): the answer file is
// published atomically and exclusively, so of two answers exactly one
// lands; an unknown id is ErrUnknownRequest, a second answer ErrAnswered.
// The driver, seeing the answer, appends the permission_decision event.
func Decide(dir, requestID string, a Answer) error {
	if !requestIDRE.MatchString(requestID) {
		return fmt.Errorf("answer request %q: %w (ids are r1, r2…)", requestID, ErrUnknownRequest)
	}
	rd := filepath.Join(dir, RequestsDir)
	if _, err := os.Stat(filepath.Join(rd, requestID+".json")); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("answer request %s: %w", requestID, ErrUnknownRequest)
	} else if err != nil {
		return fmt.Errorf("answer request %s: %w", requestID, err)
	}
	if a.Time.IsZero() {
		a.Time = time.Now().UTC()
	}
	raw, err := redactJSON(a)
	if err != nil {
		return fmt.Errorf("answer request %s: %w", requestID, err)
	}
	err = writeExclusive(filepath.Join(rd, requestID+".answer.json"), append(raw, '\n'), 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("answer request %s: %w", requestID, ErrAnswered)
	}
	if err != nil {
		return fmt.Errorf("answer request %s: %w", requestID, err)
	}
	return nil
}

// Answer reads the answer to request id, nil when it is not answered yet.
func (r *Run) Answer(id string) (*Answer, error) {
	return readAnswer(r.Dir, id)
}

func readAnswer(dir, id string) (*Answer, error) {
	if !requestIDRE.MatchString(id) {
		return nil, fmt.Errorf("read answer %q: %w", id, ErrUnknownRequest)
	}
	b, err := os.ReadFile(filepath.Join(dir, RequestsDir, id+".answer.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read answer %s: %w", id, err)
	}
	var a Answer
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("read answer %s: %w", id, err)
	}
	return &a, nil
}

// Pending lists the run's unanswered requests, oldest first.
func Pending(dir string) ([]Request, error) {
	rd := filepath.Join(dir, RequestsDir)
	ns, err := requestNumbers(rd)
	if err != nil {
		return nil, fmt.Errorf("pending requests: %w", err)
	}
	var out []Request
	for _, n := range ns {
		id := "r" + strconv.Itoa(n)
		a, err := readAnswer(dir, id)
		if err != nil {
			return nil, err
		}
		if a != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(rd, id+".json"))
		if err != nil {
			return nil, fmt.Errorf("pending requests: %w", err)
		}
		var req Request
		if err := json.Unmarshal(b, &req); err != nil {
			return nil, fmt.Errorf("pending requests: %s: %w", id, err)
		}
		out = append(out, req)
	}
	return out, nil
}
