package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-dev/cairn/agent/llm/llmtest"
)

// withoutBwrap sets a PATH with go and git but no bwrap: bubblewrap cannot
// start, as on a host without it.
func withoutBwrap(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"go", "git"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	if _, err := exec.LookPath("bwrap"); err == nil {
		t.Fatal("bwrap still on PATH")
	}
}

// hostListener counts the connections to a port on the host's loopback.
func hostListener(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), &n
}

// dialRepo is a Go module whose one test dials addr on the host, with a
// committed policy that asks for the unisolated sandbox and the network;
// the worktree holds a small change to judge.
func dialRepo(t *testing.T, addr string) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	files := map[string]string{
		"go.mod":             "module example.com/dial\n\ngo 1.22\n",
		"dial.go":            "package dial\n\nfunc Answer() int { return 41 }\n",
		"dial_test.go":       fmt.Sprintf("package dial\n\nimport (\n\t\"net\"\n\t\"testing\"\n)\n\nfunc TestDial(t *testing.T) {\n\tc, err := net.Dial(\"tcp\", %q)\n\tif err != nil {\n\t\tt.Fatalf(\"the host is out of reach: %%v\", err)\n\t}\n\tc.Close()\n}\n", addr),
		".cairn/policy.yaml": "sandbox: {allow_weaker: unisolated}\nnetwork: true\n",
	}
	for name, body := range files {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(repo, "dial.go"), []byte("package dial\n\nfunc Answer() int { return 42 }\n"), 0o644)
	return repo
}

// TestVerifyIsolationIsTheUsers: a repository's committed policy cannot
// weaken the gate's sandbox. Under bubblewrap, its test cannot reach a
// listener on the host's 127.0.0.1, whatever the policy asks; without
// bubblewrap, the repository's allow_weaker is refused with why and the
// flag to pass; with the user's flag the test runs unisolated — and does
// reach the host — and stderr and the evidence say so.
func TestVerifyIsolationIsTheUsers(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user policy file
	addr, reached := hostListener(t)
	repo := dialRepo(t, addr)
	task := filepath.Join(t.TempDir(), "task.yaml")
	os.WriteFile(task, []byte("objective: Answer the question.\nscope: {write: [\"*.go\"]}\ncriteria:\n  - {id: tests, text: the tests pass, check: {tests: \"./...\"}}\n"), 0o644)
	gate := filepath.Join(t.TempDir(), "gate")
	verify := func(extra ...string) (string, string, int) {
		return cairn(t, append([]string{"verify", "--repo", repo, "--task", task, "--working", "--dir", gate}, extra...)...)
	}

	// bubblewrap: the test runs, and the host is out of its reach.
	out, errs, code := verify()
	if !strings.Contains(out, "TestDial") || !strings.Contains(out, "backend bwrap") {
		t.Fatalf("under bwrap: exit %d, the test did not run:\n%s\n%s", code, out, errs)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("a test under bwrap reached the host's 127.0.0.1 listener (%d connections)", n)
	}
	for _, want := range []string{"sandbox.allow_weaker: unisolated (.cairn/policy.yaml)", "network: true (.cairn/policy.yaml)"} {
		if !strings.Contains(errs, "ignored: the repository's policy asks for "+want) {
			t.Errorf("stderr does not report the ignored %q:\n%s", want, errs)
		}
	}

	// No bubblewrap: the repository's allow_weaker does not count.
	withoutBwrap(t)
	out, errs, code = verify()
	if code != 1 || !strings.Contains(errs, "--allow-weaker-sandbox unisolated") || !strings.Contains(errs, "not installed") ||
		!strings.Contains(errs, ".cairn/policy.yaml asks for allow_weaker") {
		t.Errorf("without bwrap, the repository's allow_weaker: exit %d, want 1 with why and the flag:\n%s\n%s", code, out, errs)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the repository's policy ran its test unisolated (%d connections)", n)
	}
	t.Logf("without bwrap:\n%s", errs)

	// The user's flag: unisolated, said on stderr and in the evidence.
	ev := filepath.Join(t.TempDir(), "evidence")
	out, errs, code = verify("--allow-weaker-sandbox", "unisolated", "--evidence", ev)
	if !strings.Contains(out, "backend unisolated") || !strings.Contains(errs, "WARNING: commands run unisolated") {
		t.Fatalf("with --allow-weaker-sandbox: exit %d\n%s\n%s", code, out, errs)
	}
	if reached.Load() == 0 {
		t.Error("the unisolated run did not reach the host: was the test run at all?")
	}
	t.Logf("with the flag:\n%s", errs)
	var b struct {
		Isolation struct {
			Backend  string
			Isolated bool
			Degraded string
			Weakened []string
		}
	}
	data, err := os.ReadFile(filepath.Join(ev, "evidence.json"))
	if err != nil || json.Unmarshal(data, &b) != nil {
		t.Fatalf("evidence.json: %v", err)
	}
	iso := b.Isolation
	if iso.Backend != "unisolated" || iso.Isolated || !strings.Contains(iso.Degraded, "not installed") ||
		!strings.Contains(strings.Join(iso.Weakened, "\n"), "sandbox.allow_weaker: unisolated (--allow-weaker-sandbox)") {
		t.Errorf("evidence isolation %+v", iso)
	}
	if md, _ := os.ReadFile(filepath.Join(ev, "CHANGE.md")); !strings.Contains(string(md), "Not isolated") {
		t.Errorf("CHANGE.md does not say the checks ran unisolated:\n%s", md)
	}
}

// TestAgentIsolationIsTheUsers: the agent too refuses a repository's
// allow_weaker when bubblewrap cannot run, and with the user's flag runs
// unisolated, saying so on stderr and in its event log.
func TestAgentIsolationIsTheUsers(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	repo := agentRepo(t)
	os.MkdirAll(filepath.Join(repo, ".cairn"), 0o755)
	os.WriteFile(filepath.Join(repo, ".cairn/policy.yaml"), []byte("sandbox: {allow_weaker: unisolated}\nnetwork: true\n"), 0o644)
	srv := llmtest.New(llmtest.Use("finish", `{"root_cause":"none","summary":"nothing to do"}`))
	defer srv.Close()
	t.Setenv("ANTHROPIC_BASE_URL", srv.AnthropicBaseURL())
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	taskFile := filepath.Join(t.TempDir(), "task.yaml")
	os.WriteFile(taskFile, []byte("objective: Keep the artifact link (ToResponse drops ArtifactURL).\nscope: {write: [\"server/**\"]}\ncriteria:\n  - {id: tests, text: server tests pass, check: {tests: \"./server/...\"}}\n"), 0o644)
	withoutBwrap(t)
	args := []string{"agent", "run", "--repo", repo, "--task", taskFile, "--model", "anthropic:claude-test", "--no-verify", "--json"}

	out, errs, code := cairn(t, args...)
	if code != 1 || !strings.Contains(errs, "--allow-weaker-sandbox unisolated") || !strings.Contains(errs, ".cairn/policy.yaml asks for allow_weaker") {
		t.Fatalf("without bwrap, the repository's allow_weaker: exit %d, want 1 with why and the flag:\n%s\n%s", code, out, errs)
	}

	out, errs, code = cairn(t, append(args, "--allow-weaker-sandbox", "unisolated")...)
	if code != 0 || !strings.Contains(errs, "WARNING: commands run unisolated") || !strings.Contains(errs, "ignored: the repository's policy asks for network: true") {
		t.Fatalf("with --allow-weaker-sandbox: exit %d\n%s\n%s", code, out, errs)
	}
	var res struct {
		EventLog string `json:"event_log"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	f, err := os.Open(res.EventLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var found bool
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Kind string
			Data struct {
				Backend  string
				Isolated bool
				Degraded string
				Weakened []string
				Ignored  []string
			}
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Kind != "sandbox" {
			continue
		}
		found = true
		d := ev.Data
		if d.Backend != "unisolated" || d.Isolated || d.Degraded == "" || len(d.Weakened) == 0 || !strings.Contains(strings.Join(d.Ignored, "\n"), "network") {
			t.Errorf("sandbox event %+v", d)
		}
	}
	if !found {
		t.Error("no sandbox event in the run's log")
	}
}
