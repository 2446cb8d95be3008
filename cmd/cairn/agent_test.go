package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/gate/task"
)

func agentRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	cp := exec.Command("cp", "-r", "../../testdata/apps/artifact-dropped", repo)
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".cairn/\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo
}

func cairn(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// TestAgentCLI runs the agent from the command line against the scripted
// model server (the real Anthropic SDK client inside cairn), then reads
// the run back through status, list, log and show, and applies it to a
// branch.
func TestAgentCLI(t *testing.T) {
	repo := agentRepo(t)
	srv := llmtest.New(
		llmtest.Use("read", `{"path":"server/mapper.go"}`),
		llmtest.Use("edit", `{"path":"server/mapper.go","old":"\t\tStatus: t.Status,\n","new":"\t\tStatus: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"}`),
		llmtest.Use("finish", `{"root_cause":"the mapper dropped ArtifactURL","summary":"map it"}`),
	)
	defer srv.Close()
	t.Setenv("ANTHROPIC_BASE_URL", srv.AnthropicBaseURL())
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	taskFile := filepath.Join(t.TempDir(), "task.yaml")
	os.WriteFile(taskFile, []byte("objective: After a page refresh the download link of a finished task is still shown (ToResponse drops ArtifactURL).\nscope: {write: [\"server/**\"]}\ncriteria:\n  - {id: tests, text: server tests pass, check: {tests: \"./server/...\"}}\n  - {id: scope, text: in scope, check: {scope: true}}\n"), 0o644)

	out, errs, code := cairn(t, "agent", "run", "--repo", repo, "--task", taskFile, "--model", "anthropic:claude-test", "--no-verify", "--json")
	if code != 0 {
		t.Fatalf("agent run exit %d\n%s\n%s", code, out, errs)
	}
	var res struct {
		RunID    string `json:"run_id"`
		Status   string `json:"status"`
		EventLog string `json:"event_log"`
		Evidence string `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Status != "unverified" || res.RunID == "" {
		t.Fatalf("run: %+v", res)
	}
	if _, err := os.Stat(res.EventLog); err != nil {
		t.Errorf("event log: %v", err)
	}
	if res.Evidence == "" {
		t.Error("no evidence path")
	}
	if out, _, code := cairn(t, "agent", "status", "--repo", repo, res.RunID); code != 0 || !strings.Contains(out, "unverified") {
		t.Errorf("status exit %d: %s", code, out)
	}
	if out, _, code := cairn(t, "agent", "list", "--repo", repo); code != 0 || !strings.Contains(out, res.RunID) {
		t.Errorf("list exit %d: %s", code, out)
	}
	out, _, code = cairn(t, "agent", "log", "--repo", repo, "--json", res.RunID)
	if code != 0 || strings.Count(out, "\n") < 8 || !strings.Contains(out, `"kind":"tool_call"`) {
		t.Errorf("log exit %d: %s", code, out)
	}
	if out, _, code := cairn(t, "agent", "show", "--repo", repo, res.RunID); code != 0 || !strings.Contains(out, "the mapper dropped ArtifactURL") {
		t.Errorf("show exit %d: %s", code, out)
	}
	// An unverified run is not applied without --force.
	if _, errs, code := cairn(t, "agent", "apply", "--repo", repo, res.RunID); code == 0 || !strings.Contains(errs, "not verified") {
		t.Errorf("apply of an unverified run: exit %d %s", code, errs)
	}
	if out, errs, code := cairn(t, "agent", "apply", "--repo", repo, "--force", "--branch", "fix-artifact", res.RunID); code != 0 {
		t.Fatalf("apply --branch: exit %d %s %s", code, out, errs)
	}
	show, err := exec.Command("git", "-C", repo, "show", "fix-artifact").CombinedOutput()
	if err != nil || !strings.Contains(string(show), "+\t\tArtifactURL: t.ArtifactURL,") || !strings.Contains(string(show), "Cause: the mapper dropped ArtifactURL") {
		t.Errorf("branch commit: %v\n%s", err, show)
	}
	if st, _ := exec.Command("git", "-C", repo, "status", "--porcelain").Output(); len(st) != 0 {
		t.Errorf("apply --branch changed the worktree: %s", st)
	}
	// Unknown runs and requests are clear errors.
	if _, errs, code := cairn(t, "agent", "status", "--repo", repo, "nope"); code != 3 || !strings.Contains(errs, "no run") {
		t.Errorf("status of an unknown run: exit %d %s", code, errs)
	}
	if _, errs, code := cairn(t, "agent", "approve", "--repo", repo, res.RunID, "r9"); code == 0 {
		t.Errorf("approve of an unknown request: exit %d %s", code, errs)
	}
}

func TestAgentRunUsage(t *testing.T) {
	repo := agentRepo(t)
	if _, errs, code := cairn(t, "agent", "run", "--repo", repo, "--model", "anthropic:x"); code != 2 {
		t.Errorf("no task nor goal: exit %d %s", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("objective: x\ncriteria:\n  - {id: a, text: t, check: {tests: 3, command: [x]}}\n"), 0o644)
	if _, errs, code := cairn(t, "agent", "run", "--repo", repo, "--model", "anthropic:x", "--task", bad); code != 2 || !strings.Contains(errs, "criteria[0]") {
		t.Errorf("malformed contract: exit %d %s", code, errs)
	}
	if _, errs, code := cairn(t, "agent", "run", "--repo", repo, "--model", "nosuch:x", "--task", bad); code != 2 {
		t.Errorf("unknown provider: exit %d %s", code, errs)
	}
	// A cost ceiling with a model the price table lacks is refused before
	// anything runs, and the message names the flag that gives a price.
	costly := filepath.Join(t.TempDir(), "costly.yaml")
	os.WriteFile(costly, []byte("objective: After a page refresh the download link of a finished task is still shown (ToResponse drops ArtifactURL).\nscope: {write: [\"server/**\"]}\ncriteria:\n  - {id: tests, text: server tests pass, check: {tests: \"./server/...\"}}\nbudgets: {cost_usd: 0.5}\n"), 0o644)
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	if _, errs, code := cairn(t, "agent", "run", "--repo", repo, "--model", "anthropic:unpriced-model", "--task", costly); code != 2 || !strings.Contains(errs, "--prices") || !strings.Contains(errs, "unpriced-model") {
		t.Errorf("cost ceiling with an unpriced model: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cairn", "runs")); !os.IsNotExist(err) {
		t.Errorf("a refused run left a runs directory: %v", err)
	}
	// With its price from --prices the same run starts.
	srv := llmtest.New(llmtest.Use("finish", `{"root_cause":"r","summary":"s"}`))
	defer srv.Close()
	t.Setenv("ANTHROPIC_BASE_URL", srv.AnthropicBaseURL())
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	os.WriteFile(prices, []byte("unpriced-model: {input_per_mtok: 1, output_per_mtok: 2}\n"), 0o644)
	if out, errs, code := cairn(t, "agent", "run", "--repo", repo, "--model", "anthropic:unpriced-model", "--prices", prices, "--task", costly, "--no-verify"); code != 0 || !strings.Contains(out, "unverified") {
		t.Errorf("cost ceiling with the model priced by --prices: exit %d %s %s", code, out, errs)
	}
}

// TestAgentDraft drafts a contract from a goal naming the mapper: the
// criteria come from impact, and it parses and raises no questions.
func TestAgentDraft(t *testing.T) {
	repo := agentRepo(t)
	os.WriteFile(filepath.Join(repo, "server", "mapper_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestToResponse(t *testing.T) {\n\tif ToResponse(Task{ID: 1}).ID != 1 {\n\t\tt.Fatal(\"id\")\n\t}\n}\n"), 0o644)
	if _, errs, code := cairn(t, "index", "--repo", repo, "-q"); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	out, errs, code := cairn(t, "agent", "draft", "--repo", repo, "ToResponse must keep ArtifactURL after a refresh")
	if code != 0 {
		t.Fatalf("draft exit %d: %s", code, errs)
	}
	c, err := task.Parse([]byte(out))
	if err != nil {
		t.Fatalf("draft does not parse: %v\n%s", err, out)
	}
	if qs := task.Questions(c); len(qs) > 0 {
		t.Errorf("draft raises questions %v:\n%s", qs, out)
	}
	if !strings.Contains(out, `"./server"`) || !strings.Contains(out, "server/**") || !strings.Contains(out, "TestToResponse") {
		t.Errorf("draft lacks the tests and scope impact found:\n%s", out)
	}
}
