package eval

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/eval"
)

// Report is the gate run as tables and plots.
func (res *GateResult) Report(title string) *eval.Report {
	d := res.Detail
	r := &eval.Report{Title: title, Subtitle: fmt.Sprintf("gate suite: %d instances, %d rows", len(d.Instances), len(res.Rows))}
	r.Sections = append(r.Sections, eval.MetricsSection(res.Summary)...)

	m := eval.Matrix{Title: "variant × gate verdict (green: the expected verdict)", Cols: d.Verdicts,
		Good: func(row, col string) bool {
			return (expected(row) == "pass") == (col == "pass") && col != "n/a" && col != "error"
		}}
	ct := &eval.Table{Head: append([]string{"variant", "expected"}, d.Verdicts...)}
	for _, v := range d.PerVariant {
		m.Rows = append(m.Rows, v.Variant)
		var cells []int
		row := []string{v.Variant, v.Expected}
		for _, c := range d.Verdicts {
			cells = append(cells, d.Confusion[v.Variant][c])
			row = append(row, fmt.Sprint(d.Confusion[v.Variant][c]))
		}
		m.Cells = append(m.Cells, cells)
		ct.Rows = append(ct.Rows, row)
	}
	r.Sections = append(r.Sections, eval.Section{Heading: "Confusion matrix", Table: ct, Plots: []eval.Plot{m}})

	vt := &eval.Table{Head: []string{"variant", "rows", "made", "gate as expected", "gate verdict pass", "naive tests pass", "gate s (mean)"}}
	for _, v := range d.PerVariant {
		naive := "—"
		if v.NaiveRun > 0 {
			naive = fmt.Sprintf("%d/%d", v.NaivePass, v.NaiveRun)
		}
		vt.Rows = append(vt.Rows, []string{v.Variant, fmt.Sprint(v.Rows), fmt.Sprint(v.Made), fmt.Sprintf("%d/%d", v.AsExpected, v.Made),
			fmt.Sprint(v.Pass), naive, eval.Num(v.MeanSeconds)})
	}
	r.Sections = append(r.Sections, eval.Section{Heading: "Per variant", Table: vt,
		Text: "naive tests pass: the instance's tests exit 0 with plain go test -run on the variant — what a harness without the gate would accept."})

	bars := eval.Bars{Title: "seconds per instance", Unit: " s", Series: []eval.Series{{Name: "prepare"}, {Name: "gate (all variants)"}}}
	it := &eval.Table{Head: []string{"instance", "prepare s", "gate s", "total s", "error"}}
	for _, gi := range d.Instances {
		bars.Labels = append(bars.Labels, gi.ID)
		bars.Series[0].Values = append(bars.Series[0].Values, gi.PrepSeconds)
		bars.Series[1].Values = append(bars.Series[1].Values, gi.GateSeconds)
		it.Rows = append(it.Rows, []string{gi.ID, eval.Num(eval.Round(gi.PrepSeconds)), eval.Num(eval.Round(gi.GateSeconds)), eval.Num(eval.Round(gi.TotalSeconds)), gi.Error})
	}
	var secs []float64
	for _, row := range res.Rows {
		if row.Verdict != "n/a" && row.Verdict != "error" {
			secs = append(secs, row.Seconds)
		}
	}
	r.Sections = append(r.Sections, eval.Section{Heading: "Time per instance", Table: it,
		Plots: []eval.Plot{bars, eval.Distribution{Title: "gate seconds per variant", Values: secs, Unit: " s"}}})

	rt := &eval.Table{Head: []string{"instance", "variant", "expected", "verdict", "ok", "caught by", "s", "naive pass", "note"}}
	for _, row := range res.Rows {
		naive := "—"
		if row.NaivePass != nil {
			naive = map[bool]string{true: "yes", false: "no"}[*row.NaivePass]
		}
		ok := "✗"
		if row.OK {
			ok = "✓"
		}
		rt.Rows = append(rt.Rows, []string{row.Instance, row.Variant, row.Expected, row.Verdict, ok, strings.Join(row.Caught, ", "), eval.Num(row.Seconds), naive, row.Note})
	}
	r.Sections = append(r.Sections, eval.Section{Heading: "Rows", Table: rt})
	flaky := "none"
	if len(d.Flaky) > 0 {
		flaky = strings.Join(d.Flaky, "\n")
	}
	if d.Stopped != "" {
		flaky += "\n\n" + d.Stopped
	}
	r.Sections = append(r.Sections, eval.Section{Heading: "Flaky tests seen", Text: flaky})
	return r
}
