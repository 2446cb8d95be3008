package evidence

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gate/verify"
)

// impactContract is the stop hook's default contract reduced to its
// impact criterion: the tests the engine's analysis selects pass.
const impactContract = `{"objective": "the tests that reach the change pass", "base": "HEAD",
 "criteria": [{"id": "impact-tests", "text": "The tests that reach the changed code pass.", "check": {"impact_tests": true}}]}`

// TestRunTwiceInOneProcess runs the gate twice in one process with one
// gate directory on two different working changes, as a long-running
// server (the MCP tool verify_change) or a test binary does: each run's
// impact analysis must select the tests of its own change. The gate's
// impact index lives at the same path in every run (Dir/run/NN-…/index,
// wiped between runs), so anything the process keeps per index path
// outlives the index it described.
func TestRunTwiceInOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gate twice")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "gate")
	verify.SeedBuildCache(dir, gateDir)
	ex := executor(t)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, repo string)
		want   verify.Status
		tests  []string // selected, in the report
	}{
		{"breaks ID", func(t *testing.T, repo string) {
			replaceIn(t, repo, "server/mapper.go", "ID:     t.ID,", "ID:     t.ID + 1,")
		}, verify.Fail, []string{"TestToResponseKeepsIDAndStatus"}},
		{"maps the artifact", func(t *testing.T, repo string) {
			replaceIn(t, repo, "server/mapper.go", "Status: t.Status,\n", "Status: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n")
			os.WriteFile(filepath.Join(repo, "server/artifact_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestArtifact(t *testing.T) {\n\tif ToResponse(Task{ArtifactURL: \"u\"}).ArtifactURL != \"u\" {\n\t\tt.Fatal(\"dropped\")\n\t}\n}\n"), 0o644)
		}, verify.Pass, []string{"TestArtifact", "TestToResponseKeepsIDAndStatus"}},
	} {
		repo := fixRepo(t)
		git(t, repo, "reset", "-q", "--hard", "HEAD~1") // the base, without the committed fix
		tc.change(t, repo)
		rep, _, err := Run(ctx, Request{Repo: repo, TaskText: []byte(impactContract), Dir: dir, Executor: ex, Reruns: -1})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := rep.Criteria[0]
		var ran []string
		for _, x := range c.Tests {
			ran = append(ran, x.Name)
		}
		if c.Status != tc.want || !containsAll(ran, tc.tests) {
			t.Errorf("%s: impact-tests %s (%s), ran %v; want %s running %v", tc.name, c.Status, c.Reason, ran, tc.want, tc.tests)
		}
	}
}

func replaceIn(t *testing.T, repo, rel, old, new string) {
	t.Helper()
	p := filepath.Join(repo, rel)
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(b, []byte(old)) {
		t.Fatalf("edit %s: %q not found (%v)", rel, old, err)
	}
	if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func containsAll(list, want []string) bool {
	have := strings.Join(list, " ") + " "
	for _, w := range want {
		if !strings.Contains(have, w+" ") {
			return false
		}
	}
	return true
}
