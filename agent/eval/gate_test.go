package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/agent/internal/agenttest"
	"github.com/cairn-dev/cairn/eval"
)

// The synthetic instance: testdata/apps/artifact-dropped with a CI
// workflow as the base of example/tasks; the fix maps the artifact URL
// (server/mapper.go), the test patch adds the test that fails without it.

const fixtureApp = "../../testdata/apps/artifact-dropped"

// keptGateRoot keeps the gate directories' Go build cache between test
// processes (a cold one costs minutes on a busy machine); the base results
// go at the start, so every process computes its own.
var keptGateRoot = filepath.Join(os.TempDir(), "cairn-eval-test-gate")

func TestMain(m *testing.M) {
	filepath.WalkDir(keptGateRoot, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "base" && filepath.Base(filepath.Dir(p)) == "cache" {
			os.RemoveAll(p)
			return filepath.SkipDir
		}
		return nil
	})
	os.Exit(m.Run())
}

const fixTest = `package main

import "testing"

func TestToResponseKeepsArtifact(t *testing.T) {
	got := ToResponse(Task{ID: 7, Status: "done", ArtifactURL: "https://files.example/a.zip"})
	if got.ArtifactURL != "https://files.example/a.zip" {
		t.Errorf("ArtifactURL = %q, want the stored one", got.ArtifactURL)
	}
	if got.ID != 7 {
		t.Fatalf("ID = %d, want 7", got.ID)
	}
}
`

// helperTest is a test file of the base with an assertion helper, which
// fixTestHelper calls: helper_neutralised makes it vacuous.
const helperTest = `package main

import "testing"

// wantString fails t when got is not want.
func wantString(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func TestToResponseKeepsStatus(t *testing.T) {
	wantString(t, "Status", ToResponse(Task{ID: 1, Status: "running"}).Status, "running")
}
`

const fixTestHelper = `package main

import "testing"

func TestToResponseKeepsArtifact(t *testing.T) {
	got := ToResponse(Task{ID: 7, Status: "done", ArtifactURL: "https://files.example/a.zip"})
	if got.ArtifactURL != "https://files.example/a.zip" {
		t.Errorf("ArtifactURL = %q, want the stored one", got.ArtifactURL)
	}
	wantString(t, "Status", got.Status, "done")
}
`

// syntheticInstance makes ROOT/example/tasks and the instance of it.
func syntheticInstance(t *testing.T) (root string, in Instance) {
	return syntheticInstanceWith(t, false)
}

// syntheticInstanceWith: with helper, the base has server/status_test.go
// (helperTest) and the test patch's test calls its helper.
func syntheticInstanceWith(t *testing.T, helper bool) (root string, in Instance) {
	t.Helper()
	root = t.TempDir()
	repo := filepath.Join(root, "example", "tasks")
	agenttest.CopyTree(t, fixtureApp, repo)
	os.MkdirAll(filepath.Join(repo, ".github", "workflows"), 0o755)
	os.WriteFile(filepath.Join(repo, ".github", "workflows", "ci.yml"), []byte("on: push\njobs: {}\n"), 0o644)
	test := fixTest
	if helper {
		os.WriteFile(filepath.Join(repo, "server", "status_test.go"), []byte(helperTest), 0o644)
		test = fixTestHelper
	}
	agenttest.Git(t, repo, "init", "-q", "-b", "main")
	agenttest.Git(t, repo, "add", ".")
	agenttest.Git(t, repo, "commit", "-q", "-m", "base")
	base := agenttest.Git(t, repo, "rev-parse", "HEAD")

	mapper := filepath.Join(repo, "server", "mapper.go")
	src, _ := os.ReadFile(mapper)
	os.WriteFile(mapper, []byte(strings.Replace(string(src), "Status: t.Status,\n", "Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n", 1)), 0o644)
	fix := agenttest.Git(t, repo, "diff", base) + "\n"
	agenttest.Git(t, repo, "checkout", "-q", "--", ".")
	os.WriteFile(filepath.Join(repo, "server", "mapper_test.go"), []byte(test), 0o644)
	agenttest.Git(t, repo, "add", "-N", ".")
	testPatch := agenttest.Git(t, repo, "diff", base) + "\n"
	agenttest.Git(t, repo, "reset", "-q")
	os.Remove(filepath.Join(repo, "server", "mapper_test.go"))

	in = Instance{ID: "example__tasks-1", Org: "example", Repo: "tasks", Title: "the artifact disappears after a refresh",
		FixPatch: fix, TestPatch: testPatch, F2P: []string{"TestToResponseKeepsArtifact"}}
	in.Base.SHA = base
	return root, in
}

// TestGateSuiteSynthetic runs every variant of the synthetic instance
// (with an assertion helper in the base's tests) through the real gate
// (bubblewrap): the reference passes, nothing else does, and the rows,
// summary and baseline comparison say so.
func TestGateSuiteSynthetic(t *testing.T) {
	root, in := syntheticInstanceWith(t, true)
	work := t.TempDir()
	partial := filepath.Join(work, "rows.partial.jsonl")
	res, err := RunGate(context.Background(), GateOptions{Instances: []Instance{in}, ReposRoot: root, Work: work, GateRoot: keptGateRoot,
		Executor: agenttest.Executor(t), Naive: true, NaiveEnv: os.Environ(), Progress: testWriter{t}, Partial: partial})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(Variants) {
		t.Fatalf("%d rows, want %d", len(res.Rows), len(Variants))
	}
	// every row was on disk as soon as it was made
	if b, err := os.ReadFile(partial); err != nil || strings.Count(string(b), "\n") != len(Variants) || !strings.Contains(string(b), `"variant":"reference"`) {
		t.Errorf("rows.partial.jsonl: %v\n%s", err, b)
	}
	for _, r := range res.Rows {
		if !r.OK {
			t.Errorf("%s: verdict %s, expected %s (caught %v, note %s)", r.Variant, r.Verdict, r.Expected, r.Caught, r.Note)
		}
		if r.Verdict != "n/a" && r.Seconds <= 0 {
			t.Errorf("%s: no time measured", r.Variant)
		}
	}
	byV := map[string]GateRow{}
	for _, r := range res.Rows {
		byV[r.Variant] = r
	}
	if byV["reference"].Verdict != "pass" {
		t.Errorf("reference: %s", byV["reference"].Verdict)
	}
	// what catches each mutation is the gate's own finding, not luck
	for v, want := range map[string]string{"ci_edited": "ci_config_edited", "out_of_scope": "outside_write_scope",
		"assertions_neutralised": "unreachable_assertions", "no_change": "regression fail",
		// the vacuous test fails at the base only for want of its constant,
		// and runs none of the change
		"vacuous_regression": "regression fail",
		// wantString lost its assertion: TestToResponseKeepsStatus, which
		// reaches it, has fewer
		"helper_neutralised": "fewer_assertions",
		"harness_exit":       "harness_changed"} {
		if !slices.Contains(byV[v].Caught, want) {
			t.Errorf("%s caught by %v, want %s among them", v, byV[v].Caught, want)
		}
	}
	for v, want := range map[string]string{"vacuous_regression": "TestFixedIssue1 in server/cairn_fixed_test.go (package main)",
		"helper_neutralised": "helper wantString in server/status_test.go", "harness_exit": "TestMain added in server/cairn_main_test.go"} {
		if byV[v].Note != want {
			t.Errorf("%s: note %q, want %q", v, byV[v].Note, want)
		}
	}
	// the naive check accepts what the gate refuses
	if p := byV["skip_added"].NaivePass; p == nil || !*p {
		t.Errorf("skip_added: the plain go test should pass (a skipped test exits 0), got %v", p)
	}
	c := res.Detail.Confusion
	if c["reference"]["pass"] != 1 || c["test_only"]["pass"] != 0 || c["no_change"]["fail"]+c["no_change"]["blocked"] != 1 {
		t.Errorf("confusion matrix %v", c)
	}
	if res.Summary.Metrics["as_expected"] != 1 || res.Summary.Metrics["not_pass_flagged"] != 1 {
		t.Errorf("metrics %v", res.Summary.Metrics)
	}
	if b, err := os.ReadFile(filepath.Join(work, "reports", in.ID, "ci_edited.json")); err != nil || !strings.Contains(string(b), "ci_config_edited") {
		t.Errorf("the ci_edited variant's report: %v %.200s", err, b)
	}
	if len(res.Detail.Instances) != 1 || res.Detail.Instances[0].TotalSeconds <= 0 {
		t.Errorf("instances %+v", res.Detail.Instances)
	}

	out := t.TempDir()
	if err := eval.Write(out, res.Summary, res.RowList()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(out, "rows.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(Variants) {
		t.Fatalf("rows.jsonl has %d lines", len(lines))
	}
	var row map[string]any
	json.Unmarshal([]byte(lines[0]), &row)
	for _, k := range []string{"instance_id", "variant", "verdict", "seconds", "key", "outcome"} {
		if _, ok := row[k]; !ok {
			t.Errorf("row without %s: %s", k, lines[0])
		}
	}
	// a baseline whose reference failed: the comparison lists it
	os.WriteFile(filepath.Join(out, "rows.jsonl"), []byte(strings.Replace(string(data), `"outcome":"pass"`, `"outcome":"fail"`, 1)), 0o644)
	cmp, err := eval.Compare(out, res.Summary, res.RowList())
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Changed) != 1 || cmp.Changed[0].Key != in.ID+"/reference" || cmp.Changed[0].Current != "pass" {
		t.Errorf("changed %+v", cmp.Changed)
	}

	// a second run reuses the prepared clone (cached by base revision)
	sentinel := filepath.Join(work, "repos", "example", "tasks@"+in.Base.SHA, ".git", "cairn-eval-sentinel")
	os.WriteFile(sentinel, nil, 0o644)
	res2, err := RunGate(context.Background(), GateOptions{Instances: []Instance{in}, ReposRoot: root, Work: work, GateRoot: keptGateRoot,
		Executor: agenttest.Executor(t), Variants: []string{"ci_edited"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sentinel); err != nil {
		t.Errorf("the prepared clone was made again: %v", err)
	}
	if len(res2.Rows) != 1 || !res2.Rows[0].OK {
		t.Errorf("second run %+v", res2.Rows)
	}
}

func TestGateBadInput(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(f, []byte(`{"instance_id":"x","org":"o","repo":"r","base":{"sha":"abc"},"fix_patch":"d","test_patch":"d"}`+"\n"), 0o644)
	if _, err := LoadInstances(f); err == nil || !strings.Contains(err.Error(), "f2p_tests") {
		t.Errorf("an instance without tests: %v", err)
	}
	os.WriteFile(f, []byte("{not json\n"), 0o644)
	if _, err := LoadInstances(f); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("bad JSON: %v", err)
	}
	_, in := Instance{}, Instance{ID: "x", Org: "o", Repo: "r", FixPatch: "d", TestPatch: "d", F2P: []string{"TestX"}}
	in.Base.SHA = "abc"
	res, err := RunGate(context.Background(), GateOptions{Instances: []Instance{in}, ReposRoot: dir, Work: t.TempDir(),
		Executor: agenttest.Executor(t), Variants: []string{"reference"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Verdict != "error" || !strings.Contains(res.Rows[0].Note, "no repository o/r") {
		t.Errorf("missing repository: %+v", res.Rows)
	}
	if _, err := RunGate(context.Background(), GateOptions{Instances: []Instance{in}, ReposRoot: dir, Work: dir,
		Executor: agenttest.Executor(t), Variants: []string{"bogus"}}); err == nil {
		t.Error("an unknown variant ran")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
