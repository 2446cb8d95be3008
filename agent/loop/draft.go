package loop

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
)

// Draft writes a task contract for a goal, for a person to edit before it
// runs: the objective is the goal; the scope is the directories of the
// code the goal names (the identifiers in it, else what search finds) and
// the test files beside the tests that reach that code (tests may gain
// cases there; the code beside them stays out of scope); the criteria are a regression test,
// those tests (one selector per package), the tests impact selects for the
// diff, and the scope. It returns the YAML and the parsed contract.
// testGlob is the glob of the test files beside the test file p: what the
// draft lets a change add or extend in a directory it does not own.
func testGlob(p string) string {
	d, base := path.Dir(p), path.Base(p)
	var g string
	switch {
	case strings.HasSuffix(base, "_test.go"):
		g = "*_test.go"
	case strings.HasSuffix(base, ".py") && strings.HasPrefix(base, "test_"):
		g = "test_*.py"
	case strings.HasSuffix(base, "_test.py"):
		g = "*_test.py"
	default:
		if i := strings.Index(base, ".test."); i > 0 {
			g = "*" + base[i:]
		} else if i := strings.Index(base, ".spec."); i > 0 {
			g = "*" + base[i:]
		} else {
			g = base
		}
	}
	if d == "." {
		return g
	}
	return d + "/" + g
}

func Draft(ctx context.Context, snap *engine.Snapshot, goal string) ([]byte, *task.Contract, error) {
	goal = strings.TrimSpace(goal)
	if goal == "" {
		return nil, nil, fmt.Errorf("draft: an empty goal")
	}
	var names []string
	var dirs []string
	addDir := func(p string) {
		d := path.Dir(p)
		g := d + "/**"
		if d == "." {
			g = "*"
		}
		if !slices.Contains(dirs, g) {
			dirs = append(dirs, g)
		}
	}
	for _, t := range goalTargets(goal) {
		res, err := snap.Definitions(ctx, engine.DefinitionsOptions{Name: t})
		if err != nil {
			continue
		}
		for _, d := range res.Definitions {
			if !d.Test {
				names = append(names, d.QualifiedName)
				addDir(d.Path)
				break
			}
		}
	}
	if len(names) == 0 {
		res, err := snap.Search(ctx, engine.SearchOptions{Query: goal, Limit: 5})
		if err != nil {
			return nil, nil, fmt.Errorf("draft: search the goal: %w", err)
		}
		for _, h := range res.Hits {
			if h.Symbol != "" && !strings.HasSuffix(h.Path, "_test.go") && !slices.Contains(names, h.Symbol) {
				names = append(names, h.Symbol)
				addDir(h.Path)
			}
			if len(names) >= briefTargets {
				break
			}
		}
	}
	var tests []string // selectors, one per package or file
	var reached []string
	for _, n := range names {
		res, err := snap.Impact(ctx, engine.ImpactOptions{Name: n, All: true})
		if err != nil {
			continue
		}
		for _, t := range res.Tests {
			if g := testGlob(t.Path); !slices.Contains(dirs, path.Dir(t.Path)+"/**") && !slices.Contains(dirs, g) {
				// a test elsewhere may gain a case; its directory's
				// code stays out of scope
				dirs = append(dirs, g)
			}
			var sel string
			switch {
			case strings.HasSuffix(t.Path, ".go") && !verify.IsGoTest(t.Path, t.Name):
				continue
			case strings.HasSuffix(t.Path, "_test.go"):
				sel = "./" + path.Dir(t.Path)
			case strings.HasSuffix(t.Path, ".py"):
				sel = t.Path
			default:
				continue
			}
			if !slices.Contains(tests, sel) {
				tests = append(tests, sel)
			}
			reached = append(reached, t.Name)
		}
	}
	slices.Sort(dirs)
	slices.Sort(tests)
	var b strings.Builder
	b.WriteString("# A task contract drafted by `cairn agent draft` from the engine's impact analysis.\n")
	b.WriteString("# Read and edit it before running: the scope and the criteria are what the gate enforces.\n")
	if len(names) > 0 {
		fmt.Fprintf(&b, "# The goal names: %s.\n", strings.Join(names, ", "))
	}
	if len(reached) > 0 {
		slices.Sort(reached)
		reached = slices.Compact(reached)
		if len(reached) > 10 {
			reached = append(reached[:10], "…")
		}
		fmt.Fprintf(&b, "# Tests that reach that code: %s.\n", strings.Join(reached, ", "))
	}
	fmt.Fprintf(&b, "objective: %s\n", strconv.Quote(goal))
	b.WriteString("base: HEAD\n")
	b.WriteString("scope:\n")
	if len(dirs) == 0 {
		b.WriteString("  write: []   # nothing found: name the directories the change may write\n")
	} else {
		fmt.Fprintf(&b, "  write: [%s]\n", quoteList(dirs))
	}
	b.WriteString("  protected: [\".github/**\", \"**/migrations/**\"]\n")
	b.WriteString("criteria:\n")
	b.WriteString("  - id: regression\n    text: A new regression test fails on the base and passes with the change.\n    check: {regression: true}\n")
	for i, sel := range tests {
		fmt.Fprintf(&b, "  - id: tests-%d\n    text: The tests of %s pass.\n    check: {tests: %s}\n", i+1, sel, strconv.Quote(sel))
	}
	b.WriteString("  - id: impact\n    text: The tests that reach the changed code pass.\n    check: {impact_tests: true}\n")
	b.WriteString("  - id: scope\n    text: The change stays within scope.\n    check: {scope: true}\n")
	b.WriteString("forbidden: [\"no new dependency\", \"no schema migration\"]\n")
	d := DefaultBudgets
	fmt.Fprintf(&b, "budgets: {steps: %d, input_tokens: %d, output_tokens: %d, cost_usd: %g, wall_s: %d}\n", d.Steps, d.InputTokens, d.OutputTokens, d.CostUSD, d.WallS)
	data := []byte(b.String())
	c, err := task.Parse(data)
	if err != nil {
		return data, nil, fmt.Errorf("draft: the drafted contract does not parse (a bug): %w", err)
	}
	return data, c, nil
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}
