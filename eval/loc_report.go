package eval

import (
	"fmt"
	"math"
	"strings"
)

// Report is the localize run as tables and plots.
func (res *LocResult) Report(title string) *Report {
	r := &Report{Title: title, Subtitle: fmt.Sprintf("localize suite: %d tasks", len(res.Rows))}
	r.Sections = append(r.Sections, MetricsSection(res.Summary)...)
	cols := []string{"acc@1", "acc@5", "acc@10", "recall@5", "recall@10", "mrr", "fn_acc@1", "fn_acc@5", "fn_acc@10", "fn_recall@10", "latency_mean_s", "errors"}
	gt := &Table{Head: append([]string{"group", "n", "n_fn"}, cols...)}
	for _, g := range res.Groups {
		row := []string{g.Name, fmt.Sprint(g.N), fmt.Sprint(g.NFn)}
		for _, c := range cols {
			row = append(row, metricCell(g.Metrics, c))
		}
		gt.Rows = append(gt.Rows, row)
	}
	r.Sections = append(r.Sections, Section{Heading: "Groups", Table: gt,
		Text: "Acc@k: every gold file in the top k; Recall@k: the share of them; MRR: 1/rank of the first gold file; fn_*: the same over gold functions and the engine's symbols."})

	bars := Bars{Title: "per task: MRR and function Recall@10", Max: 1, Series: []Series{{Name: "mrr"}, {Name: "fn_recall@10"}}}
	var lat []float64
	tt := &Table{Head: []string{"task", "first gold rank", "acc@5", "acc@10", "mrr", "fn_acc@10", "top files", "latency s", "error"}}
	for _, row := range res.Rows {
		bars.Labels = append(bars.Labels, row.ID)
		bars.Series[0].Values = append(bars.Series[0].Values, row.Scores["mrr"])
		fr, ok := row.Scores["fn_recall@10"]
		if !ok {
			fr = math.NaN()
		}
		bars.Series[1].Values = append(bars.Series[1].Values, fr)
		l := "—"
		if row.LatencyS != nil {
			lat = append(lat, *row.LatencyS)
			l = Num(Round(*row.LatencyS))
		}
		rank := "—"
		if row.FirstGoldRank > 0 {
			rank = fmt.Sprint(row.FirstGoldRank)
		}
		tt.Rows = append(tt.Rows, []string{row.ID, rank, metricCell(row.Scores, "acc@5"), metricCell(row.Scores, "acc@10"), metricCell(row.Scores, "mrr"),
			metricCell(row.Scores, "fn_acc@10"), strings.Join(row.TopFiles[:min(3, len(row.TopFiles))], ", "), l, OneLine(row.Error + " " + row.PrepError)})
	}
	r.Sections = append(r.Sections, Section{Heading: "Per task", Table: tt,
		Plots: []Plot{bars, Distribution{Title: "query latency (s)", Values: lat, Unit: " s"}}})
	return r
}

func metricCell(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return "n/a"
	}
	return Num(Round(v))
}

// Report is the context run as tables and plots.
func (res *CtxResult) Report(title string) *Report {
	r := &Report{Title: title, Subtitle: fmt.Sprintf("context suite: %d tasks", len(res.Rows))}
	r.Sections = append(r.Sections, MetricsSection(res.Summary)...)
	cols := []string{"n", "n_fn", "fn_cov", "fn_full", "task_fn_cov", "files_all", "used_tokens_mean", "est_tokens_mean", "latency_mean_s", "errors"}
	gt := &Table{Head: append([]string{"group", "budget"}, cols...)}
	for _, g := range res.Groups {
		row := []string{g.Name, fmt.Sprint(g.Budget)}
		for _, c := range cols {
			row = append(row, metricCell(g.Metrics, c))
		}
		gt.Rows = append(gt.Rows, row)
	}
	r.Sections = append(r.Sections, Section{Heading: "Groups", Table: gt,
		Text: fmt.Sprintf("fn_cov: the share of gold functions whose signature line, or ≥ %.0f%% of whose span, the pack covers (pooled); fn_full: ≥ %.0f%% covered; task_fn_cov: fn_cov per task, averaged; files_all: every gold file in the pack; est_tok: ceil(chars/4) of the covered lines.", FullShare*100, FullShare*100)})

	var budgets []int
	if len(res.Rows) > 0 {
		for _, run := range res.Rows[0].Runs {
			budgets = append(budgets, run.Budget)
		}
	}
	bars := Bars{Title: "per task: share of gold functions covered, per budget", Max: 1}
	for _, b := range budgets {
		bars.Series = append(bars.Series, Series{Name: fmt.Sprintf("%d tokens", b)})
	}
	var lat []float64
	tt := &Table{Head: []string{"task", "gold fns", "covered per budget", "files_all per budget", "error"}}
	for _, row := range res.Rows {
		bars.Labels = append(bars.Labels, row.ID)
		var cov, files []string
		errs := ""
		for i, run := range row.Runs {
			n, c := 0, 0
			for _, f := range run.Functions {
				if f.Found {
					n++
					if f.Cov {
						c++
					}
				}
			}
			v := math.NaN()
			if n > 0 {
				v = float64(c) / float64(n)
			}
			if i < len(bars.Series) {
				bars.Series[i].Values = append(bars.Series[i].Values, v)
			}
			cov = append(cov, fmt.Sprintf("%d/%d", c, n))
			files = append(files, map[bool]string{true: "yes", false: "no"}[run.FilesAll])
			if run.LatencyS != nil {
				lat = append(lat, *run.LatencyS)
			}
			if run.Error != "" && errs == "" {
				errs = OneLine(run.Error)
			}
		}
		tt.Rows = append(tt.Rows, []string{row.ID, fmt.Sprint(len(row.GoldSpans)), strings.Join(cov, " "), strings.Join(files, " "), errs})
	}
	r.Sections = append(r.Sections, Section{Heading: "Per task", Table: tt,
		Plots: []Plot{bars, Distribution{Title: "pack latency (s), every task and budget", Values: lat, Unit: " s"}}})
	if len(res.Unresolved) > 0 {
		r.Sections = append(r.Sections, Section{Heading: "Gold functions not found in their trees", Text: strings.Join(res.Unresolved, "\n")})
	}
	return r
}
