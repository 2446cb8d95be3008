package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/internal/must"
)

// Suite names.
const (
	SuiteLocalize = "localize"
	SuiteContext  = "context"
	SuiteGate     = "gate"
	SuiteAgent    = "agent"
)

// Summary is what every suite writes to summary.json: its headline
// metrics (what a baseline is compared on), and the suite's own detail.
type Summary struct {
	Suite   string             `json:"suite"`
	Tasks   int                `json:"tasks"`
	Rows    int                `json:"rows"`
	Metrics map[string]float64 `json:"metrics"`
	// Order is the metrics' display order.
	Order  []string        `json:"metric_order"`
	Detail json.RawMessage `json:"detail,omitempty"`
	// Baseline is the comparison with --baseline DIR, when given.
	Baseline *Comparison `json:"baseline,omitempty"`
}

// Row is what the suites' rows have in common for a comparison: a key (a
// task, or a task and variant) and an outcome that changed or did not.
type Row interface {
	RowKey() string
	RowOutcome() string
}

// Comparison is a run against a baseline run: the headline metrics' deltas
// and the rows whose outcome changed.
type Comparison struct {
	Dir     string            `json:"dir"`
	Deltas  []Delta           `json:"deltas"`
	Changed []ChangedRow      `json:"changed"`
	Added   []string          `json:"added,omitempty"`   // keys only in this run
	Removed []string          `json:"removed,omitempty"` // keys only in the baseline
	Rows    map[string]string `json:"-"`                 // the baseline's outcomes, by key
}

// Delta is one metric now and in the baseline.
type Delta struct {
	Metric   string  `json:"metric"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	Delta    float64 `json:"delta"`
}

// ChangedRow is a row whose outcome moved.
type ChangedRow struct {
	Key      string `json:"key"`
	Baseline string `json:"baseline"`
	Current  string `json:"current"`
}

// baselineRow is a row of another run as a comparison reads it.
type baselineRow struct {
	Key     string `json:"key"`
	Outcome string `json:"outcome"`
}

// Compare reads a previous run's DIR/summary.json and DIR/rows.jsonl and
// compares this run with it. Runs of different suites do not compare.
func Compare(dir string, cur *Summary, rows []Row) (*Comparison, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var base Summary
	if err := json.Unmarshal(data, &base); err != nil {
		return nil, fmt.Errorf("baseline %s: summary.json: %w", dir, err)
	}
	if base.Suite != cur.Suite {
		return nil, fmt.Errorf("baseline %s is a %q run, not %q", dir, base.Suite, cur.Suite)
	}
	brows, err := ReadLines[baselineRow](filepath.Join(dir, "rows.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	c := &Comparison{Dir: dir, Rows: map[string]string{}}
	for _, m := range cur.Order {
		b, ok := base.Metrics[m]
		if !ok {
			continue
		}
		v := cur.Metrics[m]
		c.Deltas = append(c.Deltas, Delta{Metric: m, Baseline: b, Current: v, Delta: Round(v - b)})
	}
	for _, r := range brows {
		if r.Key != "" {
			c.Rows[r.Key] = r.Outcome
		}
	}
	seen := map[string]bool{}
	for _, r := range rows {
		k := r.RowKey()
		seen[k] = true
		b, ok := c.Rows[k]
		switch {
		case !ok:
			c.Added = append(c.Added, k)
		case b != r.RowOutcome():
			c.Changed = append(c.Changed, ChangedRow{Key: k, Baseline: b, Current: r.RowOutcome()})
		}
	}
	for k := range c.Rows {
		if !seen[k] {
			c.Removed = append(c.Removed, k)
		}
	}
	sort.Strings(c.Removed)
	return c, nil
}

// Write writes DIR/rows.jsonl (one row a line, each with its key and
// outcome besides the suite's own fields) and DIR/summary.json.
func Write(dir string, sum *Summary, rows []Row) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range rows {
		line, err := RowJSON(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.jsonl"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "summary.json"), append(data, '\n'), 0o644)
}

// RowJSON is the row's own JSON object with "key" and "outcome" added.
func RowJSON(r Row) ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("row %s is not a JSON object: %w", r.RowKey(), err)
	}
	m["key"], m["outcome"] = must.JSON(r.RowKey()), must.JSON(r.RowOutcome())
	return json.Marshal(m)
}

// ReadLines reads a JSON Lines file, blank lines skipped; a line that does
// not parse is an error naming the line.
func ReadLines[T any](file string) ([]T, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no tasks", file)
	}
	return out, nil
}

// ErrNoTasks is a selection that left nothing to run.
var ErrNoTasks = errors.New("no tasks selected")

// Round rounds a metric to six decimals (NaN and infinities as they are).
func Round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	return math.Round(v*1e6) / 1e6
}

// Mean is the arithmetic mean of xs (NaN for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Quantile is the q-quantile of xs by linear interpolation between the
// closest ranks (NaN for none).
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// BoolToFloat is 1 for true and 0 for false: a rate is the Mean of such.
func BoolToFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
