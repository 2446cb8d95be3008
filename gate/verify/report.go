package verify

import (
	"fmt"
	"slices"
	"time"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// Status is a check's outcome, and the report's verdict.
type Status int

const (
	NotRun  Status = iota // the check did not execute what it names (nothing ran, a selected test never ran)
	Pass                  // it executed and every condition held
	Fail                  // it executed and a condition did not hold
	Blocked               // it could not be executed as asked (no diff, a build failure, a time-out, a missing runner)
)

var statusNames = [...]string{"not_run", "pass", "fail", "blocked"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status back (a report or an evidence bundle).
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if string(b) == n {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", b)
}

// Outcome is what happened to one test.
type Outcome string

const (
	OutcomePass        Outcome = "pass"
	OutcomeFail        Outcome = "fail"
	OutcomeSkip        Outcome = "skip"         // never a pass
	OutcomeNotRun      Outcome = "not_run"      // selected, or started, and never finished
	OutcomeFlaky       Outcome = "flaky"        // failed, then passed on a rerun: never a pass
	OutcomePreExisting Outcome = "pre_existing" // fails at the base too: not blamed on the change
)

// TestResult is one test's outcome in a check.
type TestResult struct {
	Package string  `json:"package"`
	Name    string  `json:"name"`
	Outcome Outcome `json:"outcome"`
	Elapsed float64 `json:"elapsed_s,omitempty"`
	Reruns  int     `json:"reruns,omitempty"` // reruns after the first failure
	Runs    int     `json:"runs,omitempty"`   // repetitions started (go test -count=N), when more than one
	Output  string  `json:"output,omitempty"` // bounded excerpt, for tests that did not pass
}

// Check is one criterion executed.
type Check struct {
	ID       string        `json:"id"`
	Text     string        `json:"text"`
	Kind     string        `json:"kind"`
	Status   Status        `json:"status"`
	Reason   string        `json:"reason,omitempty"`
	Argv     []string      `json:"argv,omitempty"`
	Dir      string        `json:"dir,omitempty"` // where argv ran, relative to the workspace root
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"duration_ns"`
	Backend  string        `json:"backend,omitempty"`
	Tests    []TestResult  `json:"tests,omitempty"`
	// BaseTests are the regression check's runs at the base with only the
	// diff's test files applied.
	BaseTests []TestResult `json:"base_tests,omitempty"`
	// Proofs: per regression test, how it failed at the base, how it ran
	// on the change and whether that proves the change (regression.go).
	Proofs   []Proof `json:"proofs,omitempty"`
	Evidence string  `json:"evidence,omitempty"` // bounded excerpt of the output
}

// Finding is one tamper or scope finding. Any finding fails the verdict.
type Finding struct {
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Test      string `json:"test,omitempty"`
	Base      string `json:"base,omitempty"`      // evidence at the base
	Candidate string `json:"candidate,omitempty"` // evidence in the candidate
}

// Report is the gate's answer.
type Report struct {
	Verdict      Status           `json:"verdict"` // pass, fail or blocked
	Reason       string           `json:"reason,omitempty"`
	ContractHash string           `json:"contract_hash"`
	Base         string           `json:"base"`
	Backend      string           `json:"backend"`
	Changed      []sandbox.Change `json:"changed"`
	Criteria     []Check          `json:"criteria"`
	Tamper       []Finding        `json:"tamper"`
	Scope        []Finding        `json:"scope"`
	Duration     time.Duration    `json:"duration_ns"`
}

// Criterion returns the check with the id, or nil.
func (r *Report) Criterion(id string) *Check {
	for i := range r.Criteria {
		if r.Criteria[i].ID == id {
			return &r.Criteria[i]
		}
	}
	return nil
}

// verdict: fail when a criterion failed or a finding stands, else blocked
// when any criterion did not pass, else pass.
func (r *Report) verdict() {
	var failed, unfinished []string
	for _, c := range r.Criteria {
		switch c.Status {
		case Pass:
		case Fail:
			failed = append(failed, c.ID)
		default:
			unfinished = append(unfinished, c.ID+" "+c.Status.String())
		}
	}
	switch {
	case len(failed) > 0 || len(r.Tamper) > 0 || len(r.Scope) > 0:
		r.Verdict = Fail
		r.Reason = fmt.Sprintf("%d criteria failed %v, %d tamper and %d scope findings", len(failed), failed, len(r.Tamper), len(r.Scope))
	case len(r.Criteria) == 0:
		r.Verdict, r.Reason = Blocked, "the contract has no criteria: nothing proves the change"
	case !slices.ContainsFunc(r.Criteria, func(c Check) bool { return c.Kind != "scope" }):
		// a scope check reads paths and runs nothing: a contract of only
		// scope criteria lets the gate check nothing the change does
		r.Verdict, r.Reason = Blocked, "the contract's only criteria are scope checks: nothing executes the change, so nothing proves it (add tests, a command or regression)"
	case len(unfinished) > 0:
		r.Verdict, r.Reason = Blocked, fmt.Sprintf("criteria did not pass: %v", unfinished)
	default:
		r.Verdict = Pass
	}
}

// excerpt keeps the last n bytes of s, marked when cut.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("…(%d bytes cut)\n", len(s)-n) + s[len(s)-n:]
}
