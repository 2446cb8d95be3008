package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/indexer"
)

// TestMemProfiler: with CAIRN_MEMPROFILE set, every phase's end and the
// run's end leave a line in phases.tsv and a heap profile.
func TestMemProfiler(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mp")
	t.Setenv("CAIRN_MEMPROFILE", dir)
	m := newMemProfiler()
	if m == nil {
		t.Fatal("no profiler with CAIRN_MEMPROFILE set")
	}
	var seen []string
	p := m.wrap(func(p indexer.Progress) { seen = append(seen, p.Phase) })
	for _, ph := range []string{"walk", "parse", "parse", "resolve"} {
		p(indexer.Progress{Phase: ph})
	}
	m.finish()
	if strings.Join(seen, ",") != "walk,parse,parse,resolve" {
		t.Errorf("progress passed on as %v", seen)
	}
	b, err := os.ReadFile(filepath.Join(dir, "phases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		phases = append(phases, strings.Fields(l)[0])
	}
	if got := strings.Join(phases, ","); got != "walk,parse,resolve,end" {
		t.Errorf("phases.tsv lists %s", got)
	}
	for _, f := range []string{"01-walk.pb.gz", "02-parse.pb.gz", "03-resolve.pb.gz", "04-end.pb.gz"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("heap profile %s: %v", f, err)
		}
	}
	t.Setenv("CAIRN_MEMPROFILE", "")
	if newMemProfiler() != nil {
		t.Error("a profiler without CAIRN_MEMPROFILE")
	}
}
