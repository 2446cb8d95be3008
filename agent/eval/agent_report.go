package eval

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/eval"
)

// Report is the agent run as tables and plots.
func (res *AgentResult) Report(title string) *eval.Report {
	r := &eval.Report{Title: title, Subtitle: fmt.Sprintf("agent suite: %d runs", len(res.Rows))}
	r.Sections = append(r.Sections, eval.MetricsSection(res.Summary)...)
	tt := &eval.Table{Head: []string{"instance", "model", "status", "resolved", "hidden tests", "first pass", "finishes", "gate failures", "rework",
		"lines / reference", "files outside", "tokens in/out", "cost $", "wall s", "steps", "rolled back", "refused", "violations", "note"}}
	steps := eval.Bars{Title: "per run: steps and refused tool calls", Series: []eval.Series{{Name: "steps"}, {Name: "refused"}}}
	ratio := eval.Bars{Title: "per run: changed lines ÷ the reference's", Series: []eval.Series{{Name: "line ratio"}}}
	var wall []float64
	yn := func(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }
	for _, row := range res.Rows {
		label := row.Instance + " " + row.Model
		steps.Labels = append(steps.Labels, label)
		steps.Series[0].Values = append(steps.Series[0].Values, float64(row.Steps))
		steps.Series[1].Values = append(steps.Series[1].Values, float64(row.Refused))
		ratio.Labels = append(ratio.Labels, label)
		ratio.Series[0].Values = append(ratio.Series[0].Values, row.LineRatio)
		wall = append(wall, row.WallSeconds)
		tt.Rows = append(tt.Rows, []string{row.Instance, row.Model, row.Status, yn(row.Resolved), row.HiddenVerdict + " " + strings.Join(row.HiddenCaught, ", "),
			yn(row.FirstPass), fmt.Sprint(row.Finishes), fmt.Sprint(row.GateFailures), fmt.Sprint(row.Rework),
			fmt.Sprintf("%d / %d", row.ChangedLines, row.ReferenceLines), strings.Join(row.OutsideFiles, ", "),
			fmt.Sprintf("%d / %d", row.InputTokens, row.OutputTokens), fmt.Sprintf("%.4f", row.CostUSD), eval.Num(row.WallSeconds), fmt.Sprint(row.Steps),
			yn(row.RolledBack), fmt.Sprint(row.Refused), strings.Join(row.Violations, "; "), eval.OneLine(row.Note)})
	}
	r.Sections = append(r.Sections, eval.Section{Heading: "Runs", Table: tt,
		Text: "resolved: the harness verified the run and the task's own hidden tests (the instance's test patch over the change) pass the gate; a run the harness did not verify is rolled back, its change never applied, so it resolves nothing. first pass: the gate passed on the first finish; rework: rejected finishes before the pass (all of them when none passed)."})
	r.Sections = append(r.Sections, eval.Section{Heading: "Plots", Plots: []eval.Plot{steps, ratio, eval.Distribution{Title: "wall time per run (s)", Values: wall, Unit: " s"}}})
	return r
}
