package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gate/verify"
	"github.com/cairn-dev/cairn/internal/must"
)

// gateRepo is testdata/apps/artifact-dropped with the gate's overlay (a
// test of the mapper, a CI workflow) committed: server/mapper.go drops
// the artifact URL.
func gateRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	repo := t.TempDir()
	for _, src := range []string{"../../testdata/apps/artifact-dropped", "../../gate/verify/testdata/overlay"} {
		if out, err := exec.Command("cp", "-r", src+"/.", repo+"/").CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "base")
	return repo
}

func git(t *testing.T, repo string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func edit(t *testing.T, repo, rel, old, new string) {
	t.Helper()
	p := filepath.Join(repo, rel)
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(b, []byte(old)) {
		t.Fatalf("edit %s: %q not found (%v)", rel, old, err)
	}
	os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644)
}

// theFix is the artifact link fix with its regression test.
func theFix(t *testing.T, repo string) {
	edit(t, repo, "server/mapper.go", "Status: t.Status,\n", "Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n")
	os.WriteFile(filepath.Join(repo, "server/artifact_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestArtifact(t *testing.T) {\n\tif ToResponse(Task{ArtifactURL: \"u\"}).ArtifactURL != \"u\" {\n\t\tt.Fatal(\"dropped\")\n\t}\n}\n"), 0o644)
}

// stopCall is a Claude Code Stop input.
func stopCall(repo, session string, active bool) string {
	return string(must.JSON(map[string]any{"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": repo, "hook_event_name": "Stop",
		"stop_hook_active": active, "last_assistant_message": "Done: all tests pass."}))
}

// stopOptions give each test a gate directory of its own that outlives
// it, so the Go build cache stays warm across runs (a cold one is seeded
// from a sibling's). Two gate runs of different changes in one process
// with one gate directory once had the second's impact analysis select no
// tests — the embedded index's process caches were keyed by the epoch's
// name, which the gate's rebuilt workspace index reuses; fixed, and held
// by gate/evidence's TestRunTwiceInOneProcess.
func stopOptions(t *testing.T, repo string) Options {
	t.Helper()
	root := filepath.Join(os.TempDir(), "cairn-hook-test-gate")
	dir := filepath.Join(root, t.Name())
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if e.Name() != t.Name() {
				verify.SeedBuildCache(dir, filepath.Join(root, e.Name()))
				break
			}
		}
	}
	return Options{Event: Stop, Client: ClaudeCode, Repo: repo, GateDir: dir, Reruns: -1}
}

func decodeClaude(t *testing.T, out string) claudeOut {
	t.Helper()
	var c claudeOut
	if out != "" {
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("stdout is not Claude Code's JSON: %v\n%s", err, out)
		}
	}
	return c
}

func needGate(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the gate")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("no bubblewrap")
	}
}

// TestHookStopNoChange: no change at all, the stop goes on silently.
func TestHookStopNoChange(t *testing.T) {
	repo := gateRepo(t)
	out, stderr, code := call(t, stopOptions(t, repo), stopCall(repo, "quiet", false))
	if out != "" || code != 0 {
		t.Errorf("no change: want silence, got exit %d %s %s", code, out, stderr)
	}
}

// TestHookStopWeakenedTest: the model took an assertion out of an
// existing test: the stop is blocked and the reason names the tamper
// finding, the test and what to do.
func TestHookStopWeakenedTest(t *testing.T) {
	needGate(t)
	repo := gateRepo(t)
	edit(t, repo, "server/mapper_test.go", "\tif got.Status != \"done\" {\n\t\tt.Errorf(\"Status = %q, want done\", got.Status)\n\t}\n", "")
	out, stderr, code := call(t, stopOptions(t, repo), stopCall(repo, "weak", false))
	c := decodeClaude(t, out)
	if code != 0 || c.Decision != "block" {
		t.Fatalf("want a block, got exit %d %s %s", code, out, stderr)
	}
	for _, want := range []string{"fewer_assertions", "server/mapper_test.go", "TestToResponseKeepsIDAndStatus", "Restore the test's assertions", ".cairn/runs/hook-weak-1/CHANGE.md", "1 of 3"} {
		if !strings.Contains(c.Reason, want) {
			t.Errorf("the reason does not name %q:\n%s", want, c.Reason)
		}
	}
}

// TestHookStopFailingTestThenUnverified: a change that breaks a test the
// impact analysis selects is blocked naming the test; after MaxBlocks
// blocked stops in a row the agent may stop, and the user is told
// plainly that the change is unverified. Each run's evidence is where
// the answer says.
func TestHookStopFailingTestThenUnverified(t *testing.T) {
	needGate(t)
	repo := gateRepo(t)
	edit(t, repo, "server/mapper.go", "ID:     t.ID,", "ID:     t.ID + 1,")
	o := stopOptions(t, repo)
	o.MaxBlocks = 1
	out, stderr, _ := call(t, o, stopCall(repo, "fail", false))
	c := decodeClaude(t, out)
	if c.Decision != "block" || !strings.Contains(c.Reason, `criterion "impact-tests" (impact_tests) fail`) ||
		!strings.Contains(c.Reason, "TestToResponseKeepsIDAndStatus: fail") || !strings.Contains(c.Reason, "ID = 8, want 7") {
		t.Fatalf("want a block naming the failing test, got %s %s", out, stderr)
	}
	// the agent stops again without fixing anything
	out, stderr, code := call(t, o, stopCall(repo, "fail", true))
	c = decodeClaude(t, out)
	if code != 0 || c.Decision != "" || !strings.Contains(c.SystemMessage, "UNVERIFIED") || !strings.Contains(stderr, "UNVERIFIED") {
		t.Fatalf("after the blocks: want the stop allowed, unverified, got exit %d %s %s", code, out, stderr)
	}
	for _, n := range []string{"1", "2"} {
		dir := filepath.Join(repo, RunsDir, "hook-fail-"+n)
		for _, f := range []string{"CHANGE.md", "evidence.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("evidence: %v", err)
			}
		}
	}
	// the runs and the state stay out of git
	st, _ := exec.Command("git", "-C", repo, "status", "--porcelain").Output()
	if strings.Contains(string(st), ".cairn") {
		t.Errorf("cairn's files show in git status:\n%s", st)
	}
	// a new turn starts a new run of blocks
	out, _, _ = call(t, o, stopCall(repo, "fail", false))
	if c := decodeClaude(t, out); c.Decision != "block" {
		t.Errorf("a new turn: want a block again, got %s", out)
	}
}

// TestHookStopCorrectFix: the fix with its regression test passes the
// default contract (the tests impact selects) and a session contract in
// .cairn/task.yaml (regression proof, the server's tests, vet, scope);
// the stop goes on and the user is told where the evidence is.
func TestHookStopCorrectFix(t *testing.T) {
	needGate(t)
	repo := gateRepo(t)
	theFix(t, repo)
	out, stderr, code := call(t, stopOptions(t, repo), stopCall(repo, "fix", false))
	c := decodeClaude(t, out)
	if code != 0 || c.Decision != "" || !strings.Contains(c.SystemMessage, "passed the default checks (2 criteria") ||
		!strings.Contains(c.SystemMessage, "nothing here proves it fixes anything") || !strings.Contains(c.SystemMessage, ".cairn/runs/hook-fix-1/CHANGE.md") {
		t.Fatalf("default contract: want the stop allowed, got exit %d %s %s", code, out, stderr)
	}
	b, err := os.ReadFile(filepath.Join(repo, RunsDir, "hook-fix-1", "evidence.json"))
	if err != nil || !bytes.Contains(b, []byte(`"impact-tests"`)) {
		t.Errorf("evidence of the default contract: %v", err)
	}

	contract, _ := os.ReadFile("../../gate/verify/testdata/contract.yaml")
	os.MkdirAll(filepath.Join(repo, ".cairn"), 0o755)
	os.WriteFile(filepath.Join(repo, TaskFile), contract, 0o644)
	out, stderr, _ = call(t, stopOptions(t, repo), stopCall(repo, "fix", false))
	if c := decodeClaude(t, out); c.Decision != "" || !strings.Contains(c.SystemMessage, "passed the verification gate (4 criteria of .cairn/task.yaml)") {
		t.Fatalf("task contract: want the stop allowed, got %s %s", out, stderr)
	}
	b, err = os.ReadFile(filepath.Join(repo, RunsDir, "hook-fix-2", "evidence.json"))
	if err != nil || !bytes.Contains(b, []byte(`"regression"`)) {
		t.Errorf("evidence of the task contract: %v", err)
	}
}
