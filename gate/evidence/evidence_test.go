package evidence

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
	"github.com/cairn-dev/cairn/schema"
)

// The gate directory the verify tests keep warm (its Go build cache); one
// gate at a time uses it (verify locks it).
var gateDir = filepath.Join(os.TempDir(), "cairn-verify-test-gate")

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fixRepo is the verify fixture (artifact-dropped with its overlay) at a
// base commit, and the real fix with its regression test committed on top.
func fixRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	for _, src := range []string{"../../testdata/apps/artifact-dropped", "../verify/testdata/overlay"} {
		if out, err := exec.Command("cp", "-r", src+"/.", repo+"/").CombinedOutput(); err != nil {
			os.MkdirAll(repo, 0o755)
			if out, err = exec.Command("cp", "-r", src+"/.", repo+"/").CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
		}
	}
	os.WriteFile(filepath.Join(repo, "requirements.txt"), []byte("requests==2.31.0\n"), 0o644) // a lockfile to hash
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	mapper := filepath.Join(repo, "server/mapper.go")
	b, _ := os.ReadFile(mapper)
	os.WriteFile(mapper, bytes.Replace(b, []byte("Status: t.Status,\n"), []byte("Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"), 1), 0o644)
	os.WriteFile(filepath.Join(repo, "server/artifact_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestArtifact(t *testing.T) {\n\tif ToResponse(Task{ArtifactURL: \"u\"}).ArtifactURL != \"u\" {\n\t\tt.Fatal(\"dropped\")\n\t}\n}\n"), 0o644)
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "fix")
	return repo
}

func executor(t *testing.T) sandbox.Executor {
	t.Helper()
	goroot, modcache, err := sandbox.GoToolchain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ex, err := sandbox.Select(context.Background(), sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	if err != nil {
		t.Fatalf("bubblewrap must run for these tests: %v", err)
	}
	return ex
}

func validator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema.EvidenceJSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("evidence.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("evidence.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validate(t *testing.T, sch *jsonschema.Schema, data []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

// TestEvidenceOfRealFix runs the gate (real bubblewrap, go, git and the
// engine's impact analysis) on the fixture's real fix through Run, writes
// the bundle and checks it: valid against schema/evidence.schema.json,
// line counts from the patch, risks from impact, the reproduce commands,
// the environment, and a change description with its sections. Then the
// same report with impact unable to run says so, and is still valid.
func TestEvidenceOfRealFix(t *testing.T) {
	repo := fixRepo(t)
	ctx := context.Background()
	contract, _ := filepath.Abs("../verify/testdata/contract.yaml")
	rep, b, err := Run(ctx, Request{Repo: repo, TaskFile: contract, Range: "HEAD~1..HEAD", Dir: gateDir, Executor: executor(t),
		CairnVersion: "test", Model: &Model{ID: "scripted", Config: map[string]any{"temperature": 0}},
		RootCause: "ToResponse drops ArtifactURL.", Decisions: []string{"map the field in the mapper, not the handler"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verify.Pass || b.Verdict != verify.Pass {
		t.Fatalf("verdict %v: %s", rep.Verdict, rep.Reason)
	}
	dir := t.TempDir()
	if err := Write(dir, b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "evidence.json"))
	if err != nil {
		t.Fatal(err)
	}
	sch := validator(t)
	if err := validate(t, sch, data); err != nil {
		t.Fatalf("evidence.json does not match the schema: %v\n%s", err, data)
	}
	var got Bundle
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	stats := map[string][2]int{}
	for _, f := range got.Files {
		stats[f.Path] = [2]int{f.Added, f.Deleted}
	}
	if stats["server/mapper.go"] != [2]int{1, 0} || stats["server/artifact_test.go"] != [2]int{9, 0} || len(got.Files) != 2 {
		t.Errorf("files: %+v", got.Files)
	}
	head := git(t, repo, "rev-parse", "HEAD")
	if got.Revisions.Base != git(t, repo, "rev-parse", "HEAD~1") || got.Revisions.Head != head || got.Revisions.Candidate != "range" || len(got.Revisions.PatchSHA256) != 64 {
		t.Errorf("revisions: %+v", got.Revisions)
	}
	if !got.Risks.Available || got.Risks.Level == "" || got.Risks.Tests == 0 {
		t.Errorf("risks: %+v", got.Risks)
	}
	if got.Environment.RepositoryRevision != head || got.Environment.SandboxBackend != sandbox.BackendBwrap ||
		!strings.HasPrefix(got.Environment.GoVersion, "go1.") || !strings.HasPrefix(got.Environment.BwrapVersion, "bubblewrap") ||
		len(got.Environment.Lockfiles) != 1 || got.Environment.Lockfiles[0] != (Lockfile{Path: "requirements.txt", SHA256: sha256hex("requests==2.31.0\n")}) ||
		got.Environment.Model.ID != "scripted" {
		t.Errorf("environment: %+v", got.Environment)
	}
	var goTest *CheckRepro
	for i, c := range got.Reproduce.Checks {
		if c.ID == "server-tests" {
			goTest = &got.Reproduce.Checks[i]
		}
	}
	if goTest == nil || goTest.Argv[0] != "go" || goTest.Dir != "server" || !strings.Contains(strings.Join(goTest.Env, " "), "GOPROXY=off") {
		t.Errorf("reproduce: %+v", got.Reproduce.Checks)
	}
	if !strings.Contains(strings.Join(got.Reproduce.Command, " "), "--diff HEAD~1..HEAD") {
		t.Errorf("command: %v", got.Reproduce.Command)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "CHANGE.md"))
	for _, want := range []string{"**Verdict: PASS**", "## Cause\n\n_The model's diagnosis, in its words (not checked by the gate):_\n\n> ToResponse drops ArtifactURL.",
		"Backed by the gate's checks: regression **pass**, server-tests **pass**", "## Fix", "`server/mapper.go` | modified | 1 | 0",
		"## Proof", "| regression | regression | `go test -json -count=1 -run '^(TestArtifact)$' .` in `server` | **pass** |",
		"### Regression tests: at the base and on the change", "- `server` TestArtifact — at the base: **fail (assertion)**; on the change: **pass**; proves the change", "artifact_test.go:7: dropped",
		"### Tamper and scope findings\n\nNone.", "### Risks\n\nLevel", "### How to reproduce", "LANG=C.UTF-8 go test -json", "--task " + contract} {
		if !strings.Contains(string(md), want) {
			t.Errorf("CHANGE.md lacks %q:\n%s", want, md)
		}
	}
	if ls, _ := filepath.Glob(filepath.Join(gateDir, "evidence", "*")); len(ls) != 0 {
		t.Errorf("the impact workspace was left behind: %v", ls)
	}

	// an agent run's bundle: a patch candidate reproduced from the saved
	// contract and patch, the model's words marked, the run's summary, and
	// risks computed though the scratch directory does not exist yet
	patch := []byte(git(t, repo, "diff", "--binary", "HEAD~1", "HEAD") + "\n")
	b3, err := Build(ctx, Input{Report: rep, Attempt: mustAttempt(t, repo, contract), Repo: repo, Candidate: verify.Candidate{Patch: patch}, Patch: patch,
		ScratchDir: filepath.Join(t.TempDir(), "runs", "r1", "scratch"), ContractPath: "/repo/.cairn/runs/r1/contract", PatchPath: "/repo/.cairn/runs/r1/evidence/change.patch",
		Summary: "Map ArtifactURL.", Run: &RunSummary{RunID: "r1", Steps: 7, ModelCalls: 8, ToolCalls: 12, PolicyRefusals: 2, InputTokens: 100, OutputTokens: 20, WallS: 31}})
	if err != nil {
		t.Fatal(err)
	}
	if !b3.Risks.Available {
		t.Errorf("an agent run's risks: %+v", b3.Risks)
	}
	if got := strings.Join(b3.Reproduce.Command, " "); !strings.HasSuffix(got, "--task /repo/.cairn/runs/r1/contract --patch /repo/.cairn/runs/r1/evidence/change.patch") {
		t.Errorf("reproduce: %s", got)
	}
	md3 := b3.Markdown()
	for _, want := range []string{"Agent run `r1`: 7 steps, 8 model calls, 12 tool calls, 2 refused by the policy, 100 input and 20 output tokens, cost unknown (the model has no price)",
		"_The model's summary, in its words (not checked by the gate):_\n\n> Map ArtifactURL."} {
		if !strings.Contains(md3, want) {
			t.Errorf("CHANGE.md lacks %q:\n%s", want, md3)
		}
	}
	data3, err := json.Marshal(b3)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, sch, data3); err != nil {
		t.Errorf("an agent run's bundle does not match the schema: %v", err)
	}

	// impact that cannot run is said, not silently empty
	b2, err := Build(ctx, Input{Report: rep, Attempt: mustAttempt(t, repo, contract), Repo: repo,
		Candidate: verify.Candidate{Range: "HEAD~1..HEAD"}, ImpactErr: errors.New("the index is broken")})
	if err != nil {
		t.Fatal(err)
	}
	if b2.Risks.Available || !strings.Contains(b2.Risks.Unavailable, "the index is broken") {
		t.Errorf("risks: %+v", b2.Risks)
	}
	data2, err := json.Marshal(b2)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, sch, data2); err != nil {
		t.Errorf("a bundle without risks does not match the schema: %v", err)
	}
	if !strings.Contains(b2.Markdown(), "_Unknown: impact analysis could not run: the index is broken._") {
		t.Errorf("markdown: %s", b2.Markdown())
	}
	// the summary (no report) is not a bundle file
	sum, err := json.Marshal(b2.WithoutReport())
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, sch, sum); err == nil {
		t.Error("a bundle without its report matches the schema")
	}
}

func mustAttempt(t *testing.T, repo, contract string) *task.Attempt {
	t.Helper()
	c, err := task.ParseFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	c.Base = "HEAD~1"
	a, err := task.Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFileStats counts a patch's lines per file: a header line that looks
// like a change (--- a/x, +++ b/x) is not one, a hunk line that starts
// with "---" is, binary files are marked, quoted names unquoted.
func TestFileStats(t *testing.T) {
	patch := "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n x\n-y\n+z\n---- dashes\n+++ plus\n" +
		"diff --git a/img.png b/img.png\nnew file mode 100644\nindex 0..1\nGIT binary patch\nliteral 3\nKcmZ?wbNB\n\n" +
		"diff --git \"a/sp ace.go\" \"b/sp ace.go\"\ndeleted file mode 100644\n--- \"a/sp ace.go\"\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
	changed := []sandbox.Change{{Status: "M", Path: "a.go"}, {Status: "A", Path: "img.png"}, {Status: "D", Path: "sp ace.go"}, {Status: "A", Path: "x_test.go"}}
	want := []FileStat{{Path: "a.go", Status: "M", Added: 2, Deleted: 2}, {Path: "img.png", Status: "A", Binary: true},
		{Path: "sp ace.go", Status: "D", Deleted: 1}, {Path: "x_test.go", Status: "A", Test: true}}
	if diff := cmp.Diff(want, fileStats(changed, []byte(patch))); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
