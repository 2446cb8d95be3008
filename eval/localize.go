package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LocTask is one localization task (../shared/bench/localization's format).
type LocTask struct {
	ID            string   `json:"id"`
	Repo          string   `json:"repo"`
	BaseCommit    string   `json:"base_commit"`
	Query         string   `json:"query"`
	GoldFiles     []string `json:"gold_files"`
	GoldFunctions []string `json:"gold_functions,omitempty"`
	Language      string   `json:"language"`
}

// LoadLocTasks reads a localization task file; each task needs an id, a
// repository, a base commit, a query and gold files.
func LoadLocTasks(file string) ([]LocTask, error) {
	ts, err := ReadLines[LocTask](file)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		var missing []string
		for _, f := range []struct{ n, v string }{{"id", t.ID}, {"repo", t.Repo}, {"base_commit", t.BaseCommit}, {"query", t.Query}} {
			if strings.TrimSpace(f.v) == "" {
				missing = append(missing, f.n)
			}
		}
		if len(t.GoldFiles) == 0 {
			missing = append(missing, "gold_files")
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: line %d: task %q: missing %s", file, i+1, t.ID, strings.Join(missing, ", "))
		}
		if strings.Contains(t.BaseCommit, "/") || strings.Contains(t.Repo, "..") {
			return nil, fmt.Errorf("%s: line %d: task %q: bad repo or base_commit", file, i+1, t.ID)
		}
	}
	return ts, nil
}

// TreeDir is the task's tree under root: ROOT/OWNER/NAME@BASE_COMMIT, as
// prepare.sh writes it.
func (t LocTask) TreeDir(root string) string {
	return filepath.Join(root, filepath.FromSlash(t.Repo)+"@"+t.BaseCommit)
}

// Call is one question to an engine.
type Call struct {
	RepoDir, QueryFile, Query string
	ID, Repo, Commit          string
	TopK, Budget              int
}

// Engine answers the suites' questions with its own output text (the
// formats the Python scorers read): Prep once per task (an index), then
// Ask once per task (localize) or per budget (context).
type Engine interface {
	Prep(ctx context.Context, c Call) error
	Ask(ctx context.Context, c Call) (string, error)
}

// CommandEngine runs shell command templates, as score.py's --prep-cmd
// and --cmd do: {repo_dir} {query_file} {topk} {budget} {id} {repo}
// {commit}, each shell-quoted.
type CommandEngine struct {
	Cmd, PrepCmd string
	Timeout      time.Duration // per Ask; Prep gets ten times it
}

func (e CommandEngine) Prep(ctx context.Context, c Call) error {
	if e.PrepCmd == "" {
		return nil
	}
	_, err := e.run(ctx, e.PrepCmd, c, 10*e.timeout())
	return err
}

func (e CommandEngine) Ask(ctx context.Context, c Call) (string, error) {
	return e.run(ctx, e.Cmd, c, e.timeout())
}

func (e CommandEngine) timeout() time.Duration {
	if e.Timeout <= 0 {
		return 120 * time.Second
	}
	return e.Timeout
}

func (e CommandEngine) run(ctx context.Context, tmpl string, c Call, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vals := map[string]string{"repo_dir": c.RepoDir, "query_file": c.QueryFile, "topk": strconv.Itoa(c.TopK), "budget": strconv.Itoa(c.Budget),
		"id": c.ID, "repo": c.Repo, "commit": c.Commit}
	cmdline := tmpl
	for k, v := range vals {
		cmdline = strings.ReplaceAll(cmdline, "{"+k+"}", shellQuote(v))
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", errors.New("timeout")
	}
	if err != nil {
		tail := errb.String()
		if len(tail) > 300 {
			tail = tail[len(tail)-300:]
		}
		return out.String(), fmt.Errorf("%v: %s", err, tail)
	}
	return out.String(), nil
}

func shellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[\w@%+=:,./-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// ranked is one entry of an engine's answer: a path and maybe a symbol.
type ranked struct{ path, symbol string }

var lineSuffix = regexp.MustCompile(`:\d+(-\d+)?$`)

// normPath is score.py's norm_path: relative to the tree, no ./, no
// :LINE or :START-END suffix, cleaned.
func normPath(p, repoDir string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	real, _ := filepath.EvalSymlinks(repoDir)
	for _, prefix := range []string{repoDir, real} {
		if prefix == "" {
			continue
		}
		prefix = strings.TrimRight(prefix, "/") + "/"
		if strings.HasPrefix(p, prefix) {
			p = p[len(prefix):]
			break
		}
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimLeft(p, "/")
	p = lineSuffix.ReplaceAllString(p, "")
	if p == "" {
		return p
	}
	return path.Clean(p)
}

var (
	symPrefix = regexp.MustCompile(`^(func|def|class|method|function|type)\s+`)
	symRecv   = regexp.MustCompile(`\(\s*\*?\s*([A-Za-z_]\w*)(\[[^\]]*\])?\s*\)`)
)

// normSymbol is score.py's norm_symbol: (*T).M is T.M, no argument list,
// no func/def/class prefix.
func normSymbol(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	s = symPrefix.ReplaceAllString(s, "")
	s = symRecv.ReplaceAllString(s, "$1")
	s, _, _ = strings.Cut(s, "(")
	s = strings.NewReplacer("*", "", "#", ".", ":", ".", "/", ".").Replace(s)
	return strings.TrimSpace(strings.Trim(s, "."))
}

// parseRanked reads an engine's answer in any of score.py's formats.
func parseRanked(text, repoDir string) []ranked {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	var out []ranked
	add := func(r *ranked) {
		if r != nil && r.path != "" {
			out = append(out, *r)
		}
	}
	var data any
	if json.Unmarshal([]byte(text), &data) == nil {
		var seq []any
		switch d := data.(type) {
		case map[string]any:
			if rs, ok := d["results"].([]any); ok {
				seq = rs
			} else {
				// files, then symbols (score.py) or hits (cairn search --json)
				fs, _ := d["files"].([]any)
				ss, _ := d["symbols"].([]any)
				hs, _ := d["hits"].([]any)
				seq = append(append(slices.Clone(fs), ss...), hs...)
			}
		case []any:
			seq = d
		}
		for _, o := range seq {
			add(rankedOf(o, repoDir))
		}
		return out
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "{") {
			var o any
			if json.Unmarshal([]byte(line), &o) == nil {
				add(rankedOf(o, repoDir))
				continue
			}
		}
		tok := line
		if i := strings.IndexAny(line, "\t "); i >= 0 {
			tok = line[:i]
		}
		add(rankedOf(tok, repoDir))
	}
	return out
}

func rankedOf(o any, repoDir string) *ranked {
	switch v := o.(type) {
	case string:
		if p, s, ok := strings.Cut(v, "::"); ok {
			return &ranked{normPath(p, repoDir), normSymbol(s)}
		}
		return &ranked{path: normPath(v, repoDir)}
	case map[string]any:
		p := firstString(v, "path", "file", "filename", "file_path")
		s := firstString(v, "symbol", "name", "function", "qualname")
		if p == "" && strings.Contains(s, "::") {
			p, s, _ = strings.Cut(s, "::")
		}
		if p == "" {
			return nil
		}
		r := &ranked{path: normPath(p, repoDir)}
		if s != "" {
			r.symbol = normSymbol(s)
		}
		return r
	}
	return nil
}

// firstString is Python's `o.get(a) or o.get(b) …` over string values.
func firstString(o map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := o[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// symMatch: one dotted name is a suffix of the other.
func symMatch(ret, gold string) bool {
	split := func(s string) []string {
		var out []string
		for _, x := range strings.Split(s, ".") {
			if x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	a, b := split(ret), split(gold)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	n := min(len(a), len(b))
	return slices.Equal(a[len(a)-n:], b[len(b)-n:])
}

var locKs = []int{1, 5, 10}

// LocRow is one task's localization scores (score.py's per-task fields).
type LocRow struct {
	ID            string             `json:"id"`
	Repo          string             `json:"repo"`
	Language      string             `json:"language"`
	Scores        map[string]float64 `json:"scores"` // acc@k, recall@k, mrr, fn_acc@k, fn_recall@k
	FirstGoldRank int                `json:"first_gold_rank,omitempty"`
	NSymbols      int                `json:"n_symbols"`
	TopFiles      []string           `json:"top_files"`
	TopSymbols    []string           `json:"top_symbols"`
	LatencyS      *float64           `json:"latency_s"`
	PrepS         *float64           `json:"prep_s,omitempty"`
	PrepError     string             `json:"prep_error,omitempty"`
	Error         string             `json:"error,omitempty"`
}

func (r LocRow) RowKey() string { return r.ID }
func (r LocRow) RowOutcome() string {
	return fmt.Sprintf("rank %d, acc@5 %s, fn_acc@10 %s", r.FirstGoldRank, Num(r.Scores["acc@5"]), numOr(r.Scores, "fn_acc@10"))
}

func numOr(m map[string]float64, k string) string {
	if v, ok := m[k]; ok {
		return Num(v)
	}
	return "n/a"
}

// scoreLoc is score.py's score_task.
func scoreLoc(t LocTask, items []ranked) LocRow {
	r := LocRow{ID: t.ID, Repo: t.Repo, Language: t.Language, Scores: map[string]float64{}}
	var files []string
	for _, it := range items {
		if !slices.Contains(files, it.path) {
			files = append(files, it.path)
		}
	}
	for _, k := range locKs {
		top := files[:min(k, len(files))]
		hit := 0
		for _, g := range t.GoldFiles {
			if slices.Contains(top, g) {
				hit++
			}
		}
		r.Scores[fmt.Sprintf("acc@%d", k)] = BoolToFloat(hit == len(t.GoldFiles))
		r.Scores[fmt.Sprintf("recall@%d", k)] = float64(hit) / float64(len(t.GoldFiles))
	}
	rr := 0.0
	for i, p := range files {
		if slices.Contains(t.GoldFiles, p) {
			rr = 1 / float64(i+1)
			r.FirstGoldRank = i + 1
			break
		}
	}
	r.Scores["mrr"] = rr
	var syms []ranked
	for _, it := range items {
		if it.symbol != "" && !slices.Contains(syms, it) {
			syms = append(syms, it)
		}
	}
	r.NSymbols = len(syms)
	if len(t.GoldFunctions) > 0 {
		for _, k := range locKs {
			top := syms[:min(k, len(syms))]
			hit := 0
			for _, g := range t.GoldFunctions {
				gp, gs, _ := strings.Cut(g, "::")
				if slices.ContainsFunc(top, func(s ranked) bool { return s.path == gp && symMatch(s.symbol, gs) }) {
					hit++
				}
			}
			r.Scores[fmt.Sprintf("fn_acc@%d", k)] = BoolToFloat(hit == len(t.GoldFunctions))
			r.Scores[fmt.Sprintf("fn_recall@%d", k)] = float64(hit) / float64(len(t.GoldFunctions))
		}
	}
	r.TopFiles = files[:min(10, len(files))]
	for _, s := range syms[:min(10, len(syms))] {
		r.TopSymbols = append(r.TopSymbols, s.path+"::"+s.symbol)
	}
	return r
}

// LocOptions configure a localize run.
type LocOptions struct {
	Tasks     []LocTask
	ReposRoot string // TREES: ReposRoot/OWNER/NAME@BASE_COMMIT
	Engine    Engine
	TopK      int // {topk}; default 20
	Progress  func(format string, args ...any)
}

// LocResult is a finished localize run.
type LocResult struct {
	Rows    []LocRow
	Groups  []LocGroup
	Summary *Summary
}

// LocGroup is score.py's summary of one group (ALL, lang:X, OWNER/NAME).
type LocGroup struct {
	Name    string             `json:"group"`
	N       int                `json:"n"`
	NFn     int                `json:"n_fn"`
	Metrics map[string]float64 `json:"metrics"`
}

// RunLocalize asks the engine every task's query and scores the answers
// as score.py does.
func RunLocalize(ctx context.Context, o LocOptions) (*LocResult, error) {
	if len(o.Tasks) == 0 {
		return nil, ErrNoTasks
	}
	if o.Engine == nil {
		return nil, errors.New("eval localize: no engine")
	}
	topk := o.TopK
	if topk == 0 {
		topk = 20
	}
	tmp, err := os.MkdirTemp("", "cairn-evalq-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := &LocResult{}
	for n, t := range o.Tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := t.TreeDir(o.ReposRoot)
		qf := filepath.Join(tmp, "query.txt")
		if err := os.WriteFile(qf, []byte(t.Query), 0o644); err != nil {
			return nil, err
		}
		c := Call{RepoDir: dir, QueryFile: qf, Query: t.Query, ID: t.ID, Repo: t.Repo, Commit: t.BaseCommit, TopK: topk}
		var items []ranked
		var row LocRow
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			row = scoreLoc(t, nil)
			row.Error = fmt.Sprintf("missing tree %s (run prepare.sh)", dir)
		} else {
			t0 := time.Now()
			perr := o.Engine.Prep(ctx, c)
			prep := time.Since(t0).Seconds()
			t0 = time.Now()
			out, err := o.Engine.Ask(ctx, c)
			lat := time.Since(t0).Seconds()
			items = parseRanked(out, dir)
			row = scoreLoc(t, items)
			row.LatencyS = &lat
			row.PrepS = &prep
			if perr != nil {
				row.PrepError = perr.Error()
			}
			if err != nil {
				row.Error = err.Error()
			}
		}
		if o.Progress != nil {
			o.Progress("[%d/%d] %s: first gold file rank %d, acc@5 %.0f", n+1, len(o.Tasks), t.ID, row.FirstGoldRank, row.Scores["acc@5"])
		}
		res.Rows = append(res.Rows, row)
	}
	if err := res.summarize(); err != nil {
		return nil, err
	}
	return res, nil
}

// groups are score.py's: ALL, lang:X when there are several languages,
// then each repository.
func locGroups[R any](rows []R, lang, repo func(R) string, langPrefix string) ([]string, map[string][]R) {
	names := []string{"ALL"}
	by := map[string][]R{"ALL": rows}
	var langs, repos []string
	for _, r := range rows {
		if l := lang(r); l != "" && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
		if !slices.Contains(repos, repo(r)) {
			repos = append(repos, repo(r))
		}
	}
	slices.Sort(langs)
	slices.Sort(repos)
	if len(langs) > 1 {
		for _, l := range langs {
			names = append(names, "lang:"+l)
			for _, r := range rows {
				if lang(r) == l {
					by["lang:"+l] = append(by["lang:"+l], r)
				}
			}
		}
	}
	for _, rp := range repos {
		names = append(names, langPrefix+rp)
		for _, r := range rows {
			if repo(r) == rp {
				by[langPrefix+rp] = append(by[langPrefix+rp], r)
			}
		}
	}
	return names, by
}

// locMetricOrder is the headline order of a group's metrics.
var locMetricOrder = []string{"acc@1", "acc@5", "acc@10", "recall@5", "recall@10", "mrr", "fn_acc@1", "fn_acc@5", "fn_acc@10", "fn_recall@5", "fn_recall@10", "latency_mean_s", "latency_median_s", "latency_p90_s", "prep_mean_s", "errors"}

// summarizeLoc is score.py's summarize of one group.
func summarizeLoc(rows []LocRow, anySymbols bool) LocGroup {
	g := LocGroup{N: len(rows), Metrics: map[string]float64{}}
	col := func(k string, rs []LocRow) []float64 {
		var xs []float64
		for _, r := range rs {
			xs = append(xs, r.Scores[k])
		}
		return xs
	}
	for _, k := range []string{"acc@1", "acc@5", "acc@10", "recall@5", "recall@10", "mrr"} {
		g.Metrics[k] = Mean(col(k, rows))
	}
	var fn []LocRow
	for _, r := range rows {
		if _, ok := r.Scores["fn_acc@5"]; ok {
			fn = append(fn, r)
		}
	}
	g.NFn = len(fn)
	if anySymbols && len(fn) > 0 {
		for _, k := range []string{"fn_acc@1", "fn_acc@5", "fn_acc@10", "fn_recall@5", "fn_recall@10"} {
			g.Metrics[k] = Mean(col(k, fn))
		}
	}
	var lat, prep []float64
	errs, perrs := 0, 0
	for _, r := range rows {
		if r.LatencyS != nil {
			lat = append(lat, *r.LatencyS)
		}
		if r.PrepS != nil {
			prep = append(prep, *r.PrepS)
		}
		if r.Error != "" {
			errs++
		}
		if r.PrepError != "" {
			perrs++
		}
	}
	g.Metrics["latency_mean_s"] = Mean(lat)
	g.Metrics["latency_median_s"] = Quantile(lat, 0.5)
	if len(lat) > 0 {
		s := slices.Clone(lat)
		slices.Sort(s)
		g.Metrics["latency_p90_s"] = s[int(0.9*float64(len(s)-1))]
	}
	if len(prep) > 0 {
		g.Metrics["prep_mean_s"] = Mean(prep)
		g.Metrics["prep_errors"] = float64(perrs)
	}
	g.Metrics["errors"] = float64(errs)
	for k, v := range g.Metrics {
		if math.IsNaN(v) {
			delete(g.Metrics, k)
		}
	}
	return g
}

func (res *LocResult) summarize() error {
	anySymbols := false
	for _, r := range res.Rows {
		anySymbols = anySymbols || r.NSymbols > 0
	}
	names, by := locGroups(res.Rows, func(r LocRow) string { return r.Language }, func(r LocRow) string { return r.Repo }, "")
	for _, n := range names {
		g := summarizeLoc(by[n], anySymbols)
		g.Name = n
		res.Groups = append(res.Groups, g)
	}
	all := res.Groups[0]
	m := map[string]float64{}
	var order []string
	for _, k := range locMetricOrder {
		if v, ok := all.Metrics[k]; ok {
			m[k] = Round(v)
			order = append(order, k)
		}
	}
	detail, err := json.Marshal(map[string]any{"groups": res.Groups})
	if err != nil {
		return fmt.Errorf("localize summary: %w", err)
	}
	res.Summary = &Summary{Suite: SuiteLocalize, Tasks: len(res.Rows), Rows: len(res.Rows), Metrics: m, Order: order, Detail: detail}
	return nil
}

// RowList returns the rows as the suite-neutral kind.
func (res *LocResult) RowList() []Row {
	out := make([]Row, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r
	}
	return out
}
