package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/query"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files (path → content) and commits them with msg.
func commit(t *testing.T, dir, msg string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		old, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(old, []byte(msg+"\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
}

// numbered is n Go file names: prefix0.go, prefix1.go, …
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i) + ".go"
	}
	return out
}

func repo(t *testing.T) string {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	commit(t, dir, "initial layout", "server/server.go", "client/client.go", "README.md")
	commit(t, dir, "retry: back off exponentially when the balancer reports no address", "balancer/backoff.go", "balancer/picker.go")
	commit(t, dir, "docs: a typo", "README.md")
	commit(t, dir, "server: close idle connections after the keepalive timeout", "server/server.go", "server/keepalive.go")
	return dir
}

func build(t *testing.T, root, dir string, prev map[string]string, fresh bool, o Options) map[string]string {
	t.Helper()
	b := NewBuilder(root, prev, o)
	if err := b.Begin(context.Background(), dir, fresh); err != nil {
		t.Fatal(err)
	}
	m, err := b.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHistoryFindsSimilarPastChanges(t *testing.T) {
	root := repo(t)
	dir := t.TempDir()
	m := build(t, root, dir, nil, true, Options{})
	if m[KeyHead] != git(t, root, "rev-parse", "HEAD") || m[KeyCommits] != "4" {
		t.Fatalf("meta %v", m)
	}
	x, err := Open(dir, m)
	if err != nil || x == nil {
		t.Fatalf("open: %v %v", x, err)
	}
	cs := x.Commits("the client keeps retrying without backing off when the balancer has no addresses", 3)
	if len(cs) == 0 || !strings.HasPrefix(cs[0].Subject, "retry: back off") {
		t.Fatalf("commits %+v, want the backoff commit first", cs)
	}
	fs := x.Files("backing off when the balancer has no addresses", 10, nil)
	if len(fs) < 2 || fs[0].Path != "balancer/backoff.go" && fs[0].Path != "balancer/picker.go" {
		t.Fatalf("files %+v, want the backoff commit's files first", fs)
	}
	// only live files vote
	fs = x.Files("backing off when the balancer has no addresses", 10, func(p string) bool { return p != "balancer/backoff.go" })
	for _, f := range fs {
		if f.Path == "balancer/backoff.go" {
			t.Fatalf("a file no longer indexed is ranked: %+v", fs)
		}
	}
	if x.Commits("zebra quokka", 3) != nil {
		t.Fatal("words no commit has found commits")
	}
}

func TestHistoryExtendsWithNewCommitsOnly(t *testing.T) {
	root := repo(t)
	dir := t.TempDir()
	m := build(t, root, dir, nil, true, Options{})
	// HEAD unchanged: the same file, nothing read
	if m2 := build(t, root, dir, m, false, Options{}); m2[KeyFile] != m[KeyFile] {
		t.Fatalf("unchanged HEAD rewrote the history: %v → %v", m, m2)
	}
	// the old file is extended, not re-read: a commit it holds whose
	// message is edited here stays as stored
	f, err := readFile(filepath.Join(dir, m[KeyFile]))
	if err != nil {
		t.Fatal(err)
	}
	f.Commits[0].Subject = "as stored before"
	if err := writeFile(filepath.Join(dir, m[KeyFile]), f); err != nil {
		t.Fatal(err)
	}
	commit(t, root, "picker: skip subconns in transient failure", "balancer/picker.go")
	m3 := build(t, root, dir, m, false, Options{MaxCommits: 4})
	if m3[KeyCommits] != "4" || m3[KeyFile] == m[KeyFile] {
		t.Fatalf("after a new commit, capped at 4: %v", m3)
	}
	x, err := Open(dir, m3)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, c := range x.f.Commits {
		msgs = append(msgs, c.Subject)
	}
	if want := []string{"picker: skip subconns in transient failure", "as stored before", "docs: a typo",
		"retry: back off exponentially when the balancer reports no address"}; strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Fatalf("commits %q, want %q (the new one first, the stored ones after, the oldest capped off)", msgs, want)
	}
	// the stored commits' terms came through the extension
	if cs := x.Commits("back off exponentially", 1); len(cs) != 1 || !strings.HasPrefix(cs[0].Subject, "retry: back off") {
		t.Fatalf("an extended history lost the old commits' terms: %+v", cs)
	}
	if cs := x.Commits("transient failure subconns", 1); len(cs) != 1 || !strings.HasPrefix(cs[0].Subject, "picker: skip") {
		t.Fatalf("the new commit is not searched: %+v", cs)
	}
	// HEAD rewritten (not a descendant): read again from git
	git(t, root, "commit", "-q", "--amend", "-m", "picker: skip subconns that failed")
	m4 := build(t, root, dir, m3, false, Options{})
	if x, err = Open(dir, m4); err != nil || m4[KeyCommits] != "5" || x.f.Commits[1].Subject == "as stored before" ||
		!strings.HasPrefix(x.f.Commits[0].Subject, "picker: skip subconns that failed") {
		t.Fatalf("after an amend, the history is read from git again: %v %v", m4, err)
	}
	// the file of the generation before the previous one is removed
	if _, err := os.Stat(filepath.Join(dir, m[KeyFile])); !os.IsNotExist(err) {
		t.Fatalf("an old history file stays: %v", err)
	}
}

func TestHistoryLeavesOutBulkCommitsAndNonGit(t *testing.T) {
	root := repo(t)
	commit(t, root, "regenerate everything", numbered("gen/f", 12)...)
	m := build(t, root, t.TempDir(), nil, true, Options{MaxFiles: 10})
	if m[KeyCommits] != "4" {
		t.Fatalf("a commit of 12 files with MaxFiles 10 is kept: %v", m)
	}
	if m := build(t, t.TempDir(), t.TempDir(), nil, true, Options{}); m != nil {
		t.Fatalf("outside git: %v", m)
	}
	if m := build(t, root, t.TempDir(), nil, true, Options{MaxCommits: -1}); m != nil {
		t.Fatalf("history off: %v", m)
	}
}

func TestHistoryDamagedFileIsAnError(t *testing.T) {
	root := repo(t)
	dir := t.TempDir()
	m := build(t, root, dir, nil, true, Options{})
	p := filepath.Join(dir, m[KeyFile])
	b, _ := os.ReadFile(p)
	for _, bad := range [][]byte{b[:len(b)/2], append([]byte("garbage"), b...)} {
		os.WriteFile(p, bad, 0o644)
		if _, err := Open(dir, m); err == nil || !strings.Contains(err.Error(), "run cairn index") {
			t.Fatalf("damaged history: %v", err)
		}
		// the next run cannot extend it and reads git again
		commit(t, root, fmt.Sprintf("another change %d", len(bad)), "client/client.go")
		m2 := build(t, root, dir, m, false, Options{})
		if _, err := Open(dir, m2); err != nil {
			t.Fatalf("after a damaged history, the next run: %v", err)
		}
	}
	if _, err := Open(dir, map[string]string{KeyFile: "../../etc/passwd"}); err == nil {
		t.Fatal("a meta naming a path outside the directory is opened")
	}
}

// TestHistoryVotesShareByFiles: of two commits as like the query, the one
// that changed two files says more about each of them than the one that
// changed twenty.
func TestHistoryVotesShareByFiles(t *testing.T) {
	root := repo(t)
	commit(t, root, "keepalive pings are sent too often", numbered("wide/f", 20)...)
	commit(t, root, "keepalive pings are sent too often", "transport/keepalive.go", "transport/http2.go")
	dir := t.TempDir()
	x, err := Open(dir, build(t, root, dir, nil, true, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	fs := x.Files("keepalive pings sent too often", 5, nil)
	if len(fs) < 3 || !strings.HasPrefix(fs[0].Path, "transport/") || !strings.HasPrefix(fs[1].Path, "transport/") {
		t.Fatalf("files %+v, want the two-file commit's first", fs)
	}
}

// TestHistorySubjectsAreRedacted: a commit subject is shown in a hit's
// why; a credential in it is not.
func TestHistorySubjectsAreRedacted(t *testing.T) {
	root := repo(t)
	commit(t, root, "deploy: set api_key=sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c for the staging payments gateway", "deploy/config.go")
	dir := t.TempDir()
	x, err := Open(dir, build(t, root, dir, nil, true, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	cs := x.Commits("staging payments gateway deploy", 1)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Subject, "deploy:") || strings.Contains(cs[0].Subject, "4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c") {
		t.Fatalf("subject %+v", cs)
	}
}

// refsOf are the refs of hashes and numbers.
func refsOf(hashes []string, nums []int) []query.Ref {
	var out []query.Ref
	for _, h := range hashes {
		out = append(out, query.Ref{Hash: h})
	}
	for _, n := range nums {
		out = append(out, query.Ref{Number: n})
	}
	return out
}

// TestHistoryNamedChanges: the commits a query names by hash or number —
// a squashed pull request, a merged one, the fix of an issue — with the
// files each changed; not a changelog that cites everything; kept when
// the history is extended, and a history of the format before is read
// again rather than kept.
func TestHistoryNamedChanges(t *testing.T) {
	root := repo(t)
	commit(t, root, "dns: stop polling for updates (#3165)", "resolver/dns.go", "resolver/dns_test.go")
	commit(t, root, "server: drain streams on close\n\nFixes #12.", "server/server.go")
	commit(t, root, "release notes for #3165, #12, #13, #14, #15 and #16", "CHANGES.md")
	git(t, root, "checkout", "-q", "-b", "feature")
	commit(t, root, "models: keep the body on redirect", "models.py")
	commit(t, root, "models: and test it", "test_models.py")
	git(t, root, "checkout", "-q", "main")
	commit(t, root, "meanwhile on main (see gh-12)", "README.md")
	git(t, root, "merge", "-q", "--no-ff", "-m", "Merge pull request #774 from ann/feature", "feature")
	dns := git(t, root, "log", "-1", "--format=%H", "--grep", "dns: stop")
	git(t, root, "remote", "add", "origin", "git@github.com:ann/widgets.git")
	git(t, root, "remote", "add", "upstream", "https://github.com/Acme/Widgets.git")
	dir := t.TempDir()
	m := build(t, root, dir, nil, true, Options{})
	x, err := Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	named := func(x *Index, hashes []string, nums []int) (out []string) {
		cs, err := x.Named(refsOf(hashes, nums))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out = append(out, c.Subject+" "+strings.Join(c.Files, ","))
		}
		return out
	}
	want := []string{
		"dns: stop polling for updates (#3165) resolver/dns.go,resolver/dns_test.go",
		"Merge pull request #774 from ann/feature models.py,test_models.py",
		"meanwhile on main (see gh-12) README.md", // newest first
		"server: drain streams on close server/server.go",
	}
	if got := named(x, []string{dns[:9], "0000000", "abc"}, []int{3165, 774, 12, 99}); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("named:\n got %q\nwant %q", got, want)
	}
	if got := named(x, nil, []int{13}); got != nil {
		t.Fatalf("a changelog citing six numbers names #13: %q", got)
	}
	// a number of another repository names nothing; of this one (by a
	// remote's name, any case of it), the change
	if cs, _ := x.Named([]query.Ref{{Number: 3165, Repo: "golang/go"}}); cs != nil {
		t.Fatalf("golang/go#3165 names %v", cs)
	}
	if cs, _ := x.Named([]query.Ref{{Number: 3165, Repo: "acme/widgets"}}); len(cs) != 1 || cs[0].Ref != "#3165" {
		t.Fatalf("acme/widgets#3165 (an upstream remote) names %v", cs)
	}
	// extended with a new merge: the old merge and commits still named
	git(t, root, "checkout", "-q", "-b", "two")
	commit(t, root, "picker: skip failed subconns", "balancer/picker.go")
	git(t, root, "checkout", "-q", "main")
	git(t, root, "merge", "-q", "--no-ff", "-m", "Merge pull request #775 from ann/two", "two")
	m2 := build(t, root, dir, m, false, Options{})
	if x, err = Open(dir, m2); err != nil {
		t.Fatal(err)
	}
	if got := named(x, []string{dns[:9]}, []int{775, 774}); len(got) != 3 || !strings.HasPrefix(got[1], "Merge pull request #775") || got[2] != want[1] {
		t.Fatalf("after extending: %q", got)
	}
	// a remote added, HEAD unmoved: the file stands, the names are read
	git(t, root, "remote", "add", "third", "https://github.com/third/widgets")
	if m3 := build(t, root, dir, m2, false, Options{}); m3[KeyFile] != m2[KeyFile] || !strings.Contains(m3[KeyRemotes], "third/widgets") {
		t.Fatalf("after adding a remote: %v", m3)
	}
	// the merges' file lost: the commits still answer, with the error;
	// the next run, HEAD unmoved, writes it again
	os.Remove(filepath.Join(dir, mergesName(m2[KeyFile])))
	if x, err = Open(dir, m2); err != nil {
		t.Fatal(err)
	}
	if cs, err := x.Named(refsOf([]string{dns[:9]}, []int{775})); len(cs) != 1 || err == nil {
		t.Fatalf("without the merges' file: %v, %v", cs, err)
	}
	build(t, root, dir, m2, false, Options{})
	if _, err := os.Stat(filepath.Join(dir, mergesName(m2[KeyFile]))); err != nil {
		t.Fatalf("the merges' file is not written again: %v", err)
	}
	// a file of another format under the same head: outdated, and read again
	if Outdated(m2) || !Outdated(map[string]string{KeyFile: "history-0123456789ab.gob"}) || Outdated(nil) {
		t.Fatal("Outdated")
	}
	old := strings.Replace(m2[KeyFile], fmt.Sprintf("-v%d", formatVersion), "", 1)
	os.Rename(filepath.Join(dir, m2[KeyFile]), filepath.Join(dir, old))
	m2[KeyFile] = old
	if m3 := build(t, root, dir, m2, false, Options{}); m3[KeyFile] == old {
		t.Fatalf("a history file of another format is kept: %v", m3)
	}
}
