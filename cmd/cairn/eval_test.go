package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCLI: the eval commands refuse bad input with a usage error, and
// a localize run over a command engine writes the run's four files, then
// compares a second run with the first.
func TestEvalCLI(t *testing.T) {
	for _, args := range [][]string{
		{"eval", "gate", "--repos-root", "x"},
		{"eval", "localize", "--tasks", "nope.jsonl", "--repos-root", "x"},
		{"eval", "context", "--tasks", "nope.jsonl", "--repos-root", "x", "--budgets", "abc"},
		{"eval", "agent", "--tasks", "t", "--repos-root", "x"},
	} {
		var out, errb bytes.Buffer
		t.Setenv("CAIRN_MODEL", "")
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errb.String())
		}
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "trees", "o", "r@abc")
	os.MkdirAll(tree, 0o755)
	os.WriteFile(filepath.Join(tree, "a.go"), []byte("package a\n\nfunc F() {}\n"), 0o644)
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"o__r-1","repo":"o/r","base_commit":"abc","query":"F","gold_files":["a.go"],"gold_functions":["a.go::F"],"language":"go"}`+"\n"), 0o644)
	answer := filepath.Join(dir, "answer.txt")
	os.WriteFile(answer, []byte("b.go\na.go::F\n"), 0o644)
	first := filepath.Join(dir, "first")
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "localize", "-q", "--tasks", tasks, "--repos-root", filepath.Join(dir, "trees"), "--cmd", "cat " + answer, "--out", first}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"rows.jsonl", "summary.json", "report.html", "report.md"} {
		if _, err := os.Stat(filepath.Join(first, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(out.String(), "| mrr | 0.500 |") {
		t.Errorf("markdown:\n%s", out.String())
	}
	os.WriteFile(answer, []byte("a.go::F\n"), 0o644)
	out.Reset()
	if code := run([]string{"eval", "localize", "-q", "--json", "--tasks", tasks, "--repos-root", filepath.Join(dir, "trees"), "--cmd", "cat " + answer, "--baseline", first}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var sum struct {
		Metrics  map[string]float64
		Baseline struct {
			Deltas []struct {
				Metric string
				Delta  float64
			}
			Changed []struct{ Key string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Metrics["mrr"] != 1 || len(sum.Baseline.Changed) != 1 || sum.Baseline.Deltas[5].Metric != "mrr" || sum.Baseline.Deltas[5].Delta != 0.5 {
		t.Errorf("comparison %+v", sum)
	}
}
