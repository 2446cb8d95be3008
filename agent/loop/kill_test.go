package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/anthropic"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/agent/loop"
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// The kill tests run the loop in a child process (this test binary again)
// and SIGKILL it at a chosen point.
func TestMain(m *testing.M) {
	if mode := os.Getenv("CAIRN_LOOP_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

func child(mode string) int {
	ctx := context.Background()
	prov, err := anthropic.New("claude-test", llm.Options{BaseURL: os.Getenv("CAIRN_LOOP_URL"), APIKey: "k", RetryBase: time.Millisecond})
	if err != nil {
		println(err.Error())
		return 2
	}
	goroot, modcache, err := sandbox.GoToolchain(ctx)
	if err != nil {
		println(err.Error())
		return 2
	}
	ex, err := sandbox.Select(ctx, sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	if err != nil {
		println(err.Error())
		return 2
	}
	o := loop.Options{Repo: os.Getenv("CAIRN_LOOP_REPO"), Provider: prov, Executor: ex, NoGate: true}
	var out *loop.Outcome
	if mode == "run" {
		c, err := task.Parse([]byte(contractYAML))
		if err != nil {
			println(err.Error())
			return 2
		}
		o.Contract = c
		out, err = loop.Run(ctx, o)
		if err != nil {
			println(err.Error())
			return 1
		}
	} else {
		out, err = loop.Resume(ctx, os.Getenv("CAIRN_LOOP_RUN"), o)
		if err != nil {
			println(err.Error())
			return 1
		}
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}

func startChild(t testing.TB, mode, repo, url, run string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CAIRN_LOOP_CHILD="+mode, "CAIRN_LOOP_REPO="+repo, "CAIRN_LOOP_URL="+url, "CAIRN_LOOP_RUN="+run)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// runDir is the one run under the repository (the runs directory holds
// its .gitignore besides).
func runDir(t testing.TB, repo string) string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(repo, ".cairn", "runs"))
	var runs []string
	for _, e := range ents {
		if e.IsDir() {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) != 1 {
		return ""
	}
	return filepath.Join(repo, ".cairn", "runs", runs[0])
}

// waitEvent waits until the run's log satisfies cond.
func waitEvent(t *testing.T, repo string, cond func([]state.Event) bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if dir := runDir(t, repo); dir != "" {
			if v, err := state.Read(dir); err == nil && cond(v.Events) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the run never reached the kill point")
}

func toolCallOpen(tool string) func([]state.Event) bool {
	return func(evs []state.Event) bool {
		open := map[string]bool{}
		for _, e := range evs {
			var d struct{ ID, Tool string }
			json.Unmarshal(e.Data, &d)
			switch e.Kind {
			case state.KindToolCall:
				if d.Tool == tool {
					open[d.ID] = true
				}
			case state.KindToolResult:
				delete(open, d.ID)
			}
		}
		return len(open) > 0
	}
}

// TestKillAndResume kills a run at several points and resumes it: the run
// completes with the fix applied once and the regression test created
// once — the same final diff as a run never killed.
func TestKillAndResume(t *testing.T) {
	points := []struct {
		name string
		// hold, when set, holds the model's Nth call so the kill lands
		// mid model call.
		holdCall int
		wait     func([]state.Event) bool
	}{
		{name: "mid-model-call", holdCall: 4},
		{name: "mid-tool-call", wait: toolCallOpen("run_tests")},
		{name: "between-steps", wait: func(evs []state.Event) bool {
			// the checkpoint after the edit's step
			edited := false
			for _, e := range evs {
				if e.Kind == state.KindSnapshot {
					edited = true
				}
				if edited && e.Kind == state.KindCheckpoint {
					return true
				}
			}
			return false
		}},
	}
	var diffs []string
	for _, p := range points {
		t.Run(p.name, func(t *testing.T) {
			repo := fixtureRepo(t)
			hold := make(chan struct{})
			defer func() {
				select {
				case <-hold:
				default:
					close(hold)
				}
			}()
			base := fixer(fixActions())
			turn := func(c *llmtest.Call) llmtest.Reply {
				r := base(c)
				if c.N == p.holdCall {
					r.Hold = hold
				}
				return r
			}
			srv := llmtest.New(repeatTurn(turn, 30)...)
			defer srv.Close()
			cmd, out := startChild(t, "run", repo, srv.AnthropicBaseURL(), "")
			if p.holdCall > 0 {
				deadline := time.Now().Add(3 * time.Minute)
				for len(srv.Calls()) < p.holdCall && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
			} else {
				waitEvent(t, repo, p.wait)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			close(hold)
			dir := runDir(t, repo)
			if dir == "" {
				t.Fatalf("no run directory; child said:\n%s", out)
			}
			cmd, out = startChild(t, "resume", repo, srv.AnthropicBaseURL(), dir)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("resume: %v\n%s", err, out)
			}
			var o loop.Outcome
			if err := json.Unmarshal(out.Bytes(), &o); err != nil {
				t.Fatalf("resume output: %v\n%s", err, out)
			}
			if o.Status != loop.StatusUnverified {
				t.Fatalf("resumed run ended %s (%s)", o.Status, o.Reason)
			}
			evs := events(t, dir)
			if len(kinds(evs, state.KindResumed)) != 1 {
				t.Errorf("want one resumed event")
			}
			for i, e := range evs {
				if e.Seq != int64(i+1) {
					t.Fatalf("event %d has seq %d: the log has a gap", i, e.Seq)
				}
			}
			work := filepath.Join(dir, "work")
			mapper, _ := os.ReadFile(filepath.Join(work, "server/mapper.go"))
			if n := strings.Count(string(mapper), "ArtifactURL: t.ArtifactURL"); n != 1 {
				t.Errorf("the fix is in the mapper %d times:\n%s", n, mapper)
			}
			git(t, work, "add", "-A")
			diffs = append(diffs, git(t, work, "diff", "--cached", git(t, work, "rev-list", "--max-parents=0", "HEAD")))
		})
	}
	for i := 1; i < len(diffs); i++ {
		if diffs[i] != diffs[0] {
			t.Errorf("final diff after %s differs from after %s:\n%s\n---\n%s", points[i].name, points[0].name, diffs[i], diffs[0])
		}
	}
}
