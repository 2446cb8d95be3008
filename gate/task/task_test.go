package task

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustParseFile(t *testing.T, path string) *Contract {
	t.Helper()
	c, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseExample(t *testing.T) {
	c := mustParseFile(t, "testdata/example.yaml")
	want := &Contract{
		Objective: "After a page refresh, a finished task's download link is still shown.",
		Base:      "HEAD",
		Scope:     Scope{Write: []string{"internal/**", "web/src/**"}, Protected: []string{"migrations/**", ".github/**"}},
		Criteria: []Criterion{
			{ID: "regression", Text: "A new regression test fails on the base and passes with the change.", Check: Check{Kind: CheckRegression}},
			{ID: "api-tests", Text: "The API package's tests pass.", Check: Check{Kind: CheckTests, Selector: "./internal/api/..."}},
			{ID: "build", Text: "Everything builds and vets.", Check: Check{Kind: CheckCommand, Argv: []string{"go", "vet", "./..."}}},
			{ID: "impact", Text: "The tests that reach the changed code pass.", Check: Check{Kind: CheckImpactTests}},
			{ID: "scope", Text: "The change stays within scope.", Check: Check{Kind: CheckScope}},
		},
		Forbidden: []string{"no schema migration", "no new dependency"},
		Budgets:   Budgets{Steps: 60, InputTokens: 2000000, OutputTokens: 100000, CostUSD: 5, WallS: 1800},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if qs := Questions(c); len(qs) != 0 {
		t.Errorf("the example raises questions: %v", qs)
	}
}

// TestHashIgnoresFormat: the same contract as block YAML, reformatted JSON
// (other key order, glob order, a repeated glob, base left out) hashes the
// same; the canonical encoding parses back to the same hash.
func TestHashIgnoresFormat(t *testing.T) {
	y := mustParseFile(t, "testdata/example.yaml")
	j := mustParseFile(t, "testdata/example.json")
	if y.Hash() != j.Hash() {
		t.Errorf("yaml %s != json %s\nyaml %s\njson %s", y.Hash(), j.Hash(), y.Canonical(), j.Canonical())
	}
	back, err := Parse(y.Canonical())
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != y.Hash() {
		t.Errorf("canonical round trip changed the hash:\n%s\n%s", y.Canonical(), back.Canonical())
	}
}

// TestHashSeesMeaning: every semantic edit changes the hash.
func TestHashSeesMeaning(t *testing.T) {
	base := mustParseFile(t, "testdata/example.yaml")
	edits := map[string]func(c *Contract){
		"objective":     func(c *Contract) { c.Objective += "!" },
		"base":          func(c *Contract) { c.Base = "main" },
		"write":         func(c *Contract) { c.Scope.Write = append(c.Scope.Write, "cmd/**") },
		"write to prot": func(c *Contract) { c.Scope.Protected = append(c.Scope.Protected, c.Scope.Write[0]) },
		"criteria order": func(c *Contract) {
			c.Criteria[0], c.Criteria[1] = c.Criteria[1], c.Criteria[0]
		},
		"selector":   func(c *Contract) { c.Criteria[1].Check.Selector = "./internal/..." },
		"argv":       func(c *Contract) { c.Criteria[2].Check.Argv = []string{"go", "vet"} },
		"kind":       func(c *Contract) { c.Criteria[4].Check.Kind = CheckImpactTests },
		"text":       func(c *Contract) { c.Criteria[3].Text = "x" },
		"forbidden":  func(c *Contract) { c.Forbidden = c.Forbidden[:1] },
		"budget":     func(c *Contract) { c.Budgets.CostUSD = 5.01 },
		"escalation": func(c *Contract) { c.Escalation.MaxGateFailures = 2 },
	}
	seen := map[string]string{base.Hash(): "unchanged"}
	for name, edit := range edits {
		c := base.Clone()
		edit(c)
		h := c.Hash()
		if prev, dup := seen[h]; dup {
			t.Errorf("%s: same hash as %s", name, prev)
		}
		seen[h] = name
	}
	if base.Hash() != mustParseFile(t, "testdata/example.yaml").Hash() {
		t.Error("an edit of a clone changed the original")
	}
}

func TestParseErrors(t *testing.T) {
	const ok = "objective: fix the refresh bug in the mapper\n"
	tests := []struct {
		name, in string
		want     []string // each an error's text, in order
	}{
		{"empty", "", []string{"empty contract"}},
		{"not a mapping", "- a\n- b\n", []string{"a contract is a mapping (objective, base, scope, criteria, …) (line 1)"}},
		{"unknown top field", ok + "budget: {steps: 1}\n", []string{"budget: unknown field (known: objective, base, scope, criteria, forbidden, budgets, escalation, allow) (line 2)"}},
		{"unknown nested", ok + "scope: {write: [a/**], writable: [b]}\n", []string{"scope.writable: unknown field (known: write, protected) (line 2)"}},
		{"unknown check kind", ok + "criteria:\n  - {id: a, text: t, check: {test: ./...}}\n", []string{
			"criteria[0].check.test: unknown field (known: tests, command, regression, impact_tests, scope) (line 3)",
		}},
		{"no objective", "base: HEAD\n", []string{"objective: required: say what must be true when the task is done"}},
		{"repeated key", ok + "objective: again\n", []string{"objective: given twice (line 2)"}},
		{"two documents", ok + "---\nobjective: b\n", []string{"more than one YAML document (line 2)"}},
		{"wrong type", ok + "budgets: {steps: many}\n", []string{`budgets.steps: want a whole number, got text "many" (line 2)`}},
		{"float steps", ok + "budgets: {steps: 1.5}\n", []string{`budgets.steps: want a whole number, got a number "1.5" (line 2)`}},
		{"negative", ok + "budgets: {cost_usd: -1}\n", []string{"budgets.cost_usd: must be a finite number ≥ 0 (0: the harness's default) (line 2)"}},
		{"list wanted", ok + "scope: {write: internal/**}\n", []string{`scope.write: want a list, got text "internal/**" (line 2)`}},
		{"check with no kind", ok + "criteria:\n  - {id: a, text: t, check: {}}\n", []string{
			"criteria[0].check: exactly one of tests, command, regression, impact_tests, scope; got none (line 3)",
		}},
		{"check with two kinds", ok + "criteria:\n  - {id: a, text: t, check: {}}\n  - id: b\n    text: t\n    check: {tests: ./..., scope: true}\n", []string{
			"criteria[0].check: exactly one of tests, command, regression, impact_tests, scope; got none (line 3)",
			"criteria[1].check: exactly one of tests, command, regression, impact_tests, scope; got tests and scope (line 6)",
		}},
		{"duplicate id", ok + "criteria:\n  - {id: t, text: a, check: {scope: true}}\n  - {id: t, text: b, check: {regression: true}}\n", []string{
			`criteria[1].id: "t" is already the id of criteria[0] (line 4)`,
		}},
		{"missing id and text", ok + "criteria:\n  - check: {scope: true}\n", []string{"criteria[0].id: required", "criteria[0].text: required: the sentence a reviewer reads"}},
		{"bad id", ok + "criteria:\n  - {id: 'a b', text: t, check: {scope: true}}\n", []string{
			`criteria[0].id: "a b": use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit) (line 3)`,
		}},
		{"false check", ok + "criteria:\n  - {id: a, text: t, check: {regression: false}}\n", []string{
			"criteria[0].check.regression: false checks nothing: write true or remove the criterion (line 3)",
		}},
		{"empty argv", ok + "criteria:\n  - {id: a, text: t, check: {command: []}}\n", []string{
			"criteria[0].check.command: want an argv list with a program first, e.g. [go, vet, ./...] (line 3)",
		}},
		{"empty selector", ok + "criteria:\n  - {id: a, text: t, check: {tests: ' '}}\n", []string{
			"criteria[0].check.tests: empty selector: give the runner's own (./pkg/..., a pytest node id, a jest file) (line 3)",
		}},
		{"bad globs", ok + "scope:\n  write: ['/etc/**', '../x', 'a/[b', './a', '']\n  protected: ['a\\b']\n", []string{
			`scope.write[0]: "/etc/**": absolute; write it relative to the repository root (line 3)`,
			`scope.write[1]: "../x": no . or .. segments: the scope is inside the repository (line 3)`,
			`scope.write[2]: "a/[b": not a valid glob (unbalanced [ ] or { }) (line 3)`,
			`scope.write[3]: "./a": drop the leading ./ (line 3)`,
			`scope.write[4]: "": empty (line 3)`,
			`scope.protected[0]: "a\\b": use '/' between path segments (and no '\' escapes) (line 4)`,
		}},
		{"bad allow", ok + "allow:\n  harness: ['/x_test.go']\n  tests: ['', TestA]\n", []string{
			`allow.harness[0]: "/x_test.go": absolute; write it relative to the repository root (line 3)`,
			`allow.tests[0]: "": give a test's name as a tests criterion names it (TestX, test_x, a jest title) (line 4)`,
		}},
		{"unknown allow", ok + "allow: {fewer_assertions: [x]}\n", []string{"allow.fewer_assertions: unknown field (known: harness, tests) (line 2)"}},
		{"option as base", ok + "base: --output=/tmp/x\n", []string{`base: "--output=/tmp/x" may not start with '-' (line 2)`}},
		{"range as base", ok + "base: main..HEAD\n", []string{`base: "main..HEAD" is a range; give one revision (line 2)`}},
		{"alias", ok + "scope: {write: &w [a/**], protected: *w}\n", []string{"scope.protected: YAML aliases (*w) are not supported: write the value out (line 2)"}},
		{"null objective", "objective:\n", []string{"objective: no value (line 1)"}},
		{"json unknown", `{"objective": "fix the mapper bug now", "crit": []}`, []string{"crit: unknown field (known: objective, base, scope, criteria, forbidden, budgets, escalation, allow) (line 1)"}},
		{"json repeated", "{\"objective\": \"a b c\",\n \"objective\": \"d\"}", []string{"objective: given twice (line 2)"}},
		{"json trailing", `{"objective": "fix the mapper bug now"} {}`, []string{"json: data after the contract's closing brace (line 1)"}},
		{"json wrong type", "{\"objective\": \"a b c\",\n \"criteria\": [{\"id\": \"x\", \"text\": \"t\", \"check\": {\"scope\": \"yes\"}}]}", []string{
			`criteria[0].check.scope: want true or false, got text "yes" (line 2)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("parsed: %s", c.Canonical())
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T %v, want Errors", err, err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestParseJSONFile: a .json file is JSON only; the YAML fallback is for
// contracts without the extension.
func TestParseJSONFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(p, []byte("{objective: fix the mapper bug now}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFile(p); err == nil || !strings.Contains(err.Error(), "json: ") {
		t.Errorf("ParseFile(.json with YAML flow) = %v, want a json error", err)
	}
	if c, err := Parse([]byte("{objective: fix the mapper bug now}")); err != nil || c.Objective != "fix the mapper bug now" {
		t.Errorf("Parse(YAML flow) = %v, %v", c, err)
	}
}

func TestQuestions(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // fields asked about
	}{
		{"complete", "objective: keep the link after refresh\nscope: {write: [internal/**]}\ncriteria: [{id: r, text: t, check: {regression: true}}]\n", nil},
		{"nothing but an objective", "objective: keep the link after refresh\n", []string{"scope.write", "criteria"}},
		{"short objective", "objective: fix it\nscope: {write: [internal/**]}\ncriteria: [{id: r, text: t, check: {tests: ./...}}]\n", []string{"objective"}},
		{"write anywhere", "objective: keep the link after refresh\nscope: {write: [internal/**, '**']}\ncriteria: [{id: r, text: t, check: {command: [make]}}]\n", []string{"scope.write[1]"}},
		{"only scope criterion", "objective: keep the link after refresh\nscope: {write: [a/**]}\ncriteria: [{id: s, text: t, check: {scope: true}}]\n", []string{"criteria"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range Questions(c) {
				if q.Text == "" {
					t.Errorf("%s: empty question", q.Field)
				}
				got = append(got, q.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func gitRepo(t *testing.T) (dir, head string) {
	t.Helper()
	dir = t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	run("commit", "-q", "--allow-empty", "-m", "one")
	run("tag", "v1")
	run("commit", "-q", "--allow-empty", "-m", "two")
	return dir, run("rev-parse", "HEAD")
}

func TestStartResolvesBase(t *testing.T) {
	repo, head := gitRepo(t)
	c := mustParseFile(t, "testdata/example.yaml")
	a, err := Start(context.Background(), c, repo)
	if err != nil {
		t.Fatal(err)
	}
	if a.Commit() != head {
		t.Errorf("commit %s, want HEAD %s", a.Commit(), head)
	}
	if a.Hash() != c.Hash() {
		t.Errorf("attempt hash %s, contract %s", a.Hash(), c.Hash())
	}
	// The attempt froze a copy: editing the contract or the attempt's
	// copy changes neither the attempt's contract nor its hash.
	c.Scope.Write[0] = "**"
	a.Contract().Criteria[0].Check.Kind = CheckScope
	a.Contract().Criteria[2].Check.Argv[0] = "rm"
	if err := a.Check(); err != nil {
		t.Error(err)
	}
	if got := a.Contract().Scope.Write[0]; got != "internal/**" {
		t.Errorf("attempt's scope.write[0] = %q after editing the contract", got)
	}

	c2 := a.Contract()
	c2.Base = "v1"
	a2, err := Start(context.Background(), c2, repo)
	if err != nil {
		t.Fatal(err)
	}
	if a2.Commit() == head || a2.Hash() == a.Hash() {
		t.Errorf("base v1: commit %s hash %s, same as HEAD's", a2.Commit(), a2.Hash())
	}

	for _, rev := range []string{"nope", "HEAD~5", "--all"} {
		c3 := a.Contract()
		c3.Base = rev
		var fe *FieldError
		if _, err := Start(context.Background(), c3, repo); !errors.As(err, &fe) || fe.Path != "base" {
			t.Errorf("base %q: %v, want a base FieldError", rev, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/example.yaml", "testdata/example.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("objective: x\ncriteria: [{id: a, text: b, check: {command: [go, test]}}]\n"))
	f.Add([]byte(`{"objective": "x", "scope": {"write": ["a/**"]}}`))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v, want a non-empty Errors", err, err)
			}
			return
		}
		// A parsed contract's canonical form parses to the same hash.
		back, err := Parse(c.Canonical())
		if err != nil {
			t.Fatalf("canonical %s does not parse: %v", c.Canonical(), err)
		}
		if back.Hash() != c.Hash() {
			t.Fatalf("round trip changed the hash:\n%s\n%s", c.Canonical(), back.Canonical())
		}
		_ = Questions(c)
	})
}

// TestAllow: allow parses, its sets are canonical (sorted, deduplicated),
// and a contract without it keeps the encoding — and the hash — it had
// before the field existed.
func TestAllow(t *testing.T) {
	const body = "objective: fix the refresh bug in the mapper\n"
	plain, err := Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain.Canonical()), "allow") {
		t.Errorf("a contract without allow encodes it: %s", plain.Canonical())
	}
	c, err := Parse([]byte(body + "allow:\n  harness: [server/main_test.go, conftest.py, conftest.py]\n  tests: [TestB, TestA]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Allow{Harness: []string{"server/main_test.go", "conftest.py", "conftest.py"}, Tests: []string{"TestB", "TestA"}}
	if diff := cmp.Diff(want, c.Allow); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if c.Hash() == plain.Hash() {
		t.Error("allow does not change the hash")
	}
	reordered, err := Parse([]byte(body + "allow: {tests: [TestA, TestB], harness: [conftest.py, server/main_test.go]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if reordered.Hash() != c.Hash() {
		t.Errorf("allow's order changes the hash:\n%s\n%s", c.Canonical(), reordered.Canonical())
	}
	back, err := Parse(c.Canonical())
	if err != nil || back.Hash() != c.Hash() {
		t.Errorf("canonical round trip: %v\n%s", err, c.Canonical())
	}
	cl := c.Clone()
	cl.Allow.Harness[0] = "x"
	if c.Allow.Harness[0] == "x" {
		t.Error("Clone shares allow.harness")
	}
}
