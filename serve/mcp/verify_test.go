package mcp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// gateRepo is gate/verify's fixture (artifact-dropped with its overlay)
// at a base commit, with branch fix (the real fix and its regression test)
// and branch wide (the same, plus a README edit outside the scope),
// indexed.
func gateRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(repo, 0o755)
	for _, src := range []string{"../../testdata/apps/artifact-dropped", "../../gate/verify/testdata/overlay"} {
		if out, err := exec.Command("cp", "-r", src+"/.", repo+"/").CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	contract, err := os.ReadFile("../../gate/verify/testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(repo, "tasks"), 0o755)
	os.WriteFile(filepath.Join(repo, "tasks/artifact.yaml"), contract, 0o644)
	g := func(args ...string) {
		t.Helper()
		enginetest.Git(t, repo, append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	}
	g("init", "-q", "-b", "main")
	g("add", ".")
	g("commit", "-q", "-m", "base")
	g("checkout", "-q", "-b", "fix")
	mapper := filepath.Join(repo, "server/mapper.go")
	b, _ := os.ReadFile(mapper)
	os.WriteFile(mapper, bytes.Replace(b, []byte("Status: t.Status,\n"), []byte("Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"), 1), 0o644)
	os.WriteFile(filepath.Join(repo, "server/artifact_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestArtifact(t *testing.T) {\n\tif ToResponse(Task{ArtifactURL: \"u\"}).ArtifactURL != \"u\" {\n\t\tt.Fatal(\"dropped\")\n\t}\n}\n"), 0o644)
	g("add", ".")
	g("commit", "-q", "-m", "fix")
	g("checkout", "-q", "-b", "wide")
	f, _ := os.OpenFile(filepath.Join(repo, "README.md"), os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString("\nFixed.\n")
	f.Close()
	g("commit", "-qam", "wide")
	g("checkout", "-q", "main")
	enginetest.Index(t, repo)
	return repo
}

// TestVerifyChange calls verify_change through the Go SDK's client on a
// server over the fixture: the real fix passes (report, evidence summary,
// the change description as text), the same fix with a file outside the
// scope fails on scope, an inline contract is read as text, and bad input
// is an invalid_argument or outside_repository error. Real bubblewrap, go
// and git.
func TestVerifyChange(t *testing.T) {
	repo := gateRepo(t)
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Root: repo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	srv := New(Options{Engine: eng, Verify: &VerifyOptions{Dir: filepath.Join(os.TempDir(), "cairn-verify-test-gate")}})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	type out struct {
		Report struct {
			Verdict  string
			Criteria []struct{ ID, Status string }
			Scope    []struct{ Kind, Path string }
		}
		Evidence struct {
			SchemaVersion int `json:"schema_version"`
			Verdict       string
			Files         []struct {
				Path           string
				Added, Deleted int
			}
			Risks     struct{ Available bool }
			Reproduce struct{ Command []string }
		}
	}
	var pass out
	res := call(t, cs, "verify_change", map[string]any{"task": "tasks/artifact.yaml", "diff": "main..fix"}, &pass)
	if res.IsError || pass.Report.Verdict != "pass" || pass.Evidence.Verdict != "pass" || len(pass.Report.Criteria) != 4 ||
		len(pass.Evidence.Files) != 2 || !pass.Evidence.Risks.Available || pass.Evidence.SchemaVersion != 1 {
		t.Fatalf("fix: %+v\n%s", pass, text(res))
	}
	if !strings.HasPrefix(text(res), "# ") || !strings.Contains(text(res), "**Verdict: PASS**") {
		t.Errorf("text: %s", text(res))
	}
	if got := strings.Join(pass.Evidence.Reproduce.Command, " "); !strings.Contains(got, "--task tasks/artifact.yaml --diff main..fix") {
		t.Errorf("reproduce: %s", got)
	}

	var wide out
	contract, _ := os.ReadFile("../../gate/verify/testdata/contract.yaml")
	res = call(t, cs, "verify_change", map[string]any{"task": string(contract), "diff": "main..wide"}, &wide)
	if res.IsError || wide.Report.Verdict != "fail" || len(wide.Report.Scope) != 1 || wide.Report.Scope[0].Path != "README.md" {
		t.Fatalf("outside the scope: %+v\n%s", wide, text(res))
	}
	for _, c := range wide.Report.Criteria {
		if c.ID == "scope" && c.Status != "fail" {
			t.Errorf("scope criterion %s", c.Status)
		}
	}

	for _, tc := range []struct {
		args map[string]any
		cat  engine.Category
	}{
		{map[string]any{"task": ""}, engine.InvalidArgument},
		{map[string]any{"task": "tasks/artifact.yaml", "diff": "main"}, engine.InvalidArgument},
		{map[string]any{"task": "tasks/artifact.yaml", "diff": "main..fix", "working": true}, engine.InvalidArgument},
		{map[string]any{"task": "objective: x\ncriteria: [{id: a, text: t, check: {tests: ''}}]\n"}, engine.InvalidArgument},
		{map[string]any{"task": "../../etc/passwd"}, engine.OutsideRepository},
		{map[string]any{"task": "tasks/none.yaml"}, engine.NotFound},
	} {
		res := call(t, cs, "verify_change", tc.args, nil)
		wantError(t, res, tc.cat)
	}
}
