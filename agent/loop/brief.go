package loop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/verify"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/retrieval/query"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// Bounds of the brief.
const (
	briefTargets   = 3
	briefSites     = 6
	briefTests     = 8
	guidanceBytes  = 3000
	briefGuidances = 4
)

// guidanceFiles are the repository's own instructions, read as project
// guidance (material for the model; they cannot widen the policy).
var guidanceFiles = []string{"AGENTS.md", "CLAUDE.md", "CONTRIBUTING.md", ".github/CONTRIBUTING.md", "CONTRIBUTING"}

// identPattern finds the values a goal names: CamelCase, snake_case,
// dotted or backquoted identifiers.
var identPattern = regexp.MustCompile("`([^`]{2,80})`|\\b([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)+|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*)\\b")

// brief is what the run knows before its first edit: the user's branch and
// uncommitted changes (never overwritten), the repository's instructions,
// the write and read paths of the values the goal names, the tests that
// reach them with their commands, and risk flags.
func (h *harness) brief(ctx context.Context) (string, error) {
	c := h.att.Contract()
	var b strings.Builder
	fmt.Fprintf(&b, "Objective: %s\n", c.Objective)
	fmt.Fprintf(&b, "Base commit: %s (the sandbox is a separate worktree of it)\n", h.att.Commit())
	branch := gitOut(ctx, h.o.Repo, "rev-parse", "--abbrev-ref", "HEAD")
	status := gitOut(ctx, h.o.Repo, "status", "--porcelain", "--untracked-files=normal")
	fmt.Fprintf(&b, "User's branch: %s\n", branch)
	if status != "" {
		lines := strings.Split(status, "\n")
		if len(lines) > 20 {
			lines = append(lines[:20], fmt.Sprintf("… %d more", len(lines)-20))
		}
		fmt.Fprintf(&b, "User's uncommitted changes (never overwritten; apply refuses to touch a file changed since the base):\n  %s\n", strings.Join(lines, "\n  "))
	}

	// Project guidance.
	var guides []string
	for _, f := range guidanceFiles {
		data, err := os.ReadFile(filepath.Join(h.ws.Dir, filepath.FromSlash(f)))
		if err != nil || len(guides) >= briefGuidances {
			continue
		}
		guides = append(guides, fmt.Sprintf("--- %s (project guidance, material) ---\n%s", f, redact.Bound(redact.Text(string(data)), guidanceBytes)))
	}
	if t := makeTargets(h.ws.Dir); t != "" {
		guides = append(guides, "--- Makefile test targets ---\n"+t)
	}
	if t := npmTest(h.ws.Dir); t != "" {
		guides = append(guides, "--- package.json scripts ---\n"+t)
	}
	if len(guides) > 0 {
		b.WriteString("\nRepository instructions:\n")
		b.WriteString(strings.Join(guides, "\n"))
		b.WriteString("\n")
	}

	snap, err := h.eng.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer snap.Release()

	// The changes the goal names ("regressed in #3165", a commit hash):
	// what each changed, from the commit history — where a regression's
	// cause usually is.
	// (one search answers this and, below, what the goal is about)
	var found *engine.SearchResult
	searched := false
	search := func() *engine.SearchResult {
		if !searched {
			searched = true
			found, _ = snap.Search(ctx, engine.SearchOptions{Query: c.Objective, Limit: 5})
		}
		return found
	}
	if len(query.Parse(c.Objective).Refs) > 0 {
		if res := search(); res != nil && len(res.Named) > 0 {
			b.WriteString("\nChanges the goal names (commit history):\n")
			for _, n := range res.Named {
				fmt.Fprintf(&b, "  %s: %s %q changed %s\n", n.Ref, n.Hash[:min(12, len(n.Hash))], n.Subject, n.FileList(briefSites))
			}
		}
	}

	// The values the goal names, else the definitions search finds.
	targets := goalTargets(c.Objective)
	if len(targets) == 0 {
		if res := search(); res != nil {
			for _, hit := range res.Hits {
				if hit.Symbol != "" && !slices.Contains(targets, hit.Symbol) {
					targets = append(targets, hit.Symbol)
				}
			}
		}
	}
	if len(targets) > briefTargets {
		targets = targets[:briefTargets]
	}
	var risks []string
	tests := map[string]string{}
	for _, t := range targets {
		tr, err := snap.Trace(ctx, engine.TraceOptions{Target: t})
		if err != nil {
			fmt.Fprintf(&b, "\nTrace %s: %s\n", t, engine.Classify(err).Message)
			continue
		}
		if len(tr.Writes) == 0 && len(tr.Reads) == 0 {
			fmt.Fprintf(&b, "\nTrace %s: no writes or reads found\n", t)
			continue
		}
		fmt.Fprintf(&b, "\nTrace %s (%d writes, %d reads):\n", t, len(tr.Writes), len(tr.Reads))
		for i, s := range append(append([]traceSite{}, sites(tr.Writes)...), sites(tr.Reads)...) {
			if i >= briefSites*2 {
				break
			}
			b.WriteString("  " + s.line + "\n")
			if strings.HasSuffix(s.path, ".sql") || strings.Contains(s.path, "migration") {
				risks = append(risks, "a schema or migration file holds "+t+": "+s.path)
			}
		}
		for _, f := range tr.Flows {
			if len(f.Steps) == 0 {
				continue
			}
			var names []string
			for _, st := range f.Steps {
				names = append(names, st.Name)
			}
			fmt.Fprintf(&b, "  %s path: %s %s → %s\n", f.Kind, f.Entry.Kind, f.Entry.Label, strings.Join(names, " → "))
		}
		for _, g := range tr.Gaps {
			fmt.Fprintf(&b, "  GAP %s at %s:%d: %s\n", g.Kind, g.Path, g.StartLine, g.Message)
		}
		// The tests that reach the functions on the paths.
		for _, s := range tr.Writes {
			if s.Func != nil {
				h.briefTests(ctx, snap, s.Func.Name, s.Path, tests, &risks)
			}
		}
		for _, s := range tr.Reads {
			if s.Func != nil {
				h.briefTests(ctx, snap, s.Func.Name, s.Path, tests, &risks)
			}
		}
	}
	if len(tests) > 0 {
		b.WriteString("\nTests that reach this code (run them with run_tests):\n")
		keys := make([]string, 0, len(tests))
		for k := range tests {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i >= briefTests {
				fmt.Fprintf(&b, "  … %d more\n", len(keys)-i)
				break
			}
			fmt.Fprintf(&b, "  %s: %s\n", k, tests[k])
		}
	} else if len(targets) > 0 {
		b.WriteString("\nNo test reaches this code yet: the regression test you add will be the first.\n")
	}
	slices.Sort(risks)
	risks = slices.Compact(risks)
	if len(risks) > 0 {
		b.WriteString("\nRisk flags:\n")
		for _, r := range risks {
			b.WriteString("  - " + r + "\n")
		}
	}
	return b.String(), nil
}

type traceSite struct{ path, line string }

func sites(xs []trace.Site) []traceSite {
	var out []traceSite
	for _, x := range xs {
		fn := ""
		if x.Func != nil {
			fn = " in " + x.Func.Name
		}
		line := fmt.Sprintf("%s %s:%d%s (%s, %s): %s", x.Access, x.Path, x.StartLine, fn, x.How, x.Confidence, redact.Bound(strings.TrimSpace(x.Snippet), 160))
		out = append(out, traceSite{x.Path, line})
	}
	return out
}

// briefTests adds the tests that reach one function, and risk flags from
// its impact.
func (h *harness) briefTests(ctx context.Context, snap *engine.Snapshot, name, file string, tests map[string]string, risks *[]string) {
	if len(tests) >= briefTests*2 {
		return
	}
	res, err := snap.Impact(ctx, engine.ImpactOptions{Name: name, Path: file})
	if err != nil {
		return
	}
	for _, t := range res.Tests {
		if strings.HasSuffix(t.Path, ".go") && !verify.IsGoTest(t.Path, t.Name) {
			continue // a benchmark, an example, TestMain: nothing -run selects
		}
		key := t.Path + " " + t.Name
		if _, ok := tests[key]; !ok {
			tests[key] = selectorFor(t.Path, t.Name, t.Selector)
		}
	}
	if res.Risk.Public {
		*risks = append(*risks, fmt.Sprintf("%s is public API (exported, used across packages)", name))
	}
	if len(res.Risk.Untested) > 0 {
		*risks = append(*risks, fmt.Sprintf("%s has %d dependents no test reaches", name, len(res.Risk.Untested)))
	}
}

func selectorFor(p, name, sel string) string {
	if strings.HasSuffix(p, "_test.go") {
		return fmt.Sprintf("./%s -run ^%s$", path.Dir(p), name)
	}
	if sel != "" {
		return sel
	}
	return p
}

// goalTargets are the identifiers a goal names, in order.
func goalTargets(goal string) []string {
	var out []string
	for _, m := range identPattern.FindAllStringSubmatch(goal, -1) {
		t := m[1]
		if t == "" {
			t = m[2]
		}
		if strings.ContainsAny(t, " /") || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func gitOut(ctx context.Context, dir string, args ...string) string {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

var makeTarget = regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]*test[A-Za-z0-9_.-]*):.*$`)

func makeTargets(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "Makefile"))
	if err != nil {
		return ""
	}
	var lines []string
	for _, m := range makeTarget.FindAllStringSubmatch(string(data), 8) {
		lines = append(lines, "make "+m[1])
	}
	return strings.Join(lines, "\n")
}

var npmScript = regexp.MustCompile(`"(test[^"]*)"\s*:\s*"([^"]*)"`)

func npmTest(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var lines []string
	for _, m := range npmScript.FindAllStringSubmatch(string(data), 8) {
		lines = append(lines, fmt.Sprintf("npm run %s  (%s)", m[1], redact.Bound(m[2], 200)))
	}
	return strings.Join(lines, "\n")
}
