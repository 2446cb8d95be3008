package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Child processes: the test binary re-invoked with STATE_TEST_CHILD set runs
// one of these instead of the tests, so kills and locks are between real
// processes.
func TestMain(m *testing.M) {
	if mode := os.Getenv("STATE_TEST_CHILD"); mode != "" {
		if err := child(mode, os.Getenv("STATE_TEST_DIR")); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(mode, dir string) error {
	switch mode {
	case "append": // append forever, some lines large enough for a kill to tear
		r, err := Open(dir)
		if err != nil {
			return err
		}
		fmt.Println("ready")
		big := strings.Repeat("x", 8<<20)
		for i := 0; ; i++ {
			data := map[string]any{"i": i}
			if i%2 == 1 {
				data["blob"] = big
			}
			if _, err := r.Append(KindToolResult, i, data); err != nil {
				return err
			}
		}
	case "checkpoint": // save ever larger checkpoints forever
		r, err := Open(dir)
		if err != nil {
			return err
		}
		fmt.Println("ready")
		from := 1
		if st, err := r.Checkpoint(); err != nil {
			return err
		} else if st != nil {
			from = st.Step + 1
		}
		for i := from; ; i++ {
			st := &TaskState{Step: i, Status: "running", Objective: "obj", Brief: strings.Repeat("b", 1<<20+i)}
			if err := r.SaveCheckpoint(st); err != nil {
				return err
			}
		}
	case "hold": // hold the lock until killed
		r, err := Open(dir)
		if err != nil {
			return err
		}
		defer r.Close()
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "decide":
		return Decide(dir, os.Getenv("STATE_TEST_REQUEST"), Answer{Approve: true, By: "child", Note: "ok"})
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// startChild starts a child process in mode on dir and waits for it to say
// it is ready.
func startChild(t *testing.T, mode, dir string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"STATE_TEST_CHILD=" + mode, "STATE_TEST_DIR=" + dir}, env...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child %s did not start: %q %v; stderr: %s", mode, line, err, stderr.String())
	}
	return cmd
}

func newRun(t *testing.T) *Run {
	t.Helper()
	r, err := Create(filepath.Join(t.TempDir(), "runs"), Meta{Repo: "/repo", Base: "abc", ContractHash: "sha256:00", Model: "anthropic:m"}, []byte("objective: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func checkContiguous(t *testing.T, evs []Event) {
	t.Helper()
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i+1, ev.Seq)
		}
	}
}

func TestCreateLayout(t *testing.T) {
	r := newRun(t)
	if !regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`).MatchString(r.ID) {
		t.Errorf("id %q", r.ID)
	}
	fi, err := os.Stat(filepath.Join(r.Dir, ContractFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Errorf("contract mode %v, want read-only", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, ContractFile)); string(b) != "objective: x\n" {
		t.Errorf("contract %q", b)
	}
	if r.Meta().Format != FormatVersion || r.Meta().Created.IsZero() {
		t.Errorf("meta %+v", r.Meta())
	}
	ev, err := r.Append(KindRunStarted, 0, map[string]any{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Seq != 1 || ev.ContractHash != "sha256:00" || string(ev.Data) != `{"a":1}` {
		t.Errorf("event %+v", ev)
	}
	if _, err := Create(filepath.Dir(r.Dir), r.Meta(), nil); err == nil {
		t.Error("a second Create of the same id succeeded")
	}
	if _, err := Create(t.TempDir(), Meta{RunID: "../x"}, nil); err == nil {
		t.Error("a run id with a slash was accepted")
	}
}

func TestNewIDSorts(t *testing.T) {
	a := NewID()
	time.Sleep(1100 * time.Millisecond)
	b := NewID()
	if !(a < b) {
		t.Errorf("%s !< %s", a, b)
	}
}

// A process appending in a loop is killed with SIGKILL several times, at
// random points and, every other round, while the log's last line is
// visibly half written; each reopen finds contiguous seqs, and a torn last
// line is cut and followed by a recovered event that names it.
func TestKillDuringAppend(t *testing.T) {
	r := newRun(t)
	dir := r.Dir
	r.Close()
	log := filepath.Join(dir, EventsFile)
	torn, prev := 0, 0 // prev: the events the last reopen found
	for round := range 8 {
		cmd := startChild(t, "append", dir)
		if round%2 == 0 {
			time.Sleep(time.Duration(40+round*23) * time.Millisecond)
		} else if !waitMidWrite(log, 10*time.Second) {
			t.Fatalf("round %d: never saw a half-written line", round)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		raw, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		wasTorn := len(raw) > 0 && raw[len(raw)-1] != '\n'
		r, err := Open(dir)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		evs, err := r.Events()
		if err != nil {
			t.Fatal(err)
		}
		checkContiguous(t, evs)
		if !wasTorn && len(evs) == prev {
			// killed before it appended anything (a slow start under
			// load): the last event, maybe the previous round's
			// recovered one, is not this round's
			r.Close()
			continue
		}
		prev = len(evs)
		last := evs[len(evs)-1]
		if wasTorn {
			torn++
			if last.Kind != KindRecovered {
				t.Fatalf("round %d: torn log, last event %s", round, last.Kind)
			}
			var d map[string]any
			json.Unmarshal(last.Data, &d)
			if d["dropped_seq"] != float64(last.Seq) || d["dropped_kind"] != KindToolResult {
				t.Errorf("recovered event %s", last.Data)
			}
		} else if last.Kind == KindRecovered {
			t.Errorf("round %d: a clean log got a recovered event", round)
		}
		r.Close()
	}
	if torn == 0 {
		t.Error("no kill tore a line: the test did not exercise the repair")
	}
	t.Logf("%d of 8 kills tore the last line", torn)
}

// waitMidWrite polls the log until its last byte is not a newline: a line
// is being written.
func waitMidWrite(log string, d time.Duration) bool {
	f, err := os.Open(log)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 1)
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		fi, err := f.Stat()
		if err == nil && fi.Size() > 0 {
			if _, err := f.ReadAt(b, fi.Size()-1); err == nil && b[0] != '\n' {
				return true
			}
		}
	}
	return false
}

// A torn last line (written by hand, so the test does not depend on when a
// kill lands) is repaired; a torn line is never left in place.
func TestTornLastLineRepaired(t *testing.T) {
	for _, tail := range []string{`{"seq":4,"time":"2026-12-02T01:00:00Z","kind":"tool_call","st`, `{"seq":4`, "\x00\x00\x00\x00", `{"seq":4,"time":"2026-12-02T01:00:00Z","kind":"tool_call","step":1,"contract_hash":""}`} {
		r := newRun(t)
		for i := range 3 {
			r.Append(KindToolCall, i, nil)
		}
		r.Close()
		f, _ := os.OpenFile(filepath.Join(r.Dir, EventsFile), os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString(tail)
		f.Close()
		if v, err := Read(r.Dir); err != nil || len(v.Events) != 3 || v.Torn != len(tail) {
			t.Fatalf("Read of a torn log: %v %+v", err, v)
		}
		r2, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := r2.Events()
		checkContiguous(t, evs)
		if len(evs) != 4 || evs[3].Kind != KindRecovered {
			t.Fatalf("tail %q: events %+v", tail, evs)
		}
		if !strings.Contains(string(evs[3].Data), fmt.Sprintf(`"dropped_bytes":%d`, len(tail))) {
			t.Errorf("recovered %s", evs[3].Data)
		}
		if ev, err := r2.Append(KindToolResult, 1, nil); err != nil || ev.Seq != 5 {
			t.Errorf("append after repair: %+v %v", ev, err)
		}
		r2.Close()
		if _, err := Read(r.Dir); err != nil {
			t.Errorf("log after repair: %v", err)
		}
	}
}

// A bad line before the last is refused with its line number, and the log
// is left as it was.
func TestCorruptMiddleRefused(t *testing.T) {
	for name, corrupt := range map[string]func(lines []string) []string{
		"garbage":  func(l []string) []string { l[2] = `{"seq":3,"kind":`; return l },
		"gap":      func(l []string) []string { return append(l[:2], l[3:]...) },
		"repeated": func(l []string) []string { l[2] = l[1]; return l },
		"unknown":  func(l []string) []string { l[2] = strings.Replace(l[2], `"step"`, `"stop"`, 1); return l },
	} {
		t.Run(name, func(t *testing.T) {
			r := newRun(t)
			for i := range 5 {
				r.Append(KindToolCall, i, map[string]int{"i": i})
			}
			r.Close()
			p := filepath.Join(r.Dir, EventsFile)
			b, _ := os.ReadFile(p)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			bad := strings.Join(corrupt(lines), "\n") + "\n"
			os.WriteFile(p, []byte(bad), 0o644)
			_, err := Open(r.Dir)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Line != 3 {
				t.Fatalf("Open: %v, want a corrupt line 3", err)
			}
			if !strings.Contains(err.Error(), "events.jsonl:3") {
				t.Errorf("message %q does not name the line", err)
			}
			if after, _ := os.ReadFile(p); string(after) != bad {
				t.Error("Open rewrote a corrupt log")
			}
			if _, err := Read(r.Dir); !errors.As(err, &ce) {
				t.Errorf("Read: %v", err)
			}
			// The lock was released: the run can be opened once repaired.
			os.WriteFile(p, b, 0o644)
			if r2, err := Open(r.Dir); err != nil {
				t.Errorf("reopen after repair: %v", err)
			} else {
				r2.Close()
			}
		})
	}
}

func TestConcurrentAppend(t *testing.T) {
	r := newRun(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				if _, err := r.Append(KindNote, g, map[string]int{"g": g, "i": i}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	evs, err := r.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 320 || r.LastSeq() != 320 {
		t.Fatalf("%d events, last seq %d", len(evs), r.LastSeq())
	}
	checkContiguous(t, evs)
}

// Two processes: the second Open is refused with the first's pid, and the
// lock is released when the holder is killed.
func TestLockExclusion(t *testing.T) {
	r := newRun(t)
	if _, err := Open(r.Dir); err == nil {
		t.Fatal("Open while Create holds the lock succeeded")
	}
	r.Close()
	cmd := startChild(t, "hold", r.Dir)
	_, err := Open(r.Dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Fatalf("Open against a live holder: %v", err)
	}
	if want := fmt.Sprintf("run %s is being driven by pid %d", r.ID, cmd.Process.Pid); err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	// Read needs no lock.
	if _, err := Read(r.Dir); err != nil {
		t.Errorf("Read beside a holder: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	r2, err := Open(r.Dir)
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	r2.Close()
}

func TestCheckpointRoundTrip(t *testing.T) {
	r := newRun(t)
	if st, err := r.Checkpoint(); st != nil || err != nil {
		t.Fatalf("no checkpoint yet: %v %v", st, err)
	}
	r.Append(KindRunStarted, 0, nil)
	r.Append(KindToolCall, 1, nil)
	st := &TaskState{Step: 1, Status: "running", Objective: "fix it", Facts: []Note{{1, "f"}}, Plan: []PlanStep{{"a", true}},
		Pending: &PendingCall{Step: 1, ToolUseID: "t1", Tool: "edit", Input: json.RawMessage(`{"path":"a.go"}`)},
		Usage:   Totals{InputTokens: 10, CostUSD: 0.5, Wall: 1.5}, Repeats: map[string]int{"x": 2}}
	if err := r.SaveCheckpoint(st); err != nil {
		t.Fatal(err)
	}
	if st.Seq != 2 {
		t.Errorf("seq %d, want 2", st.Seq)
	}
	got, err := r.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	a, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("round trip:\n%s\n%s", a, b)
	}
	evs, _ := r.Events()
	if last := evs[len(evs)-1]; last.Kind != KindCheckpoint || last.Seq != 3 {
		t.Errorf("last event %+v", last)
	}
	// A checkpoint ahead of its log is refused on Open.
	r.Close()
	os.WriteFile(filepath.Join(r.Dir, EventsFile), nil, 0o644)
	if _, err := Open(r.Dir); err == nil || !strings.Contains(err.Error(), "checkpoint reflects event 2") {
		t.Errorf("Open with a checkpoint ahead of the log: %v", err)
	}
}

// A process saving large checkpoints in a loop is read by this one the
// whole time — never a half checkpoint — and killed; the checkpoint left is
// whole, no older than the last one seen, and within the log.
func TestCheckpointAtomic(t *testing.T) {
	r := newRun(t)
	dir := r.Dir
	r.Close()
	for round := range 3 {
		cmd := startChild(t, "checkpoint", dir)
		seen, reads := 0, 0
		if st, _ := readCheckpoint(dir); st != nil {
			seen = st.Step
		}
		// read until the child has saved a few more, then kill it
		target := seen + 3 + round
		for deadline := time.Now().Add(30 * time.Second); seen < target; {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the child saved no checkpoint past %d", round, seen)
			}
			st, err := readCheckpoint(dir)
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("a reader saw a broken checkpoint: %v", err)
			}
			if st != nil {
				reads++
				if st.Step < seen || len(st.Brief) != 1<<20+st.Step {
					t.Fatalf("checkpoint step %d brief %d after step %d", st.Step, len(st.Brief), seen)
				}
				seen = st.Step
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.Checkpoint()
		if err != nil || st == nil || st.Step < seen {
			t.Fatalf("after the kill: %+v %v (seen %d)", st, err, seen)
		}
		if st.Seq > r.LastSeq() {
			t.Fatalf("checkpoint seq %d beyond the log's %d", st.Seq, r.LastSeq())
		}
		r.Close()
		t.Logf("round %d: %d reads, last step seen %d", round, reads, seen)
	}
}

const (
	awsKey   = "AKIAQWERTYUIOPASDFGH"
	ghToken  = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
	assigned = "h8Jk2Lm9Qz4Rt6Vw"
)

func TestRedaction(t *testing.T) {
	r := newRun(t)
	data := map[string]any{
		"cmd":     []string{"curl", "-H", "Authorization: token " + ghToken},
		"env":     "AWS_ACCESS_KEY_ID=" + awsKey,
		"api_key": assigned,
		"nested":  map[string]any{"text": "key " + awsKey + " here", "n": 3.25, "ok": true, "nil": nil},
		ghToken:   "a token as a member name",
	}
	ev, err := r.Append(KindToolCall, 1, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SaveCheckpoint(&TaskState{Status: "running", Recent: []Exchange{{Tool: "read", Result: "token=" + ghToken}}}); err != nil {
		t.Fatal(err)
	}
	req, err := r.Ask(Request{Tool: "shell", Input: json.RawMessage(`{"argv":["aws","--key","` + awsKey + `"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(req.Input), awsKey) {
		t.Errorf("Ask returned the secret: %s", req.Input)
	}
	for _, f := range []string{EventsFile, CheckpointFile, filepath.Join(RequestsDir, "r1.json")} {
		b, err := os.ReadFile(filepath.Join(r.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{awsKey, ghToken, assigned} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %s", f, s)
			}
		}
	}
	var got map[string]any
	if err := json.Unmarshal(ev.Data, &got); err != nil {
		t.Fatalf("redacted data is not JSON: %v\n%s", err, ev.Data)
	}
	if got["api_key"] != "[REDACTED:credential-assignment]" {
		t.Errorf("api_key %v", got["api_key"])
	}
	if n := got["nested"].(map[string]any); n["text"] != "key [REDACTED:aws-access-key] here" || n["n"] != 3.25 || n["ok"] != true {
		t.Errorf("nested %v", n)
	}
	// Member order and everything else are kept.
	ev, err = r.Append(KindToolCall, 1, struct {
		Z     string `json:"z"`
		Token string `json:"token"`
		A     []int  `json:"a"`
	}{"zz", "tok=" + ghToken, []int{1, 2}})
	if want := `{"z":"zz","token":"tok=[REDACTED:github-token]","a":[1,2]}`; err != nil || string(ev.Data) != want {
		t.Errorf("data %s, want %s (%v)", ev.Data, want, err)
	}
}

// Decide from another process (no lock) is seen by the driver's Answer; a
// second answer and an unknown id are refused.
func TestPermissionRequests(t *testing.T) {
	r := newRun(t)
	r.Append(KindRunStarted, 3, nil)
	r1, err := r.Ask(Request{Tool: "shell", Input: json.RawMessage(`{"argv":["make"]}`), Decision: json.RawMessage(`{"verdict":"ask"}`)})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := r.Ask(Request{Tool: "edit"})
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID != "r1" || r2.ID != "r2" || r1.Created.IsZero() {
		t.Fatalf("ids %s %s", r1.ID, r2.ID)
	}
	if a, err := r.Answer("r1"); a != nil || err != nil {
		t.Fatalf("unanswered: %v %v", a, err)
	}
	p, err := Pending(r.Dir)
	if err != nil || len(p) != 2 || p[0].ID != "r1" || string(p[0].Input) != `{"argv":["make"]}` {
		t.Fatalf("pending %+v %v", p, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STATE_TEST_CHILD=decide", "STATE_TEST_DIR="+r.Dir, "STATE_TEST_REQUEST=r1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("decide in a child: %v %s", err, out)
	}
	a, err := r.Answer("r1")
	if err != nil || a == nil || !a.Approve || a.By != "child" || a.Time.IsZero() {
		t.Fatalf("answer %+v %v", a, err)
	}
	if p, _ := Pending(r.Dir); len(p) != 1 || p[0].ID != "r2" {
		t.Errorf("pending after the answer %+v", p)
	}
	if err := Decide(r.Dir, "r1", Answer{Approve: false}); !errors.Is(err, ErrAnswered) {
		t.Errorf("second answer: %v", err)
	}
	if a, _ := r.Answer("r1"); !a.Approve {
		t.Error("the second answer replaced the first")
	}
	for _, id := range []string{"r9", "../meta", "r0", ""} {
		if err := Decide(r.Dir, id, Answer{Approve: true}); !errors.Is(err, ErrUnknownRequest) {
			t.Errorf("Decide %q: %v", id, err)
		}
	}
	evs, _ := r.Events()
	if evs[1].Kind != KindPermissionRequest || evs[1].Step != 3 || !strings.Contains(string(evs[1].Data), `"id":"r1"`) {
		t.Errorf("request event %+v", evs[1])
	}
}

// Of racing answers exactly one lands.
func TestDecideRace(t *testing.T) {
	r := newRun(t)
	r.Ask(Request{Tool: "shell"})
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Decide(r.Dir, "r1", Answer{Approve: i%2 == 0, By: strconv.Itoa(i)}); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			} else if !errors.Is(err, ErrAnswered) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d answers landed", won)
	}
}

func TestList(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	if l, err := List(root); err != nil || l != nil {
		t.Fatalf("no root: %v %v", l, err)
	}
	base := time.Date(2020, 12, 2, 1, 0, 0, 0, time.UTC)
	mk := func(id string, created time.Time) *Run {
		r, err := Create(root, Meta{RunID: id, Created: created, Model: "openai:m"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	a := mk("20201202-010000-aaaaaa", base)
	b := mk("20201202-030000-bbbbbb", base.Add(2*time.Hour))
	c := mk("20201202-020000-cccccc", base.Add(time.Hour))
	a.Append(KindRunStarted, 0, nil)
	a.SaveCheckpoint(&TaskState{Step: 7, Status: "running", Objective: "obj a", Usage: Totals{CostUSD: 1.25}})
	a.Append(KindRunFinished, 7, map[string]string{"status": "verified"})
	b.SaveCheckpoint(&TaskState{Step: 2, Status: "paused", Objective: "obj b"})
	_ = c
	os.Mkdir(filepath.Join(root, "junk"), 0o755)
	l, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range l {
		got = append(got, s.ID+":"+s.Status)
	}
	// junk has no meta: listed as unreadable, dated by its mtime (now).
	want := "junk:unreadable 20201202-030000-bbbbbb:paused 20201202-020000-cccccc:running 20201202-010000-aaaaaa:verified"
	if strings.Join(got, " ") != want {
		t.Errorf("list %s\nwant %s", strings.Join(got, " "), want)
	}
	if s := l[3]; s.Steps != 7 || s.CostUSD != 1.25 || s.Objective != "obj a" || s.Model != "openai:m" || s.Events != 3 {
		t.Errorf("summary %+v", s)
	}
	j, err := json.Marshal(l[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"id":"20201202-030000-bbbbbb"`) || !strings.Contains(string(j), `"objective":"obj b"`) {
		t.Errorf("json %s", j)
	}
}

func TestFormatChecked(t *testing.T) {
	r := newRun(t)
	r.Close()
	p := filepath.Join(r.Dir, MetaFile)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(`"format": 1`), []byte(`"format": 9`), 1), 0o644)
	var fe *FormatError
	if _, err := Open(r.Dir); !errors.As(err, &fe) || fe.Got != 9 {
		t.Errorf("Open: %v", err)
	}
	if _, err := Read(r.Dir); !errors.As(err, &fe) {
		t.Errorf("Read: %v", err)
	}
}

func TestClosed(t *testing.T) {
	r := newRun(t)
	r.Close()
	if _, err := r.Append(KindNote, 0, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}
