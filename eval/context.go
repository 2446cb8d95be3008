package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FullShare is the share of a gold function's lines a pack must cover for
// it to count as covered-full.
const FullShare = 0.8

// DefaultBudgets are score_context.py's.
var DefaultBudgets = []int{4000, 8000, 16000, 32000}

func estTokens(chars int) int { return (chars + 3) / 4 }

// tree reads one task tree as Python's text mode does (UTF-8, universal
// newlines), cached.
type tree struct {
	root  string
	text  map[string]*string
	lines map[string][]string
}

func newTree(root string) *tree {
	return &tree{root: root, text: map[string]*string{}, lines: map[string][]string{}}
}

func (t *tree) read(rel string) *string {
	if s, ok := t.text[rel]; ok {
		return s
	}
	b, err := os.ReadFile(filepath.Join(t.root, filepath.FromSlash(rel)))
	if err != nil {
		t.text[rel] = nil
		return nil
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	t.text[rel] = &s
	return &s
}

// fileLines is nil for a path that is not a readable file.
func (t *tree) fileLines(rel string) ([]string, bool) {
	if l, ok := t.lines[rel]; ok {
		return l, l != nil || t.text[rel] != nil
	}
	s := t.read(rel)
	if s == nil {
		t.lines[rel] = nil
		return nil, false
	}
	l := splitLines(*s)
	if l == nil {
		l = []string{}
	}
	t.lines[rel] = l
	return l, true
}

// goldSpan is one gold function located in the tree: [start, sig, end]
// per definition.
type goldSpan struct {
	Path  string   `json:"path"`
	Name  string   `json:"name"`
	Spans [][3]int `json:"spans"`
	Note  string   `json:"note,omitempty"`
}

var pySigRE = func(name string) *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:async\s+def|def|class)\s+` + regexp.QuoteMeta(name) + `\b`)
}

// findGold is score_context.py's gold_spans.
func findGold(t *tree, gold string) goldSpan {
	p, name, _ := strings.Cut(gold, "::")
	name = normSymbol(name)
	rec := goldSpan{Path: p, Name: name, Spans: [][3]int{}}
	src := t.read(p)
	if src == nil {
		rec.Note = "file not in tree"
		return rec
	}
	lines := splitLines(*src)
	var hits []scope
	for _, s := range scopesFor(p, *src) {
		if s.name == name {
			hits = append(hits, s)
		}
	}
	if len(hits) == 0 {
		rec.Note = "definition not found"
		return rec
	}
	if len(hits) > 1 {
		rec.Note = fmt.Sprintf("%d definitions", len(hits))
	}
	parts := strings.Split(name, ".")
	last := parts[len(parts)-1]
	for _, h := range hits {
		start, end, sig := h.start, h.end, h.start
		if strings.HasSuffix(p, ".go") {
			if be := goBlockEnd(lines, start); be == 0 {
				rec.Note = "no closing brace; evalcommon end used"
			} else {
				end = be
			}
		} else {
			re := pySigRE(last)
			for ln := start; ln <= min(end, len(lines)); ln++ {
				if re.MatchString(lines[ln-1]) {
					sig = ln
					break
				}
			}
		}
		rec.Spans = append(rec.Spans, [3]int{start, sig, min(end, max(len(lines), start))})
	}
	return rec
}

// packItem is one item of a context pack.
type packItem struct {
	path       string
	start, end int // 0: no lines
	hasLines   bool
	kind       string
	content    *string
}

var itemSuffix = regexp.MustCompile(`:(\d+)(?:-(\d+))?$`)

// parseItems is score_context.py's parse_items: the items, the reported
// used_tokens (nil when absent) and a parse error.
func parseItems(text, repoDir string) ([]packItem, *float64, string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil, "empty output"
	}
	var data any
	if err := json.Unmarshal([]byte(text), &data); err != nil {
		var seq []any
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "{") {
				var o any
				if json.Unmarshal([]byte(line), &o) == nil {
					seq = append(seq, o)
				}
			}
		}
		if len(seq) == 0 {
			return nil, nil, "output is not JSON"
		}
		data = seq
	}
	var used *float64
	var seq []any
	perr := ""
	switch d := data.(type) {
	case map[string]any:
		if u, ok := d["used_tokens"].(float64); ok {
			used = &u
		}
		found := false
		for _, k := range []string{"items", "results", "chunks", "context"} {
			if l, ok := d[k].([]any); ok {
				seq, found = l, true
				break
			}
		}
		if !found {
			if firstString(d, "path", "file") != "" {
				seq = []any{d}
			} else {
				perr = "no items list in the JSON object"
			}
		}
	case []any:
		seq = d
	default:
		perr = "JSON output is neither an object nor a list"
	}
	var items []packItem
	for _, o := range seq {
		m, ok := o.(map[string]any)
		if !ok {
			continue
		}
		raw := firstString(m, "path", "file", "file_path", "filename")
		if raw == "" {
			continue
		}
		start, sok := intOf(firstOf(m, "start_line", "start", "line_start"))
		end, eok := intOf(firstOf(m, "end_line", "end", "line_end"))
		if mm := itemSuffix.FindStringSubmatch(raw); mm != nil && !sok {
			start, _ = strconv.Atoi(mm[1])
			end = start
			if mm[2] != "" {
				end, _ = strconv.Atoi(mm[2])
			}
			sok, eok = true, true
		}
		if sok && !eok {
			end, eok = start, true
		}
		if sok && eok && end < start {
			start, end = end, start
		}
		it := packItem{path: normPath(raw, repoDir), start: start, end: end, hasLines: sok}
		if k, ok := m["kind"].(string); ok {
			it.kind = k
		}
		if c, ok := m["content"].(string); ok {
			it.content = &c
		}
		items = append(items, it)
	}
	return items, used, perr
}

// firstOf is Python's o.get(a, o.get(b, o.get(c))): the first key present.
func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// intOf is Python's int(v) for what JSON gives: numbers (truncated) and
// numeric strings.
func intOf(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		return int(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	}
	return 0, false
}

// CtxFn is one gold function's coverage in one pack.
type CtxFn struct {
	Gold  string  `json:"gold"`
	Found bool    `json:"found"`
	Share float64 `json:"share,omitempty"`
	Sig   bool    `json:"sig,omitempty"`
	Full  bool    `json:"full,omitempty"`
	Cov   bool    `json:"cov,omitempty"`
}

// CtxRun is one task at one budget.
type CtxRun struct {
	Budget        int      `json:"budget"`
	NItems        int      `json:"n_items"`
	NFiles        int      `json:"n_files"`
	EstTokens     int      `json:"est_tokens"`
	UsedTokens    *float64 `json:"used_tokens"`
	ContentTokens *int     `json:"content_tokens,omitempty"`
	FilesAll      bool     `json:"files_all"`
	FileRecall    float64  `json:"file_recall"`
	Functions     []CtxFn  `json:"functions"`
	LatencyS      *float64 `json:"latency_s,omitempty"`
	Error         string   `json:"error,omitempty"`
	ParseError    string   `json:"parse_error,omitempty"`
}

// evaluatePack is score_context.py's evaluate.
func evaluatePack(t LocTask, items []packItem, tr *tree, golds []goldSpan) CtxRun {
	covered := map[string]map[int]bool{}
	var paths []string
	for _, it := range items {
		if covered[it.path] == nil {
			covered[it.path] = map[int]bool{}
			paths = append(paths, it.path)
		}
		if !it.hasLines {
			continue
		}
		if lines, ok := tr.fileLines(it.path); ok {
			for ln := max(1, it.start); ln <= min(it.end, len(lines)); ln++ {
				covered[it.path][ln] = true
			}
		}
	}
	present := 0
	for _, g := range t.GoldFiles {
		if covered[g] != nil {
			present++
		}
	}
	chars := 0
	for p, lns := range covered {
		lines, ok := tr.fileLines(p)
		if !ok {
			continue
		}
		for ln := range lns {
			if ln <= len(lines) {
				chars += utf8.RuneCountInString(lines[ln-1]) + 1
			}
		}
	}
	r := CtxRun{NItems: len(items), NFiles: len(paths), EstTokens: estTokens(chars),
		FilesAll: len(t.GoldFiles) > 0 && present == len(t.GoldFiles)}
	if len(t.GoldFiles) > 0 {
		r.FileRecall = float64(present) / float64(len(t.GoldFiles))
	}
	for _, g := range golds {
		f := CtxFn{Gold: g.Path + "::" + g.Name, Found: len(g.Spans) > 0}
		if f.Found {
			span := map[int]bool{}
			for _, s := range g.Spans {
				for ln := s[0]; ln <= s[2]; ln++ {
					span[ln] = true
				}
			}
			have := covered[g.Path]
			n := 0
			for ln := range span {
				if have[ln] {
					n++
				}
			}
			share := float64(n) / float64(len(span))
			f.Share = math.Round(share*1e4) / 1e4
			for _, s := range g.Spans {
				f.Sig = f.Sig || have[s[1]]
			}
			f.Full = share >= FullShare
			f.Cov = f.Sig || f.Full
		}
		r.Functions = append(r.Functions, f)
	}
	contentChars, nContent := 0, 0
	for _, it := range items {
		if it.content != nil {
			contentChars += utf8.RuneCountInString(*it.content)
			nContent++
		}
	}
	if nContent > 0 {
		ct := estTokens(contentChars)
		r.ContentTokens = &ct
	}
	return r
}

// CtxRow is one task over the budgets.
type CtxRow struct {
	ID        string              `json:"id"`
	Repo      string              `json:"repo"`
	Language  string              `json:"language"`
	GoldSpans map[string]goldSpan `json:"gold_spans"`
	Runs      []CtxRun            `json:"runs"`
	PrepS     *float64            `json:"prep_s,omitempty"`
	PrepError string              `json:"prep_error,omitempty"`
}

func (r CtxRow) RowKey() string { return r.ID }
func (r CtxRow) RowOutcome() string {
	var parts []string
	for _, run := range r.Runs {
		c := 0
		for _, f := range run.Functions {
			if f.Cov {
				c++
			}
		}
		parts = append(parts, fmt.Sprintf("%d:%d/%d", run.Budget, c, len(run.Functions)))
	}
	return "fn covered " + strings.Join(parts, " ")
}

// CtxOptions configure a context run.
type CtxOptions struct {
	Tasks     []LocTask
	ReposRoot string
	Engine    Engine
	Budgets   []int
	Progress  func(format string, args ...any)
}

// CtxGroup is one group's metrics at one budget.
type CtxGroup struct {
	Name    string             `json:"group"`
	Budget  int                `json:"budget"`
	Metrics map[string]float64 `json:"metrics"`
}

// CtxResult is a finished context run.
type CtxResult struct {
	Rows       []CtxRow
	Groups     []CtxGroup
	Unresolved []string
	Summary    *Summary
}

// RunContext asks the engine for a pack per task and budget and scores
// each as score_context.py does.
func RunContext(ctx context.Context, o CtxOptions) (*CtxResult, error) {
	if len(o.Tasks) == 0 {
		return nil, ErrNoTasks
	}
	if o.Engine == nil {
		return nil, errors.New("eval context: no engine")
	}
	budgets := o.Budgets
	if len(budgets) == 0 {
		budgets = DefaultBudgets
	}
	for _, b := range budgets {
		if b <= 0 {
			return nil, fmt.Errorf("eval context: budgets must be positive, got %d", b)
		}
	}
	tmp, err := os.MkdirTemp("", "cairn-evalctx-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := &CtxResult{}
	for n, t := range o.Tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := t.TreeDir(o.ReposRoot)
		tr := newTree(dir)
		row := CtxRow{ID: t.ID, Repo: t.Repo, Language: t.Language, GoldSpans: map[string]goldSpan{}}
		st, serr := os.Stat(dir)
		haveTree := serr == nil && st.IsDir()
		var golds []goldSpan
		for _, g := range t.GoldFunctions {
			rec := findGold(tr, g)
			if len(rec.Spans) == 0 && haveTree {
				res.Unresolved = append(res.Unresolved, t.ID+": "+g+" ("+rec.Note+")")
			}
			row.GoldSpans[rec.Path+"::"+rec.Name] = rec
			golds = append(golds, rec)
		}
		if !haveTree {
			for i := range golds {
				golds[i].Spans = [][3]int{{1, 1, 1}} // not covered, not unresolved
			}
		}
		qf := filepath.Join(tmp, "query.txt")
		if err := os.WriteFile(qf, []byte(t.Query), 0o644); err != nil {
			return nil, err
		}
		c := Call{RepoDir: dir, QueryFile: qf, Query: t.Query, ID: t.ID, Repo: t.Repo, Commit: t.BaseCommit}
		if haveTree {
			t0 := time.Now()
			if err := o.Engine.Prep(ctx, c); err != nil {
				row.PrepError = err.Error()
			}
			p := time.Since(t0).Seconds()
			row.PrepS = &p
		}
		var msgs []string
		for _, b := range budgets {
			var run CtxRun
			if !haveTree {
				run = evaluatePack(t, nil, tr, golds)
				run.Error = fmt.Sprintf("missing tree %s (run prepare.sh)", dir)
			} else {
				c.Budget = b
				t0 := time.Now()
				out, err := o.Engine.Ask(ctx, c)
				lat := time.Since(t0).Seconds()
				items, used, perr := parseItems(out, dir)
				run = evaluatePack(t, items, tr, golds)
				run.LatencyS, run.UsedTokens = &lat, used
				if err != nil {
					run.Error = err.Error()
				} else if perr != "" {
					run.ParseError = perr
				}
			}
			run.Budget = b
			row.Runs = append(row.Runs, run)
			cov := 0
			for _, f := range run.Functions {
				if f.Cov {
					cov++
				}
			}
			msgs = append(msgs, fmt.Sprintf("%d: %d/%d fn", b, cov, len(run.Functions)))
		}
		if o.Progress != nil {
			o.Progress("[%d/%d] %s: %s", n+1, len(o.Tasks), t.ID, strings.Join(msgs, ", "))
		}
		res.Rows = append(res.Rows, row)
	}
	if err := res.summarize(budgets); err != nil {
		return nil, err
	}
	return res, nil
}

// ctxMetricOrder is a group's metrics in score_context.py's column order.
var ctxMetricOrder = []string{"fn_cov", "fn_full", "fn_sig", "task_fn_cov", "files_all", "file_recall", "used_tokens_mean", "est_tokens_mean", "content_tokens_mean", "latency_mean_s", "errors"}

// summarizeCtx is score_context.py's summarize of one group and budget.
func summarizeCtx(runs []CtxRun) map[string]float64 {
	m := map[string]float64{"n": float64(len(runs))}
	var cov, full, sig, perTask, files, recall, used, est, content, lat []float64
	errs := 0
	nfn := 0
	for _, r := range runs {
		var found []CtxFn
		for _, f := range r.Functions {
			if f.Found {
				found = append(found, f)
				cov = append(cov, BoolToFloat(f.Cov))
				full = append(full, BoolToFloat(f.Full))
				sig = append(sig, BoolToFloat(f.Sig))
			}
		}
		nfn += len(found)
		if len(found) > 0 {
			c := 0.0
			for _, f := range found {
				c += BoolToFloat(f.Cov)
			}
			perTask = append(perTask, c/float64(len(found)))
		}
		files = append(files, BoolToFloat(r.FilesAll))
		recall = append(recall, r.FileRecall)
		if r.UsedTokens != nil {
			used = append(used, *r.UsedTokens)
		}
		est = append(est, float64(r.EstTokens))
		if r.ContentTokens != nil {
			content = append(content, float64(*r.ContentTokens))
		}
		if r.LatencyS != nil {
			lat = append(lat, *r.LatencyS)
		}
		if r.Error != "" {
			errs++
		}
	}
	m["n_fn"] = float64(nfn)
	for k, xs := range map[string][]float64{"fn_cov": cov, "fn_full": full, "fn_sig": sig, "task_fn_cov": perTask, "files_all": files,
		"file_recall": recall, "used_tokens_mean": used, "est_tokens_mean": est, "content_tokens_mean": content, "latency_mean_s": lat} {
		if v := Mean(xs); !math.IsNaN(v) {
			m[k] = v
		}
	}
	m["n_used_tokens"] = float64(len(used))
	m["n_content_tokens"] = float64(len(content))
	m["errors"] = float64(errs)
	return m
}

func (res *CtxResult) summarize(budgets []int) error {
	names, by := locGroups(res.Rows, func(r CtxRow) string { return r.Language }, func(r CtxRow) string { return r.Repo }, "repo:")
	for _, n := range names {
		for bi, b := range budgets {
			var runs []CtxRun
			for _, r := range by[n] {
				runs = append(runs, r.Runs[bi])
			}
			res.Groups = append(res.Groups, CtxGroup{Name: n, Budget: b, Metrics: summarizeCtx(runs)})
		}
	}
	m := map[string]float64{}
	var order []string
	for _, g := range res.Groups {
		if g.Name != "ALL" {
			continue
		}
		for _, k := range ctxMetricOrder {
			if v, ok := g.Metrics[k]; ok {
				key := fmt.Sprintf("%s@%d", k, g.Budget)
				m[key] = Round(v)
				order = append(order, key)
			}
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		ka, _, _ := strings.Cut(a, "@")
		kb, _, _ := strings.Cut(b, "@")
		return slices.Index(ctxMetricOrder, ka) - slices.Index(ctxMetricOrder, kb)
	})
	detail, err := json.Marshal(map[string]any{"groups": res.Groups, "budgets": budgets, "full_share": FullShare,
		"token_estimate": "ceil(chars / 4)", "unresolved_gold_functions": res.Unresolved})
	if err != nil {
		return fmt.Errorf("context summary: %w", err)
	}
	res.Summary = &Summary{Suite: SuiteContext, Tasks: len(res.Rows), Rows: len(res.Rows), Metrics: m, Order: order, Detail: detail}
	return nil
}

// RowList returns the rows as the suite-neutral kind.
func (res *CtxResult) RowList() []Row {
	out := make([]Row, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r
	}
	return out
}
