package eval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The instance's contract allows, by name, what the reference itself
// changes: named tests the base has, and the test files whose harness the
// test patch edits (grpc-go 2760's TestMain) — nothing else.
func TestReferenceAllows(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(filepath.Join(dir, "dns"), 0o755)
	os.WriteFile(filepath.Join(dir, "dns", "dns_test.go"), []byte("package dns\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n\nfunc TestOld(t *testing.T) {\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dns", "other_test.go"), []byte("package dns\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {\n}\n"), 0o644)
	run("init", "-q")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	cmd := exec.Command("git", "-C", dir, "rev-parse", "HEAD")
	base, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var in Instance
	in.Base.SHA = string(base[:40])
	// the reference applied: TestMain changed, a new test beside the old
	os.WriteFile(filepath.Join(dir, "dns", "dns_test.go"), []byte("package dns\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tsetup()\n\tos.Exit(m.Run())\n}\n\nfunc TestOld(t *testing.T) {\n\tt.Log(1)\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dns", "other_test.go"), []byte("package dns\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {\n}\n\nfunc TestNew(t *testing.T) {\n}\n"), 0o644)
	pl := &plan{tests: []string{"dns/dns_test.go", "dns/other_test.go"}, byPkg: map[string][]string{"dns": {"TestNew", "TestOld"}}}
	a := referenceAllows(context.Background(), dir, in, pl)
	if !slices.Equal(a.Tests, []string{"TestOld"}) {
		t.Errorf("tests %v: want the named test the base has, not the new one", a.Tests)
	}
	if !slices.Equal(a.Harness, []string{"dns/dns_test.go"}) {
		t.Errorf("harness %v: want the file whose TestMain the test patch edits", a.Harness)
	}
	if err := allowedHarness(map[string]string{"dns/dns_test.go": "a"}, map[string]string{"dns/dns_test.go": "b"}); err == nil {
		t.Error("a variant that edits an allowed harness file is made")
	}
	if err := allowedHarness(map[string]string{"dns/dns_test.go": "a"}, map[string]string{"dns/dns_test.go": "a"}); err != nil {
		t.Error(err)
	}
}
