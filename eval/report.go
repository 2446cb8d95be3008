package eval

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Report is a run as a person reads it: sections of text, tables and
// plots. HTML renders it as one self-contained page (inline CSS and SVG, no
// script, nothing fetched at view time); Markdown as a PR comment (the
// tables; a plot's data is in a table beside it).
type Report struct {
	Title    string
	Subtitle string
	Sections []Section
}

// Section is a heading with any of text, a table and plots.
type Section struct {
	Heading string
	Text    string
	Table   *Table
	Plots   []Plot
}

// Table is a header and rows of cells, already formatted.
type Table struct {
	Head []string
	Rows [][]string
}

// Plot is an inline SVG chart.
type Plot interface {
	svg() string
}

// Bars is a bar chart: one group per label, one bar per series (a run and
// its baseline, say).
type Bars struct {
	Title  string
	Labels []string
	Series []Series
	Unit   string
	Max    float64 // the axis' top; 0: the largest value
}

// Series is one bar per label.
type Series struct {
	Name   string
	Values []float64 // NaN: no bar
}

// Matrix is a confusion matrix: counts per row and column, the cells
// where a row's count is what it should be drawn as good.
type Matrix struct {
	Title      string
	Rows, Cols []string
	Cells      [][]int
	Good       func(row, col string) bool
}

// Distribution is a strip of values with its p50 and p95 marked (latency).
type Distribution struct {
	Title  string
	Values []float64
	Unit   string
}

var palette = []string{"#3b6ea5", "#d08c3a", "#5a9a5a", "#a4508b"}

const (
	plotW = 720.0
)

func (b Bars) svg() string {
	n := len(b.Labels)
	if n == 0 || len(b.Series) == 0 {
		return emptyPlot(b.Title)
	}
	max := b.Max
	for _, s := range b.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && v > max {
				max = v
			}
		}
	}
	if max <= 0 {
		max = 1
	}
	rowH := 14.0 * float64(len(b.Series))
	left, top := 230.0, 44.0
	h := top + float64(n)*(rowH+8) + 30
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="plot bars" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img"><title>%s</title>`, plotW, h, plotW, h, esc(b.Title))
	fmt.Fprintf(&s, `<text x="0" y="16" class="pt">%s</text>`, esc(b.Title))
	for si, se := range b.Series {
		fmt.Fprintf(&s, `<rect x="%.0f" y="22" width="10" height="10" fill="%s"/><text x="%.0f" y="31" class="pl">%s</text>`,
			left+float64(si)*150, palette[si%len(palette)], left+14+float64(si)*150, esc(se.Name))
	}
	width := plotW - left - 70
	for i, l := range b.Labels {
		y := top + float64(i)*(rowH+8)
		fmt.Fprintf(&s, `<text x="%.0f" y="%.1f" class="pl" text-anchor="end">%s</text>`, left-6, y+rowH/2+4, esc(clip(l, 34)))
		for si, se := range b.Series {
			if i >= len(se.Values) || math.IsNaN(se.Values[i]) {
				continue
			}
			v := se.Values[i]
			fmt.Fprintf(&s, `<rect class="datum" x="%.0f" y="%.1f" width="%.1f" height="12" fill="%s"><title>%s %s: %s%s</title></rect>`,
				left, y+float64(si)*14, math.Max(1, v/max*width), palette[si%len(palette)], esc(l), esc(se.Name), Num(v), esc(b.Unit))
			fmt.Fprintf(&s, `<text x="%.1f" y="%.1f" class="pv">%s</text>`, left+math.Max(1, v/max*width)+4, y+float64(si)*14+10, Num(v))
		}
	}
	s.WriteString(`</svg>`)
	return s.String()
}

func (m Matrix) svg() string {
	if len(m.Rows) == 0 || len(m.Cols) == 0 {
		return emptyPlot(m.Title)
	}
	left, top, cw, ch := 190.0, 50.0, 70.0, 26.0
	w, h := left+cw*float64(len(m.Cols))+10, top+ch*float64(len(m.Rows))+10
	max := 1
	for _, r := range m.Cells {
		for _, c := range r {
			if c > max {
				max = c
			}
		}
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="plot matrix" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img"><title>%s</title>`, w, h, w, h, esc(m.Title))
	fmt.Fprintf(&s, `<text x="0" y="16" class="pt">%s</text>`, esc(m.Title))
	for j, c := range m.Cols {
		fmt.Fprintf(&s, `<text x="%.0f" y="%.0f" class="pl" text-anchor="middle">%s</text>`, left+cw*float64(j)+cw/2, top-8, esc(c))
	}
	for i, r := range m.Rows {
		y := top + ch*float64(i)
		fmt.Fprintf(&s, `<text x="%.0f" y="%.0f" class="pl" text-anchor="end">%s</text>`, left-6, y+ch/2+4, esc(r))
		for j, c := range m.Cols {
			v := 0
			if i < len(m.Cells) && j < len(m.Cells[i]) {
				v = m.Cells[i][j]
			}
			fill := "#f4f4f4"
			if v > 0 {
				alpha := 0.25 + 0.75*float64(v)/float64(max)
				if m.Good != nil && m.Good(r, c) {
					fill = fmt.Sprintf("rgba(90,154,90,%.2f)", alpha)
				} else {
					fill = fmt.Sprintf("rgba(196,72,60,%.2f)", alpha)
				}
			}
			cls := "cell"
			if v > 0 {
				cls = "cell datum"
			}
			fmt.Fprintf(&s, `<rect class="%s" x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="%s" stroke="#fff"><title>%s → %s: %d</title></rect>`,
				cls, left+cw*float64(j), y, cw, ch, fill, esc(r), esc(c), v)
			if v > 0 {
				fmt.Fprintf(&s, `<text x="%.0f" y="%.0f" class="pv" text-anchor="middle">%d</text>`, left+cw*float64(j)+cw/2, y+ch/2+4, v)
			}
		}
	}
	s.WriteString(`</svg>`)
	return s.String()
}

func (d Distribution) svg() string {
	if len(d.Values) == 0 {
		return emptyPlot(d.Title)
	}
	left, right, h := 40.0, 40.0, 90.0
	max := 0.0
	for _, v := range d.Values {
		max = math.Max(max, v)
	}
	if max <= 0 {
		max = 1
	}
	x := func(v float64) float64 { return left + v/max*(plotW-left-right) }
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="plot distribution" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img"><title>%s</title>`, plotW, h, plotW, h, esc(d.Title))
	fmt.Fprintf(&s, `<text x="0" y="16" class="pt">%s</text>`, esc(d.Title))
	fmt.Fprintf(&s, `<line x1="%.0f" y1="55" x2="%.0f" y2="55" stroke="#999"/>`, left, plotW-right)
	fmt.Fprintf(&s, `<text x="%.0f" y="80" class="pl">0</text><text x="%.0f" y="80" class="pl" text-anchor="end">%s%s</text>`, left, plotW-right, Num(max), esc(d.Unit))
	for i, v := range d.Values {
		jitter := float64(i%5-2) * 4
		fmt.Fprintf(&s, `<circle class="datum" cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.6"><title>%s%s</title></circle>`, x(v), 45+jitter, palette[0], Num(v), esc(d.Unit))
	}
	for _, q := range []struct {
		name string
		v    float64
	}{{"p50", Quantile(d.Values, 0.5)}, {"p95", Quantile(d.Values, 0.95)}} {
		fmt.Fprintf(&s, `<line x1="%.1f" y1="28" x2="%.1f" y2="62" stroke="%s" stroke-width="2"/><text x="%.1f" y="26" class="pv" text-anchor="middle">%s %s</text>`,
			x(q.v), x(q.v), palette[1], x(q.v), q.name, Num(q.v))
	}
	s.WriteString(`</svg>`)
	return s.String()
}

func emptyPlot(title string) string {
	return fmt.Sprintf(`<svg class="plot empty" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="40"><text x="0" y="16" class="pt">%s</text><text x="0" y="34" class="pl">no data</text></svg>`, plotW, esc(title))
}

const css = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 12px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0 14px;display:block;overflow-x:auto;max-width:100%}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.sub{color:#555}.pt{font-weight:600;font-size:13px}.pl{font-size:11px;fill:#333}.pv{font-size:10px;fill:#222}
svg.plot{display:block;margin:10px 0}p.text{white-space:pre-wrap}`

// HTML renders the report as one self-contained page.
func (r *Report) HTML() []byte {
	var s strings.Builder
	s.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
	// no network at view time: the policy forbids every fetch
	s.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`)
	fmt.Fprintf(&s, "<title>%s</title><style>%s</style></head><body>\n", esc(r.Title), css)
	fmt.Fprintf(&s, "<h1>%s</h1>\n", esc(r.Title))
	if r.Subtitle != "" {
		fmt.Fprintf(&s, "<p class=\"sub\">%s</p>\n", esc(r.Subtitle))
	}
	for _, sec := range r.Sections {
		fmt.Fprintf(&s, "<section><h2>%s</h2>\n", esc(sec.Heading))
		if sec.Text != "" {
			fmt.Fprintf(&s, "<p class=\"text\">%s</p>\n", esc(sec.Text))
		}
		for _, p := range sec.Plots {
			s.WriteString(p.svg())
			s.WriteByte('\n')
		}
		if t := sec.Table; t != nil {
			s.WriteString("<table><thead><tr>")
			for _, h := range t.Head {
				fmt.Fprintf(&s, "<th>%s</th>", esc(h))
			}
			s.WriteString("</tr></thead><tbody>\n")
			for _, row := range t.Rows {
				s.WriteString("<tr>")
				for _, c := range row {
					cls := ""
					if isNumber(c) {
						cls = ` class="n"`
					}
					fmt.Fprintf(&s, "<td%s>%s</td>", cls, esc(c))
				}
				s.WriteString("</tr>\n")
			}
			s.WriteString("</tbody></table>\n")
		}
		s.WriteString("</section>\n")
	}
	s.WriteString("</body></html>\n")
	return []byte(s.String())
}

// Markdown renders the report for a PR comment.
func (r *Report) Markdown() []byte {
	var s strings.Builder
	fmt.Fprintf(&s, "## %s\n\n", r.Title)
	if r.Subtitle != "" {
		fmt.Fprintf(&s, "%s\n\n", r.Subtitle)
	}
	for _, sec := range r.Sections {
		fmt.Fprintf(&s, "### %s\n\n", sec.Heading)
		if sec.Text != "" {
			fmt.Fprintf(&s, "%s\n\n", sec.Text)
		}
		if t := sec.Table; t != nil {
			s.WriteString("| " + strings.Join(mdCells(t.Head), " | ") + " |\n|")
			for range t.Head {
				s.WriteString("---|")
			}
			s.WriteString("\n")
			for _, row := range t.Rows {
				s.WriteString("| " + strings.Join(mdCells(row), " | ") + " |\n")
			}
			s.WriteString("\n")
		}
	}
	return []byte(s.String())
}

func mdCells(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", `\|`), "\n", " ")
	}
	return out
}

func esc(s string) string { return html.EscapeString(s) }

// OneLine folds s onto one line, single-spaced, cut after 200 bytes.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Num formats a metric: integers plainly, others with three decimals.
func Num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	var f float64
	_, err := fmt.Sscanf(strings.TrimPrefix(s, "+"), "%g", &f)
	return err == nil && !strings.ContainsAny(s, " /")
}

// MetricsSection is the headline metrics, with the baseline's beside them
// when there is one, and a plot of the two.
func MetricsSection(sum *Summary) []Section {
	t := &Table{Head: []string{"metric", "value"}}
	if sum.Baseline != nil {
		t.Head = append(t.Head, "baseline", "delta")
	}
	base := map[string]Delta{}
	if sum.Baseline != nil {
		for _, d := range sum.Baseline.Deltas {
			base[d.Metric] = d
		}
	}
	for _, m := range sum.Order {
		row := []string{m, Num(sum.Metrics[m])}
		if sum.Baseline != nil {
			if d, ok := base[m]; ok {
				row = append(row, Num(d.Baseline), signed(d.Delta))
			} else {
				row = append(row, "—", "—")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	secs := []Section{{Heading: "Metrics", Table: t}}
	if c := sum.Baseline; c != nil {
		b := Bars{Title: "this run vs the baseline", Series: []Series{{Name: "this run"}, {Name: "baseline"}}}
		for _, d := range c.Deltas {
			if math.Abs(d.Current) > 1 || math.Abs(d.Baseline) > 1 {
				continue // rates only: one axis
			}
			b.Labels = append(b.Labels, d.Metric)
			b.Series[0].Values = append(b.Series[0].Values, d.Current)
			b.Series[1].Values = append(b.Series[1].Values, d.Baseline)
		}
		ct := &Table{Head: []string{"row", "baseline", "this run"}}
		for _, ch := range c.Changed {
			ct.Rows = append(ct.Rows, []string{ch.Key, ch.Baseline, ch.Current})
		}
		for _, k := range c.Added {
			ct.Rows = append(ct.Rows, []string{k, "(not run)", "new"})
		}
		for _, k := range c.Removed {
			ct.Rows = append(ct.Rows, []string{k, c.Rows[k], "(not run)"})
		}
		text := fmt.Sprintf("Baseline %s: %d rows changed, %d new, %d not run now.", c.Dir, len(c.Changed), len(c.Added), len(c.Removed))
		secs = append(secs, Section{Heading: "Against the baseline", Text: text, Table: ct, Plots: []Plot{b}})
	}
	return secs
}

func signed(v float64) string {
	if v > 0 {
		return "+" + Num(v)
	}
	return Num(v)
}
