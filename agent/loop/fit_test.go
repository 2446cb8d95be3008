package loop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/engine/catalog"
)

// TestLargeAnswerReachesModelAsJSON: an engine tool's answer larger than
// the model's result cap (catalog.MaxBytes) reaches the model — through
// the real trace tool, its policy guard and the loop — as JSON that
// parses, within the cap, trimmed by the catalogue's structure (what it
// left out counted under omitted), not cut by bytes and not by the loop's
// generic fallback (omitted_by_cap).
func TestLargeAnswerReachesModelAsJSON(t *testing.T) {
	repo := fixtureRepo(t)
	var b strings.Builder
	b.WriteString("package main\n")
	const writers = 400
	for i := range writers {
		fmt.Fprintf(&b, "\n// SetArtifact%d records where artifact %d was uploaded.\nfunc SetArtifact%d(t *Task) { t.ArtifactURL = \"https://artifacts.example.com/builds/%d/artifact.zip\" }\n", i, i, i, i)
	}
	if err := os.WriteFile(filepath.Join(repo, "server", "writers.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "many writers")

	_, _, srv := noGateRunIn(t, repo, contractYAML, nil, nil,
		llmtest.Use("trace", `{"target":"Task.ArtifactURL"}`),
		llmtest.Use("finish", `{"root_cause":"x","summary":"y"}`),
	)
	calls := srv.Calls()
	if len(calls) < 2 {
		t.Fatalf("%d model calls", len(calls))
	}
	r := calls[1].LastToolResults()
	if len(r) != 1 || r[0].IsError {
		t.Fatalf("trace result: %+v", r)
	}
	text := r[0].Text
	var got struct {
		Writes       []json.RawMessage `json:"writes"`
		Omitted      map[string]int    `json:"omitted"`
		OmittedByCap map[string]int    `json:"omitted_by_cap"`
		Target       json.RawMessage   `json:"target"`
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("the model got no JSON: %v\n%.300s", err, text)
	}
	if len(text) > catalog.MaxBytes {
		t.Errorf("the model got %d bytes, more than the cap %d", len(text), catalog.MaxBytes)
	}
	if got.OmittedByCap != nil {
		t.Errorf("the loop's fallback trimmed it (omitted_by_cap %v): the tool did not fit its answer", got.OmittedByCap)
	}
	if got.Omitted["writes"] == 0 || len(got.Writes) == 0 || len(got.Writes)+got.Omitted["writes"] < writers {
		t.Errorf("%d writes shown, omitted %v: want the rest of %d counted", len(got.Writes), got.Omitted, writers)
	}
}
