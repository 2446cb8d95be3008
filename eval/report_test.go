package eval

import (
	"context"
	"math"
	"testing"

	"github.com/cairn-dev/cairn/eval/evaltest"
)

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 3, 2, 4}
	if q := Quantile(xs, 0.5); q != 3 {
		t.Errorf("p50 %v", q)
	}
	if q := Quantile(xs, 0.95); math.Abs(q-4.8) > 1e-9 {
		t.Errorf("p95 %v", q)
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("p50 of nothing")
	}
}

// TestReportInChromium opens the localize and context suites' HTML reports
// in Debian's chromium (evaltest.CheckInChromium).
func TestReportInChromium(t *testing.T) {
	root, _, answers, tasks := syntheticSlice(t)
	loc, err := RunLocalize(context.Background(), LocOptions{Tasks: tasks, ReposRoot: root, Engine: CommandEngine{Cmd: "cat " + answers + "/{id}.json 2>/dev/null"}})
	if err != nil {
		t.Fatal(err)
	}
	ctxr, err := RunContext(context.Background(), CtxOptions{Tasks: tasks, ReposRoot: root, Engine: CommandEngine{Cmd: "cat " + answers + "/{id}-{budget}.json 2>/dev/null"}, Budgets: []int{100, 4000}})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]evaltest.Page{}
	for name, rep := range map[string]*Report{"localize": loc.Report("cairn eval localize: sample"), "context": ctxr.Report("cairn eval context: sample")} {
		pages[name] = evaltest.Page{Title: rep.Title, HTML: rep.HTML()}
	}
	evaltest.CheckInChromium(t, pages)
}
