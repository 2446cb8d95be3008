package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// An engine answer larger than the model's result cap reaches the model as
// JSON that parses, with what was left out counted — never cut mid-value
// (the loop used to cut a 30 KiB trace at 24 KiB by bytes).
func TestFitKeepsJSON(t *testing.T) {
	type flow struct {
		Kind  string   `json:"kind"`
		Steps []string `json:"steps"`
	}
	ans := map[string]any{"target": "Task.ArtifactURL", "gaps": []string{"dropped server/mapper.go:4"}}
	var flows []flow
	for i := range 200 {
		flows = append(flows, flow{Kind: "read", Steps: []string{fmt.Sprintf("Handler.GetTask server/handlers.go:%d", i), strings.Repeat("x", 120)}})
	}
	ans["flows"] = flows
	b, _ := json.Marshal(ans)
	if len(b) <= MaxBytes {
		t.Fatalf("the answer (%d bytes) is not larger than the cap", len(b))
	}
	got := Fit(string(b), MaxBytes)
	var out struct {
		Target  string         `json:"target"`
		Gaps    []string       `json:"gaps"`
		Flows   []flow         `json:"flows"`
		Omitted map[string]int `json:"omitted_by_cap"`
		Rest    map[string]any `json:"-"`
	}
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatalf("the fitted answer is not JSON: %v\n%s", err, got[len(got)-200:])
	}
	if len(got) > MaxBytes || out.Target != "Task.ArtifactURL" || len(out.Gaps) != 1 || len(out.Flows) == 0 || out.Omitted["flows"] != 200-len(out.Flows) {
		t.Errorf("%d bytes, target %q, %d gaps, %d flows, omitted %v", len(got), out.Target, len(out.Gaps), len(out.Flows), out.Omitted)
	}

	// one huge string: shortened, marked, still JSON
	big, _ := json.Marshal(map[string]any{"text": strings.Repeat("line\n", 20000)})
	got = Fit(string(big), MaxBytes)
	var one struct{ Text string }
	if err := json.Unmarshal([]byte(got), &one); err != nil || len(got) > MaxBytes || !strings.Contains(one.Text, "more bytes cut") {
		t.Errorf("a long string: %v, %d bytes", err, len(got))
	}

	// plain text is cut, saying so
	got = Fit(strings.Repeat("é", MaxBytes), MaxBytes)
	if len(got) > MaxBytes || !strings.HasSuffix(got, "more bytes cut)") || !strings.HasPrefix(got, "é") {
		t.Errorf("plain text: %d bytes, ends %q", len(got), got[len(got)-30:])
	}
	// what fits is untouched
	if got := Fit(`{"a":1}`, MaxBytes); got != `{"a":1}` {
		t.Errorf("a small answer changed: %s", got)
	}
}
