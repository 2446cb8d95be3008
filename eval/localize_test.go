package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/eval/evaltest"
)

// The localize and context suites must give the Python scorers' numbers
// (../shared/bench/localization, the reference): the same engine answers
// scored by both, every metric compared.

const scorers = "../../shared/bench/localization"

// fixtureApp is the fixture the synthetic slice's tree is made from.
const fixtureApp = "../testdata/apps/artifact-dropped"

func needScorers(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(scorers)
	if _, err := os.Stat(filepath.Join(dir, "score_context.py")); err != nil {
		t.Skipf("the Python scorers are not at %s: %v", dir, err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 runs the reference scorers: %v", err)
	}
	return dir
}

const pySource = `import functools


def plain(x):
    return x + 1


@functools.lru_cache(maxsize=None)
def cached(y):
    def inner(z):
        return z * 2
    return inner(y)


class Report:
    """A report."""

    limit = 10

    @property
    def size(self):
        return self.limit

    @size.setter
    def size(self, v):
        self.limit = v

    def render(self, rows):
        out = []
        for r in rows:
            out.append(str(r))
        # a trailing comment
        return "\n".join(out)
        # trailing, inside the method's block


def after():
    return 1
`

// syntheticSlice is a tree of the artifact-dropped fixture plus a Python
// file, three tasks over it, and engine answers in files (the command
// engine cats them).
func syntheticSlice(t *testing.T) (root, tasksFile, answers string, tasks []LocTask) {
	t.Helper()
	root = t.TempDir()
	commit := "c0ffee0000000000000000000000000000000001"
	tree := filepath.Join(root, "example", "app@"+commit)
	evaltest.CopyTree(t, fixtureApp, tree)
	os.MkdirAll(filepath.Join(tree, "tools"), 0o755)
	os.WriteFile(filepath.Join(tree, "tools", "report.py"), []byte(pySource), 0o644)
	tasks = []LocTask{
		{ID: "example__app-1", Repo: "example/app", BaseCommit: commit, Language: "go", Query: "the artifact disappears after a refresh",
			GoldFiles: []string{"server/mapper.go", "server/models.go"}, GoldFunctions: []string{"server/mapper.go::ToResponse", "server/models.go::TaskResponse", "server/store.go::Store.LoadTask"}},
		{ID: "example__app-2", Repo: "example/app", BaseCommit: commit, Language: "python", Query: "the report size is wrong",
			GoldFiles: []string{"tools/report.py"}, GoldFunctions: []string{"tools/report.py::Report.size", "tools/report.py::cached", "tools/report.py::Report.render", "tools/report.py::missing"}},
		{ID: "example__app-3", Repo: "example/app", BaseCommit: commit, Language: "go", Query: "handlers",
			GoldFiles: []string{"server/handlers.go"}},
		{ID: "example__app-4", Repo: "example/other", BaseCommit: commit, Language: "go", Query: "a task whose tree is missing",
			GoldFiles: []string{"main.go"}, GoldFunctions: []string{"main.go::main"}},
	}
	answers = t.TempDir()
	loc := map[string]string{
		// cairn search's envelope: files first, then hits with symbols
		"example__app-1": `{"query":"q","results":[{"path":"server/handlers.go","kind":"file"},{"path":"` + tree + `/server/mapper.go","kind":"file"},
			{"path":"./server/models.go:3-9"},{"path":"server/mapper.go","symbol":"func ToResponse(t Task)"},{"path":"server/store.go","symbol":"(*Store).LoadTask"},{"path":"server/models.go","symbol":"main.TaskResponse"}]}`,
		// JSON Lines and path::symbol strings
		"example__app-2": `{"file":"tools/report.py","name":"Report.render"}` + "\n" + `{"path":"tools/report.py","function":"def size"}` + "\n",
		// plain text, one path a line, scores after a tab
		"example__app-3": "server/store.go\t0.9\nserver/main.go 0.5\nserver/handlers.go::handleGet\n",
	}
	ctx := map[string]string{
		"example__app-1": `{"items":[{"path":"server/mapper.go","start_line":3,"end_line":9,"kind":"function","content":"func ToResponse…"},
			{"path":"server/models.go","start_line":11,"end_line":12},{"path":"server/store.go:1-4"},{"path":"server/nothere.go","start_line":1,"end_line":3}],"used_tokens":120}`,
		"example__app-2": `[{"path":"tools/report.py","start":20,"end":22},{"file":"tools/report.py","start_line":30,"end_line":28},{"path":"tools/report.py","start_line":9}]`,
		"example__app-3": `{"path":"server/handlers.go"}` + "\n" + `{"path":"server/main.go","start_line":1,"end_line":2}` + "\n",
	}
	for id, a := range loc {
		os.WriteFile(filepath.Join(answers, id+".json"), []byte(a), 0o644)
	}
	for id, a := range ctx {
		for _, b := range []int{100, 4000} {
			os.WriteFile(filepath.Join(answers, fmt.Sprintf("%s-%d.json", id, b)), []byte(a), 0o644)
		}
	}
	tasksFile = writeTasks(t, tasks)
	return root, tasksFile, answers, tasks
}

func writeTasks(t *testing.T, tasks []LocTask) string {
	t.Helper()
	var b strings.Builder
	for _, tk := range tasks {
		line, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	f := filepath.Join(t.TempDir(), "tasks.jsonl")
	os.WriteFile(f, []byte(b.String()), 0o644)
	return f
}

func runPython(t *testing.T, script string, args ...string) map[string]any {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	cmd := exec.Command("python3", append([]string{script, "--quiet", "--out", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, b)
	}
	data, _ := os.ReadFile(out)
	// Python writes the mean of nothing as NaN, which JSON has not
	data = regexp.MustCompile(`: (-?Infinity|NaN)\b`).ReplaceAll(data, []byte(": null"))
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// agree compares every metric of want (Python's) that got has too, and
// fails on a metric Python has and Go does not.
func agree(t *testing.T, what string, got map[string]float64, want map[string]any, skip ...string) int {
	t.Helper()
	n := 0
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, ok := want[k].(float64)
		if !ok || strings.HasPrefix(k, "latency") || strings.HasPrefix(k, "prep_mean") || contains(skip, k) {
			continue
		}
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: %s = %v in Python, absent in Go", what, k, w)
			continue
		}
		if math.Abs(g-w) > 1e-9 {
			t.Errorf("%s: %s = %v, Python %v", what, k, g, w)
		}
		n++
	}
	return n
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func locAgree(t *testing.T, dir, root, tasksFile string, tasks []LocTask, cmd string) {
	t.Helper()
	res, err := RunLocalize(context.Background(), LocOptions{Tasks: tasks, ReposRoot: root, Engine: CommandEngine{Cmd: cmd}})
	if err != nil {
		t.Fatal(err)
	}
	py := runPython(t, filepath.Join(dir, "score.py"), "--tasks", tasksFile, "--repos-root", root, "--cmd", cmd)
	summ := py["summary"].(map[string]any)
	compared := 0
	for _, g := range res.Groups {
		want, ok := summ[g.Name].(map[string]any)
		if !ok {
			t.Errorf("group %s: not in Python's summary (%v)", g.Name, keysOf(summ))
			continue
		}
		m := map[string]float64{"n": float64(g.N), "n_fn": float64(g.NFn)}
		for k, v := range g.Metrics {
			m[k] = v
		}
		compared += agree(t, "localize "+g.Name, m, want)
	}
	if len(res.Groups) != len(summ) {
		t.Errorf("groups: Go %d, Python %d (%v)", len(res.Groups), len(summ), keysOf(summ))
	}
	for i, pt := range py["tasks"].([]any) {
		p := pt.(map[string]any)
		r := res.Rows[i]
		if fr, _ := p["first_gold_rank"].(float64); int(fr) != r.FirstGoldRank {
			t.Errorf("%s: first gold rank %d, Python %v", r.ID, r.FirstGoldRank, p["first_gold_rank"])
		}
		if got, want := strings.Join(r.TopSymbols, ","), joinAny(p["top_symbols"]); got != want {
			t.Errorf("%s: top symbols %s, Python %s", r.ID, got, want)
		}
	}
	if compared < 20 {
		t.Errorf("only %d metrics compared", compared)
	}
}

func TestLocalizeAgreesWithScorePy(t *testing.T) {
	dir := needScorers(t)
	root, tasksFile, answers, tasks := syntheticSlice(t)
	locAgree(t, dir, root, tasksFile, tasks, "cat "+answers+"/{id}.json 2>/dev/null")
}

func ctxAgree(t *testing.T, dir, root, tasksFile string, tasks []LocTask, cmd string, budgets []int) *CtxResult {
	t.Helper()
	res, err := RunContext(context.Background(), CtxOptions{Tasks: tasks, ReposRoot: root, Engine: CommandEngine{Cmd: cmd}, Budgets: budgets})
	if err != nil {
		t.Fatal(err)
	}
	var bs []string
	for _, b := range budgets {
		bs = append(bs, fmt.Sprint(b))
	}
	py := runPython(t, filepath.Join(dir, "score_context.py"), "--tasks", tasksFile, "--repos-root", root, "--cmd", cmd, "--budgets", strings.Join(bs, ","))
	summ := py["summary"].(map[string]any)["engine"].(map[string]any)
	compared := 0
	for _, g := range res.Groups {
		byB, ok := summ[g.Name].(map[string]any)
		if !ok {
			t.Errorf("group %s not in Python's (%v)", g.Name, keysOf(summ))
			continue
		}
		compared += agree(t, fmt.Sprintf("context %s@%d", g.Name, g.Budget), g.Metrics, byB[fmt.Sprint(g.Budget)].(map[string]any))
	}
	// the gold spans themselves
	for i, pt := range py["tasks"].([]any) {
		p := pt.(map[string]any)["gold_spans"].(map[string]any)
		for k, v := range p {
			want, err := json.Marshal(v.(map[string]any)["spans"])
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(res.Rows[i].GoldSpans[k].Spans)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s %s: spans %s, Python %s", res.Rows[i].ID, k, got, want)
			}
		}
	}
	if un := py["unresolved_gold_functions"].([]any); len(un) != len(res.Unresolved) {
		t.Errorf("unresolved: Go %v, Python %v", res.Unresolved, un)
	}
	if compared < 20 {
		t.Errorf("only %d metrics compared", compared)
	}
	return res
}

func TestContextAgreesWithScoreContextPy(t *testing.T) {
	dir := needScorers(t)
	root, tasksFile, answers, tasks := syntheticSlice(t)
	res := ctxAgree(t, dir, root, tasksFile, tasks, "cat "+answers+"/{id}-{budget}.json 2>/dev/null", []int{100, 4000})
	// what the slice is built to show: the property's two definitions are
	// one span, the missing function is unresolved
	if sp := res.Rows[1].GoldSpans["tools/report.py::Report.size"].Spans; len(sp) != 2 {
		t.Errorf("Report.size spans %v, want the getter and the setter", sp)
	}
	if len(res.Unresolved) != 1 || !strings.Contains(res.Unresolved[0], "missing") {
		t.Errorf("unresolved %v", res.Unresolved)
	}
}

// TestDevSliceAgrees scores the first Go tasks of the dev set on their real
// grpc-go trees (git archive from the fetched mirror): file prefixes as
// packs, the gold files reversed with distractors as rankings.
func TestDevSliceAgrees(t *testing.T) {
	dir := needScorers(t)
	mirror := os.Getenv("CAIRN_GRPC_GO_GIT")
	if mirror == "" {
		mirror = "/work/.mirror/grpc+grpc-go/repo"
	}
	if _, err := os.Stat(mirror); err != nil {
		t.Skipf("no grpc-go mirror at %s", mirror)
	}
	all, err := LoadLocTasks(filepath.Join(dir, "tasks_go.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tasks := all[:3]
	root := t.TempDir()
	answers := t.TempDir()
	for _, tk := range tasks {
		tree := tk.TreeDir(root)
		os.MkdirAll(tree, 0o755)
		if out, err := exec.Command("sh", "-c", "git --git-dir="+mirror+" archive "+tk.BaseCommit+" | tar -x -C "+tree).CombinedOutput(); err != nil {
			t.Fatalf("archive %s: %v %s", tk.BaseCommit, err, out)
		}
		var res []map[string]string
		res = append(res, map[string]string{"path": "README.md"})
		for i := len(tk.GoldFiles) - 1; i >= 0; i-- {
			res = append(res, map[string]string{"path": tk.GoldFiles[i]})
		}
		for _, g := range tk.GoldFunctions {
			p, s, _ := strings.Cut(g, "::")
			if r, m, ok := strings.Cut(s, "."); ok {
				s = "(*" + r + ")." + m
			}
			res = append(res, map[string]string{"path": p, "symbol": s})
		}
		b, err := json.Marshal(map[string]any{"results": res})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(answers, tk.ID+".json"), b, 0o644)
		for _, budget := range []int{4000, 16000} {
			var items []map[string]any
			for _, f := range tk.GoldFiles {
				items = append(items, map[string]any{"path": f, "start_line": 1, "end_line": budget / 40})
			}
			b, err := json.Marshal(map[string]any{"items": items})
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(answers, fmt.Sprintf("%s-%d.json", tk.ID, budget)), b, 0o644)
		}
	}
	tasksFile := writeTasks(t, tasks)
	locAgree(t, dir, root, tasksFile, tasks, "cat "+answers+"/{id}.json")
	ctxAgree(t, dir, root, tasksFile, tasks, "cat "+answers+"/{id}-{budget}.json", []int{4000, 16000})
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func joinAny(v any) string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return strings.Join(out, ",")
}
