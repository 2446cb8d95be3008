package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/eval"
	"github.com/cairn-dev/cairn/eval/evaltest"
)

// sampleGate is a gate run of two instances (one reference not passing,
// one variant n/a, a flaky test) compared with a baseline whose
// reference passed.
func sampleGate(t *testing.T) *GateResult {
	t.Helper()
	yes, no := true, false
	res := &GateResult{}
	for i, id := range []string{"org__repo-1", "org__repo-2"} {
		for _, v := range Variants {
			r := GateRow{Instance: id, Variant: v, Expected: expected(v), Verdict: "fail", Seconds: float64(3 + i*7 + len(v)%5), NaivePass: &yes,
				Caught: []string{"regression fail"}}
			switch {
			case v == "reference" && i == 0:
				r.Verdict, r.Caught = "pass", nil
			case v == "reference":
				r.Verdict, r.Note = "fail", "regression: no test fails at the base"
			case v == "test_only":
				r.Verdict, r.NaivePass = "blocked", &no
			case v == "assertions_neutralised" && i == 1:
				r.Verdict, r.Note, r.NaivePass = "n/a", "no direct assertion", nil
			}
			r.OK = r.Verdict != "n/a" && (r.Expected == "pass") == (r.Verdict == "pass")
			if v == "skip_added" && i == 0 {
				r.Flaky = []string{"./server TestX"}
			}
			res.Rows = append(res.Rows, r)
		}
		res.Detail.Instances = append(res.Detail.Instances, GateInstance{ID: id, PrepSeconds: 2, GateSeconds: 40 + float64(i)*10, TotalSeconds: 45 + float64(i)*10})
	}
	if err := res.summarize(Variants); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	rows := res.RowList()
	if err := eval.Write(base, res.Summary, rows); err != nil {
		t.Fatal(err)
	}
	setOutcome(t, base, "org__repo-2/reference", "pass")
	cmp, err := eval.Compare(base, res.Summary, rows)
	if err != nil {
		t.Fatal(err)
	}
	cmp.Deltas[0].Baseline = 1 // the baseline was better
	res.Summary.Baseline = cmp
	return res
}

// setOutcome rewrites one row's outcome in DIR/rows.jsonl.
func setOutcome(t *testing.T, dir, key, outcome string) {
	t.Helper()
	file := filepath.Join(dir, "rows.jsonl")
	data, _ := os.ReadFile(file)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["key"] == key {
			m["outcome"] = outcome
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644)
}

func TestGateSummary(t *testing.T) {
	res := sampleGate(t)
	d := res.Detail
	if d.Confusion["reference"]["pass"] != 1 || d.Confusion["reference"]["fail"] != 1 || d.Confusion["assertions_neutralised"]["n/a"] != 1 {
		t.Errorf("confusion %v", d.Confusion)
	}
	if got := res.Summary.Metrics["reference_as_expected"]; got != 0.5 {
		t.Errorf("reference_as_expected %v", got)
	}
	// 13 mutations made (one n/a), none passed
	if got := res.Summary.Metrics["not_pass_flagged"]; got != 1 {
		t.Errorf("not_pass_flagged %v", got)
	}
	if len(d.Flaky) != 1 || !strings.Contains(d.Flaky[0], "TestX") {
		t.Errorf("flaky %v", d.Flaky)
	}
	if c := res.Summary.Baseline; len(c.Changed) != 1 || c.Changed[0].Key != "org__repo-2/reference" {
		t.Errorf("baseline changes %+v", c)
	}
	md := string(res.Report("gate").Markdown())
	for _, want := range []string{"| reference | pass | 1 | 1 | 0 |", "org__repo-2/reference | pass | fail", "./server TestX"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown without %q:\n%s", want, md)
		}
	}
}

// TestReportInChromium opens the gate and agent suites' HTML reports in
// Debian's chromium (evaltest.CheckInChromium).
func TestReportInChromium(t *testing.T) {
	gate := sampleGate(t).Report("cairn eval gate: sample")
	agent := &AgentResult{Rows: []AgentRow{
		{Instance: "o__r-1", Model: "anthropic:scripted-oracle", Status: "verified", Resolved: true, HiddenVerdict: "pass", FirstPass: true, Finishes: 1,
			ChangedLines: 14, ReferenceLines: 14, LineRatio: 1, InputTokens: 18141, OutputTokens: 178, CostUSD: 0.057, WallSeconds: 189, Steps: 5},
		{Instance: "o__r-2", Model: "openai:scripted-violator", Status: "failed", HiddenVerdict: "fail", Finishes: 2, GateFailures: 2, Rework: 2,
			ReferenceLines: 14, InputTokens: 18355, OutputTokens: 83, CostUSD: 0.037, WallSeconds: 115, Steps: 5, Refused: 3, NetworkAttempts: 1,
			OutOfScopeWrites: 2, Violations: []string{"network: shell curl (refused)"}},
	}}
	agent.summarize()
	pages := map[string]evaltest.Page{}
	for name, rep := range map[string]*eval.Report{"gate": gate, "agent": agent.Report("cairn eval agent: sample")} {
		pages[name] = evaltest.Page{Title: rep.Title, HTML: rep.HTML()}
	}
	evaltest.CheckInChromium(t, pages)
}
