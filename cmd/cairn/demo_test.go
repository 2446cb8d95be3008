package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeDemo runs `make run`'s question on cairn's own checkout, as the
// README's first command does, and checks the answer is the one in the
// code: the embedded store's writer.go among the five files, its code (not
// a benchmark helper) leading the five code hits, and Writer.Commit (one
// transaction, or the rename of CURRENT by writeCurrent) in the 4k pack. The question and the flags are read from
// the Makefile, so a change to either is tested too. The demo is run from
// a clone, which has the commit history; without one (a shallow clone, an
// unpacked archive) the history generator is off and the test is skipped.
func TestReadmeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the whole checkout")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--is-shallow-repository").Output(); err != nil || strings.TrimSpace(string(out)) != "false" {
		t.Skipf("%s is not a full git clone (%v %s): the demo's answer depends on the commit history", root, err, out)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Q\s+\?=\s+(.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no Q ?= line")
	}
	q := strings.TrimSpace(string(m[1]))
	for _, flags := range []string{"search --repo $(REPO) --limit 5 --files 5", "context --repo $(REPO) --budget 4000"} {
		if !strings.Contains(string(mk), flags) {
			t.Fatalf("Makefile: the run target no longer has %q; update this test with it", flags)
		}
	}
	t.Setenv("CAIRN_HISTORY", "")
	dir := filepath.Join(t.TempDir(), "idx")
	if out, code := cli("index", "-q", "--repo", root, "--index-dir", dir); code != 0 {
		t.Fatalf("index: %s", out)
	}

	out, code := cliStdout("search", "--repo", root, "--index-dir", dir, "--limit", "5", "--files", "5", "--json", q)
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, out)
	}
	type entry struct {
		Path   string `json:"path"`
		Kind   string `json:"kind"`
		Symbol string `json:"symbol"`
	}
	var res struct {
		Files []entry `json:"files"`
		Hits  []entry `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	const file = "graph/embedded/writer.go"
	var inFiles bool
	var hits []string
	for _, r := range res.Files {
		inFiles = inFiles || r.Path == file
	}
	for _, r := range res.Hits {
		hits = append(hits, r.Path+" "+r.Symbol)
	}
	store := 0
	for _, h := range hits {
		if strings.HasPrefix(h, "graph/embedded/") {
			store++
		}
		if strings.HasPrefix(h, "bench/") {
			t.Errorf("search %q: a benchmark helper among the five code hits: %s", q, h)
		}
	}
	if !inFiles || store < 2 {
		t.Errorf("search %q: %s among the files: %v; code hits in the embedded store: %d of %v\n%s", q, file, inFiles, store, hits, out)
	}

	pack, code := cliStdout("context", "--repo", root, "--index-dir", dir, "--budget", "4000", "--format", "markdown", q)
	if code != 0 {
		t.Fatalf("context: exit %d\n%s", code, pack)
	}
	if !regexp.MustCompile("(?m)^### graph/embedded/writer\\.go:\\d+-\\d+\\S* `Writer\\.Commit`").MatchString(pack) ||
		!strings.Contains(pack, "func (w *Writer) Commit(") {
		t.Errorf("the 4k pack of %q does not hold Writer.Commit:\n%s", q, pack)
	}
}
