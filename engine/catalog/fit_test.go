package catalog

import (
	"encoding/json"
	"fmt"
	"math"
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
	b, err := json.Marshal(ans)
	if err != nil {
		t.Fatal(err)
	}
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
	big, err := json.Marshal(map[string]any{"text": strings.Repeat("line\n", 20000)})
	if err != nil {
		t.Fatal(err)
	}
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

// An answer that does not encode has no known size: fit says so rather
// than pass it on as fitting, and fitJSON declines it so that Fit falls
// back to cutting the text within the budget.
func TestFitAnswerThatDoesNotEncode(t *testing.T) {
	type answer struct {
		Score float64  `json:"score"`
		Items []string `json:"items"`
	}
	out := answer{Score: math.NaN(), Items: make([]string, 1000)}
	trimmed := false
	err := fit(&out, 100, func() bool { trimmed = true; return false })
	if err == nil || !strings.Contains(err.Error(), "unsupported value: NaN") {
		t.Errorf("fit of a NaN answer: err = %v, want the encoding error", err)
	}
	if trimmed {
		t.Error("fit trimmed an answer whose size it could not know")
	}
	if got, ok := fitJSON(map[string]any{"score": math.NaN(), "items": make([]any, 1000)}, 100); ok {
		t.Errorf("fitJSON of a NaN answer = %q, true; want false", got)
	}
}
