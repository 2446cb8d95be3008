package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyExitCodes: usage errors exit 2, a malformed contract exits 1
// naming the field, and a real fix with its regression test over a commit
// range exits 0 with the JSON report (real bubblewrap and go).
func TestVerifyExitCodes(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	os.MkdirAll(repo, 0o755)
	for _, src := range []string{"../../testdata/apps/artifact-dropped", "../../gate/verify/testdata/overlay"} {
		if out, err := exec.Command("cp", "-r", src+"/.", repo+"/").CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "base")
	mapper := filepath.Join(repo, "server/mapper.go")
	b, _ := os.ReadFile(mapper)
	os.WriteFile(mapper, bytes.Replace(b, []byte("Status: t.Status,\n"), []byte("Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"), 1), 0o644)
	os.WriteFile(filepath.Join(repo, "server/artifact_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestArtifact(t *testing.T) {\n\tif ToResponse(Task{ArtifactURL: \"u\"}).ArtifactURL != \"u\" {\n\t\tt.Fatal(\"dropped\")\n\t}\n}\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "fix")
	contract, _ := filepath.Abs("../../gate/verify/testdata/contract.yaml")
	bad := filepath.Join(root, "bad.yaml")
	os.WriteFile(bad, []byte("objective: keep the artifact link after a refresh\ncriteria: [{id: a, text: t, check: {tests: ''}}]\n"), 0o644)
	gate := filepath.Join(os.TempDir(), "cairn-verify-test-gate") // the gate tests' warm build cache
	onBase := filepath.Join(root, "on-base.yaml")
	cb, _ := os.ReadFile(contract)
	os.WriteFile(onBase, bytes.Replace(cb, []byte("base: HEAD\n"), []byte("base: HEAD~1\n"), 1), 0o644)
	patch := filepath.Join(root, "change.patch")
	diff, err := exec.Command("git", "-C", repo, "diff", "--binary", "HEAD~1", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(patch, diff, 0o644)
	ev := filepath.Join(root, "evidence")

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", "--repo", repo}, 2, "--task FILE is required"},
		{[]string{"verify", "--repo", repo, "--task", contract, "--diff", "HEAD"}, 2, "BASE..HEAD"},
		{[]string{"verify", "--repo", repo, "--task", contract, "--diff", "HEAD~1..HEAD", "--working"}, 2, "give one of --diff, --patch and --working"},
		{[]string{"verify", "--repo", repo, "--task", contract, "--patch", filepath.Join(root, "nothing.patch")}, 2, "--patch"},
		// an agent run's reproduce line: the saved contract and its patch
		{[]string{"verify", "--repo", repo, "--task", onBase, "--patch", patch, "--dir", gate, "--json", "--evidence", ev}, 0, `"--patch",`},
		{[]string{"verify", "--repo", repo, "--task", bad}, 1, "criteria[0].check"},
		{[]string{"verify", "--repo", repo, "--task", contract, "--diff", "HEAD~1..HEAD", "--dir", gate, "--json", "--evidence", ev}, 0, `"verdict": "pass"`},
		{[]string{"verify", "--repo", repo, "--task", contract, "--working", "--dir", gate}, 1, "verdict: fail"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, out)
		}
		if tc.code == 0 {
			var r struct {
				Verdict  string
				Criteria []struct{ ID, Status string }
				Evidence struct {
					SchemaVersion int `json:"schema_version"`
					Verdict       string
					Files         []struct{ Path string }
					Report        any
					Reproduce     struct{ Command []string }
				}
			}
			if err := json.Unmarshal(stdout.Bytes(), &r); err != nil || len(r.Criteria) != 4 {
				t.Errorf("report: %v %+v", err, r)
			}
			// the evidence beside the report, without repeating it
			if e := r.Evidence; e.SchemaVersion != 1 || e.Verdict != "pass" || len(e.Files) != 2 || e.Report != nil ||
				!strings.Contains(strings.Join(e.Reproduce.Command, " "), "--diff HEAD~1..HEAD") && !strings.Contains(strings.Join(e.Reproduce.Command, " "), "--task "+onBase+" --patch "+patch) {
				t.Errorf("evidence: %+v", e)
			}
			for _, f := range []string{"evidence.json", "CHANGE.md"} {
				if b, err := os.ReadFile(filepath.Join(ev, f)); err != nil || !bytes.Contains(b, []byte("pass")) && !bytes.Contains(b, []byte("PASS")) {
					t.Errorf("--evidence: %s: %v", f, err)
				}
			}
		}
	}
}
