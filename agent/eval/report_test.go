package eval

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
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
	res.summarize(Variants)
	base := t.TempDir()
	rows := res.RowList()
	if err := Write(base, res.Summary, rows); err != nil {
		t.Fatal(err)
	}
	setOutcome(t, base, "org__repo-2/reference", "pass")
	cmp, err := Compare(base, res.Summary, rows)
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
		b, _ := json.Marshal(m)
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

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 3, 2, 4}
	if q := quantile(xs, 0.5); q != 3 {
		t.Errorf("p50 %v", q)
	}
	if q := quantile(xs, 0.95); math.Abs(q-4.8) > 1e-9 {
		t.Errorf("p95 %v", q)
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("p50 of nothing")
	}
}

// TestReportInChromium opens the HTML reports in Debian's chromium
// (headless, the page's own CSP bypassed so a reference to anything would
// be fetched and seen): the page renders, every plot has data with a
// size, and the only request is the page itself.
func TestReportInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium checks the reports (.ci/deps.sh installs it): %v", err)
	}
	dir := t.TempDir()
	gate := sampleGate(t).Report("cairn eval gate: sample")
	root, _, answers, tasks := syntheticSlice(t)
	loc, err := RunLocalize(context.Background(), LocOptions{Tasks: tasks, ReposRoot: root, Engine: CommandEngine{Cmd: "cat " + answers + "/{id}.json 2>/dev/null"}})
	if err != nil {
		t.Fatal(err)
	}
	ctxr, err := RunContext(context.Background(), CtxOptions{Tasks: tasks, ReposRoot: root, Engine: CommandEngine{Cmd: "cat " + answers + "/{id}-{budget}.json 2>/dev/null"}, Budgets: []int{100, 4000}})
	if err != nil {
		t.Fatal(err)
	}
	agent := &AgentResult{Rows: []AgentRow{
		{Instance: "o__r-1", Model: "anthropic:scripted-oracle", Status: "verified", Resolved: true, HiddenVerdict: "pass", FirstPass: true, Finishes: 1,
			ChangedLines: 14, ReferenceLines: 14, LineRatio: 1, InputTokens: 18141, OutputTokens: 178, CostUSD: 0.057, WallSeconds: 189, Steps: 5},
		{Instance: "o__r-2", Model: "openai:scripted-violator", Status: "failed", HiddenVerdict: "fail", Finishes: 2, GateFailures: 2, Rework: 2,
			ReferenceLines: 14, InputTokens: 18355, OutputTokens: 83, CostUSD: 0.037, WallSeconds: 115, Steps: 5, Refused: 3, NetworkAttempts: 1,
			OutOfScopeWrites: 2, Violations: []string{"network: shell curl (refused)"}},
	}}
	agent.summarize()
	pages := map[string]*Report{"gate": gate, "agent": agent.Report("cairn eval agent: sample"), "localize": loc.Report("cairn eval localize: sample"), "context": ctxr.Report("cairn eval context: sample")}

	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU)...)
	defer cancel()
	for name, rep := range pages {
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, rep.HTML(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			bctx, cancel := chromedp.NewContext(actx)
			defer cancel()
			bctx, cancel2 := context.WithTimeout(bctx, 60*time.Second)
			defer cancel2()
			var mu sync.Mutex
			var requests []string
			err := chromedp.Listen(bctx, func(ev any) {
				if e, ok := ev.(*network.EventRequestWillBeSent); ok {
					mu.Lock()
					requests = append(requests, e.Request.URL)
					mu.Unlock()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			type plotInfo struct {
				Cls    string  `json:"cls"`
				Datums int     `json:"datums"`
				Sized  int     `json:"sized"`
				W      float64 `json:"w"`
				H      float64 `json:"h"`
			}
			if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(bctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(bctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				t.Fatal(err)
			}
			title, err := chromedp.Run(bctx, chromedp.Title())
			if err != nil {
				t.Fatal(err)
			}
			plots, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotInfo](`[...document.querySelectorAll("svg.plot")].map(s => {
				const r = s.getBoundingClientRect();
				const ds = [...s.querySelectorAll(".datum")];
				return {cls: s.getAttribute("class"), datums: ds.length,
					sized: ds.filter(d => { const b = d.getBoundingClientRect(); return b.width > 0 && b.height > 0; }).length,
					w: r.width, h: r.height};
			})`))
			if err != nil {
				t.Fatal(err)
			}
			tables, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("table tbody tr").length`))
			if err != nil {
				t.Fatal(err)
			}
			if title != rep.Title {
				t.Errorf("title %q, want %q", title, rep.Title)
			}
			if len(plots) < 2 {
				t.Errorf("%d plots rendered", len(plots))
			}
			for _, p := range plots {
				if p.Datums == 0 || p.Sized != p.Datums || p.W <= 0 || p.H <= 0 {
					t.Errorf("plot %s: %d data points, %d with a size, %.0f×%.0f", p.Cls, p.Datums, p.Sized, p.W, p.H)
				}
			}
			if tables == 0 {
				t.Error("no table rows rendered")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, u := range requests {
				if u != "file://"+file {
					t.Errorf("the page requested %s", u)
				}
			}
			if len(requests) == 0 {
				t.Error("no request seen at all: the listener is not working")
			}
		})
	}
}
