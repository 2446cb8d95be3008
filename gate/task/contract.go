package task

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
)

// Contract is a parsed, validated task contract. Its slices are the caller's
// to read; an attempt keeps its own copy (see Attempt), so nothing that edits
// a Contract after the attempt starts changes what the attempt runs against.
type Contract struct {
	Objective  string      `json:"objective"`
	Base       string      `json:"base"` // a revision as written; "HEAD" when the file leaves it out
	Scope      Scope       `json:"scope"`
	Criteria   []Criterion `json:"criteria"`
	Forbidden  []string    `json:"forbidden"`
	Budgets    Budgets     `json:"budgets"`
	Escalation Escalation  `json:"escalation"`
	// Allow names the harness edits and specified tests the change may
	// make; left out of the canonical encoding when empty, so a contract
	// without it keeps its hash.
	Allow Allow `json:"allow,omitzero"`
}

// Allow is what the gate's tamper check lets the change do by name, and
// nothing else: Harness globs (slash-separated, relative to the
// repository root, as the scope's) name the files whose test harness the
// change may edit — a TestMain, an init function, an os.Exit or framing
// output in a Go test file, conftest.py and pytest plugins, the test
// runners' configuration, the test targets of a Makefile or package.json;
// Tests names the tests a tests criterion names (a -run name, a pytest
// node id's function, a jest/vitest title) whose body the change may edit.
type Allow struct {
	Harness []string `json:"harness,omitempty" yaml:"harness"`
	Tests   []string `json:"tests,omitempty" yaml:"tests"`
}

// IsZero reports an Allow that allows nothing.
func (a Allow) IsZero() bool { return len(a.Harness) == 0 && len(a.Tests) == 0 }

// Scope is where the change may write and what it must not touch. Globs are
// slash-separated, relative to the repository root, with ** matching any
// number of path segments.
type Scope struct {
	Write     []string `json:"write" yaml:"write"`
	Protected []string `json:"protected" yaml:"protected"`
}

// Criterion is one acceptance criterion: an id unique in the contract, the
// sentence a person reads, and the check the gate executes.
type Criterion struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Check Check  `json:"check"`
}

// CheckKind names what a criterion's check executes.
type CheckKind int

const (
	CheckNone        CheckKind = iota // never valid in a parsed contract
	CheckTests                        // {tests: SELECTOR}: the runner's own selector
	CheckCommand                      // {command: [argv…]}: exit 0 passes
	CheckRegression                   // {regression: true}: a new test fails on the base, passes on the change
	CheckImpactTests                  // {impact_tests: true}: the tests impact selects for the diff pass
	CheckScope                        // {scope: true}: every changed path within scope
)

// checkKeys are the contract's spellings, indexed by CheckKind.
var checkKeys = [...]string{"", "tests", "command", "regression", "impact_tests", "scope"}

func (k CheckKind) String() string {
	if k <= CheckNone || int(k) >= len(checkKeys) {
		return fmt.Sprintf("CheckKind(%d)", int(k))
	}
	return checkKeys[k]
}

// Check is one criterion's check: exactly one kind, with the selector for
// CheckTests and the argv for CheckCommand.
type Check struct {
	Kind     CheckKind
	Selector string   // CheckTests
	Argv     []string // CheckCommand
}

// MarshalJSON writes the check in the contract's own shape ({"tests": …},
// {"command": […]}, {"regression": true} …), so a canonical encoding parses
// back to the same contract.
func (c Check) MarshalJSON() ([]byte, error) {
	switch c.Kind {
	case CheckTests:
		return json.Marshal(map[string]string{"tests": c.Selector})
	case CheckCommand:
		return json.Marshal(map[string][]string{"command": c.Argv})
	case CheckRegression, CheckImpactTests, CheckScope:
		return json.Marshal(map[string]bool{c.Kind.String(): true})
	}
	return nil, fmt.Errorf("marshal check: kind %v", c.Kind)
}

// Budgets are the run's hard ceilings; zero leaves a ceiling to the
// harness's default.
type Budgets struct {
	Steps        int     `json:"steps" yaml:"steps"`
	InputTokens  int64   `json:"input_tokens" yaml:"input_tokens"`
	OutputTokens int64   `json:"output_tokens" yaml:"output_tokens"`
	CostUSD      float64 `json:"cost_usd" yaml:"cost_usd"`
	WallS        int     `json:"wall_s" yaml:"wall_s"`
}

// Escalation says when a run stops trying and hands the task back to a
// person: after MaxGateFailures rejected candidates (0: the harness's
// default), with Contact, free text naming who is told, in the escalation.
type Escalation struct {
	MaxGateFailures int    `json:"max_gate_failures" yaml:"max_gate_failures"`
	Contact         string `json:"contact" yaml:"contact"`
}

// Canonical is the contract's canonical encoding: JSON with a fixed key
// order, the base defaulted, the scope globs sorted and deduplicated (they
// are sets), criteria and forbidden in file order (the order is shown and
// reported). Canonical output parses back to an equal contract.
func (c *Contract) Canonical() []byte {
	n := *c
	n.Scope.Write = sortedSet(c.Scope.Write)
	n.Scope.Protected = sortedSet(c.Scope.Protected)
	n.Allow = Allow{Harness: sortedSetOrNil(c.Allow.Harness), Tests: sortedSetOrNil(c.Allow.Tests)}
	n.Criteria = slices.Clone(c.Criteria)
	if n.Criteria == nil {
		n.Criteria = []Criterion{}
	}
	if n.Forbidden == nil {
		n.Forbidden = []string{}
	}
	b, err := json.Marshal(&n)
	if err != nil {
		// Every field is a plain value and a parsed contract's checks
		// all have a kind: a failure here is a bug, not bad input.
		panic(fmt.Sprintf("task: canonical encoding: %v", err))
	}
	return b
}

// Hash is "sha256:" and the hex digest of Canonical: reformatting the file
// (YAML or JSON, comments, key order, flow or block style, glob order) keeps
// it; any change of meaning changes it.
func (c *Contract) Hash() string {
	sum := sha256.Sum256(c.Canonical())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Clone returns a deep copy.
func (c *Contract) Clone() *Contract {
	n := *c
	n.Scope.Write = slices.Clone(c.Scope.Write)
	n.Scope.Protected = slices.Clone(c.Scope.Protected)
	n.Forbidden = slices.Clone(c.Forbidden)
	n.Allow.Harness = slices.Clone(c.Allow.Harness)
	n.Allow.Tests = slices.Clone(c.Allow.Tests)
	n.Criteria = make([]Criterion, len(c.Criteria))
	for i, cr := range c.Criteria {
		cr.Check.Argv = slices.Clone(cr.Check.Argv)
		n.Criteria[i] = cr
	}
	if c.Criteria == nil {
		n.Criteria = nil
	}
	return &n
}

func sortedSet(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// sortedSetOrNil is sortedSet with an empty set left out (omitempty).
func sortedSetOrNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return sortedSet(s)
}
