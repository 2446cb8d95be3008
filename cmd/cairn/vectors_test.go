package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVectorsTrainOnceTheRepositoryGrows: a repository first indexed with
// too little text gets no vectors, and status says why; once it has grown,
// the next incremental `cairn index` trains the built-in model (an
// incremental run alone never read enough to), the vector generator takes
// part in search, and a run after that does not train again.
func TestVectorsTrainOnceTheRepositoryGrows(t *testing.T) {
	t.Setenv("CAIRN_WORKTREE_CHECK", "0")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	repo, idx := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(repo, "a.go"), []byte("package a\n\nfunc A() {}\n"))
	if out, code := cli("index", "-q", "--repo", repo, "--index-dir", idx); code != 0 {
		t.Fatalf("index: %s", out)
	}
	status := func() string {
		out, code := cli("status", "--repo", repo, "--index-dir", idx)
		if code != 0 {
			t.Fatalf("status: %s", out)
		}
		return out
	}
	if s := status(); !strings.Contains(s, "vectors: none (too little text") {
		t.Fatalf("status of a one-function repository:\n%s", s)
	}
	// Grow it: real code, enough text to train on.
	src := copyTree(t, "../../graph", func(p string) bool {
		return strings.Contains(p, "testdata") || strings.HasSuffix(p, "_test.go")
	})
	if err := os.CopyFS(filepath.Join(repo, "graph"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	out, code := cli("index", "--repo", repo, "--index-dir", idx)
	if code != 0 {
		t.Fatalf("index: %s", out)
	}
	s := status()
	if !strings.Contains(s, "vectors: cairn-ppmi") {
		t.Fatalf("after the repository grew, no model:\n%s\nindex said:\n%s", s, out)
	}
	dump, _ := cli("search", "--dump-generators", "--repo", repo, "--index-dir", idx, "generation of an index committed by the writer")
	if !strings.Contains(dump, `"gen": "vector"`) && !strings.Contains(dump, `"gen":"vector"`) {
		t.Fatalf("no vector generator after training:\n%.800s", dump)
	}
	var o, e bytes.Buffer
	if code := run([]string{"index", "--repo", repo, "--index-dir", idx}, &o, &e); code != 0 || strings.Contains(e.String(), "training") {
		t.Fatalf("a run with nothing changed trained again (exit %d):\n%s%s", code, o.String(), e.String())
	}
}
