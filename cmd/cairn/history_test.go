package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryGenerator: a repository with history gets a history index;
// search finds the files a similar past commit changed, and says which
// commit; --history 0 leaves it out, and status says which it is.
func TestHistoryGenerator(t *testing.T) {
	t.Setenv("CAIRN_HISTORY", "") // the default, whatever the caller's environment says
	repo := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, body string) {
		p := filepath.Join(repo, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn("init", "-q", "-b", "main")
	write("quota/limits.go", "package quota\n\nfunc Allowed(n int) bool { return n < 10 }\n")
	write("api/handler.go", "package api\n\nfunc Handle() {}\n\nfunc Other() {}\n")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "initial")
	write("quota/limits.go", "package quota\n\nfunc Allowed(n int) bool { return n <= 10 }\n")
	gitIn("commit", "-q", "-am", "tenants are throttled one request early at the burst boundary")
	write("api/handler.go", "package api\n\nfunc Handle() {\n\tretries := 3\n\t_ = retries\n}\n\nfunc Other() {}\n")
	write("zz/last.go", "package zz\n\nfunc Last() {\n\tcount := 0\n\t_ = count\n}\n")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "api: a refactoring (#41)")
	for i := range 25 {
		write(fmt.Sprintf("gen/f%d.go", i), "package gen\n")
	}
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "gen: a sweep over 25 files (#50)")
	dir := filepath.Join(t.TempDir(), "idx")
	if out, code := cli("index", "-q", "--repo", repo, "--index-dir", dir); code != 0 {
		t.Fatalf("index: %s", out)
	}
	out, code := cliStdout("search", "--repo", repo, "--index-dir", dir, "--only", "history", "--json", "a tenant gets throttled at the burst boundary")
	if code != 0 || !strings.Contains(out, `"quota/limits.go"`) || !strings.Contains(out, "similar past commit") || !strings.Contains(out, "burst boundary") {
		t.Fatalf("search --only history (exit %d):\n%s", code, out)
	}
	if strings.Contains(out, "api/handler.go") {
		t.Fatalf("a file no similar commit changed is ranked:\n%s", out)
	}
	// a change the query names by its number: what it changed comes first,
	// its files tied, and says so
	out, _ = cliStdout("search", "--repo", repo, "--index-dir", dir, "--only", "history", "tenants are throttled at the burst boundary since #41")
	if i, j := strings.Index(out, "api/handler.go"), strings.Index(out, "quota/limits.go"); i < 0 || j < i ||
		!strings.Contains(out, `"api: a refactoring (#41)", which the query names`) {
		t.Fatalf("search naming #41:\n%s", out)
	}
	_, files, _ := strings.Cut(out, "files:\n")
	score := func(path string) string {
		_, after, _ := strings.Cut(files, path)
		return strings.Fields(after)[0]
	}
	if a, z, q := score("api/handler.go"), score("zz/last.go"), score("quota/limits.go"); a != z || a == q {
		t.Fatalf("the named commit's files score %s and %s, the similar commit's %s:\n%s", a, z, q, out)
	}
	// the text names the change and lists its files; JSON says which
	if !strings.Contains(out, "named changes:\n  #41\t") || !strings.Contains(out, "api/handler.go, zz/last.go") {
		t.Fatalf("search naming #41 does not list it:\n%s", out)
	}
	js, _ := cliStdout("search", "--repo", repo, "--index-dir", dir, "--json", "broken since #50 and #41")
	var res struct {
		Named []struct {
			Ref, Hash, Subject string
			Files              []string
			More               int `json:"more_files"`
		}
		Files, Hits []struct{ Path, Symbol, Why string }
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("%v:\n%s", err, js)
	}
	// (a change of 25 files lists 20 and says how many more)
	if len(res.Named) != 2 || res.Named[0].Ref != "#50" || len(res.Named[0].Files) != 20 || res.Named[0].More != 5 || res.Named[1].Ref != "#41" ||
		!strings.HasPrefix(res.Named[1].Subject, "api: a refactoring") {
		t.Fatalf("named: %+v", res.Named)
	}
	if out, _ := cliStdout("search", "--repo", repo, "--index-dir", dir, "broken since #50"); !strings.Contains(out, " and 17 more\n") {
		t.Fatalf("a change of 25 files in the text:\n%s", out)
	}
	// the definition holding the lines #41 added ranks for it, the one
	// it left alone does not
	handle := false
	for _, r := range res.Hits {
		if r.Symbol == "Other" && strings.Contains(r.Why, "holds lines") {
			t.Fatalf("a definition #41 did not touch ranks for it: %+v", r)
		}
		handle = handle || r.Symbol == "Handle" && strings.Contains(r.Why, `holds lines`) && strings.Contains(r.Why, `"api: a refactoring (#41)" added, which the query names`)
	}
	if !handle {
		t.Fatalf("Handle, which #41 changed, is not ranked for it:\n%s", js)
	}
	// a named change of more than ten files ranks none of them by being named
	for _, r := range append(res.Files, res.Hits...) {
		if strings.HasPrefix(r.Path, "gen/") && strings.Contains(r.Why, "which the query names") {
			t.Fatalf("a file of a 25-file named change is ranked for it: %+v", r)
		}
	}
	if out, _ := cli("status", "--repo", repo, "--index-dir", dir); !strings.Contains(out, "history: 4 commits") {
		t.Fatalf("status:\n%s", out)
	}
	if out, code := cli("index", "--history", "-1", "--repo", repo, "--index-dir", dir); code != 2 || !strings.Contains(out, "0 indexes no history") {
		t.Fatalf("index --history -1: exit %d\n%s", code, out)
	}
	if out, code := cli("index", "-q", "--full", "--history", "0", "--repo", repo, "--index-dir", dir); code != 0 {
		t.Fatalf("index --history 0: %s", out)
	}
	if out, _ := cli("status", "--repo", repo, "--index-dir", dir); !strings.Contains(out, "history: none") {
		t.Fatalf("status after --history 0:\n%s", out)
	}
	if out, _ := cliStdout("search", "--repo", repo, "--index-dir", dir, "--only", "history", "--json", "throttled at the burst boundary"); strings.Contains(out, "quota/limits.go") {
		t.Fatalf("search without a history index found history:\n%s", out)
	}
}

// TestIndexInsideCheckoutIsIgnoredByGit: the default index directory
// (<repo>/.cairn) leaves `git status` clean, so that an index is never
// committed by accident.
func TestIndexInsideCheckoutIsIgnoredByGit(t *testing.T) {
	repo := t.TempDir()
	gitIn := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitIn("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "initial")
	if out, code := cli("index", "-q", "--repo", repo); code != 0 {
		t.Fatalf("index: %s", out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cairn", "CURRENT")); err != nil {
		t.Fatalf("no index in the checkout: %v", err)
	}
	if st := gitIn("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status after indexing:\n%s", st)
	}
}
