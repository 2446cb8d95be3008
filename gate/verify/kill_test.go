package verify

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// TestKilledGateLeavesNothing: a gate killed with SIGKILL while a test
// hangs in its sandbox leaves no process and no mount behind, and the next
// run on the same directory starts clean and passes.
func TestKilledGateLeavesNothing(t *testing.T) {
	shared(t)
	repo := fixtureRepo(t)
	realFix(t, repo)
	addRegressionTest(t, repo)
	write(t, repo, "server/hang_test.go", "package main\n\nimport (\n\t\"os\"\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestHangs(t *testing.T) {\n\tos.WriteFile(\"hang.started\", nil, 0o644)\n\ttime.Sleep(time.Hour)\n}\n")
	dir := filepath.Join(t.TempDir(), "gate")
	os.MkdirAll(dir, 0o755)
	// The build cache of the other tests keeps this one quick.
	os.Symlink(filepath.Join(keptGateDir, "cache"), filepath.Join(dir, "cache"))

	child := exec.Command(os.Args[0], "-test.run=^TestGateChild$", "-test.count=1")
	child.Env = append(os.Environ(), "CAIRN_VERIFY_CHILD_REPO="+repo, "CAIRN_VERIFY_CHILD_DIR="+dir)
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if m, _ := filepath.Glob(filepath.Join(dir, "run", "*", "work", "server", "hang.started")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("the hung test never started:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(processesNaming(dir)) == 0 {
		t.Fatal("no process of the sandbox is seen before the kill: the probe below proves nothing")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	var left []string
	for wait := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		left = processesNaming(dir)
		if len(left) == 0 || time.Now().After(wait) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("processes left after SIGKILL: %v", left)
	}
	if m, _ := os.ReadFile("/proc/self/mounts"); strings.Contains(string(m), dir) {
		t.Errorf("mounts left under %s", dir)
	}
	// The next run: the hung test removed, the gate passes on a clean run dir.
	os.Remove(filepath.Join(repo, "server/hang_test.go"))
	r := gateIn(t, repo, dir)
	if r.Verdict != Pass {
		dump(t, r)
		t.Fatalf("the run after the kill: %v %s", r.Verdict, r.Reason)
	}
	if wt := git(t, repo, "worktree", "list"); strings.Count(wt, "\n") != 0 {
		t.Errorf("worktrees left: %s", wt)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "run")); len(ents) != 0 {
		t.Errorf("run dir not clean: %v", ents)
	}
}

// TestGateChild is TestKilledGateLeavesNothing's gate process.
func TestGateChild(t *testing.T) {
	repo, dir := os.Getenv("CAIRN_VERIFY_CHILD_REPO"), os.Getenv("CAIRN_VERIFY_CHILD_DIR")
	if repo == "" {
		t.Skip("the gate process of TestKilledGateLeavesNothing")
	}
	gateIn(t, repo, dir)
}

func gateIn(t *testing.T, repo, dir string) *Report {
	t.Helper()
	_, ex := shared(t)
	c, err := task.ParseFile("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := task.Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Verify(context.Background(), Options{Attempt: a, Repo: repo, Candidate: Candidate{Working: repo}, Executor: ex, Dir: dir, Limits: sandbox.Limits{Wall: 10 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// processesNaming lists the processes whose command line mentions s.
func processesNaming(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
