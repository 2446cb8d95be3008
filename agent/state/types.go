package state

import (
	"encoding/json"
	"time"

	"github.com/cairn-dev/cairn/gate/policy"
)

// Event is one line of a run's event log.
type Event struct {
	Seq          int64           `json:"seq"` // 1, 2, 3… with no gaps
	Time         time.Time       `json:"time"`
	Kind         string          `json:"kind"`
	Step         int             `json:"step"`
	ContractHash string          `json:"contract_hash"`
	Data         json.RawMessage `json:"data,omitempty"`
}

// Event kinds the harness writes. Kind is a free string; these are the ones
// cairn itself uses, so readers can switch on them.
const (
	KindRunStarted         = "run_started"
	KindSandbox            = "sandbox" // the commands' isolation: backend, and what weakened or was ignored
	KindBrief              = "brief"
	KindModelRequest       = "model_request"
	KindModelCall          = "model_call"
	KindModelRetry         = "model_retry"
	KindToolCall           = "tool_call"
	KindToolResult         = "tool_result"
	KindPolicy             = "policy"
	KindCheck              = "check"
	KindCheckpoint         = "checkpoint"
	KindCompaction         = "compaction"
	KindRebuild            = "rebuild"
	KindPermissionRequest  = "permission_request"
	KindPermissionDecision = "permission_decision"
	KindEscalation         = "escalation"
	KindNote               = "note"
	KindPlan               = "plan"
	KindFinish             = "finish"
	KindSnapshot           = "snapshot"
	KindRepeat             = "repeat"
	KindError              = "error"
	KindResumed            = "resumed"
	KindRunFinished        = "run_finished"
	// KindRecovered is written by Open when it dropped a torn last line.
	KindRecovered = "recovered"
)

// Meta describes a run; it is written once, by Create, to meta.json.
type Meta struct {
	// Format is the run directory's format version (FormatVersion), set by
	// Create and checked by Open and Read.
	Format       int       `json:"format"`
	RunID        string    `json:"run_id"`
	Repo         string    `json:"repo"`
	Base         string    `json:"base"`
	ContractHash string    `json:"contract_hash"`
	Model        string    `json:"model"`
	Created      time.Time `json:"created"`
	CairnVersion string    `json:"cairn_version"`
}

// TaskState is the loop's durable memory: what a resumed run rebuilds its
// model input from. SaveCheckpoint persists it.
type TaskState struct {
	// Seq is the sequence number of the last event this state reflects
	// (set by SaveCheckpoint).
	Seq  int64 `json:"seq"`
	Step int   `json:"step"`
	// Status: running, needs_clarification, paused (waiting for
	// permission), verified, unverified, failed, escalated, aborted.
	Status    string `json:"status"`
	EndReason string `json:"end_reason,omitempty"`
	Objective string `json:"objective"`
	// Brief is the pre-edit brief the loop built.
	Brief            string     `json:"brief,omitempty"`
	Facts            []Note     `json:"facts,omitempty"`
	Hypotheses       []Note     `json:"hypotheses,omitempty"`
	Decisions        []Note     `json:"decisions,omitempty"`
	Questions        []Note     `json:"questions,omitempty"`
	NotToDo          []Note     `json:"not_to_do,omitempty"`
	Plan             []PlanStep `json:"plan,omitempty"`
	FilesRead        []string   `json:"files_read,omitempty"`
	FilesModified    []string   `json:"files_modified,omitempty"`
	FailedApproaches []string   `json:"failed_approaches,omitempty"`
	Tests            []TestRun  `json:"tests,omitempty"`
	NextAction       string     `json:"next_action,omitempty"`
	// Pending is a tool call begun and not known to have finished: resume
	// reconciles it by observing the worktree.
	Pending *PendingCall `json:"pending,omitempty"`
	// Recent is the last few tool exchanges verbatim (the working set).
	Recent []Exchange `json:"recent,omitempty"`
	Usage  Totals     `json:"usage"`
	// Snapshot is the sandbox commit after the last edit step.
	Snapshot  string `json:"snapshot,omitempty"`
	RootCause string `json:"root_cause,omitempty"`
	Summary   string `json:"summary,omitempty"`
	// Repeats counts action fingerprints (loop detection).
	Repeats        map[string]int `json:"repeats,omitempty"`
	RepeatWarnings int            `json:"repeat_warnings,omitempty"`
	// Grants are the permissions a person granted during the run.
	Grants     []policy.Grant `json:"grants,omitempty"`
	Violations int            `json:"violations,omitempty"`
	Finished   bool           `json:"finished,omitempty"`
}

// Note is a fact, hypothesis, decision, question or not-to-do.
type Note struct {
	Step int    `json:"step"`
	Text string `json:"text"`
}

// PlanStep is one step of the model's plan.
type PlanStep struct {
	Text string `json:"text"`
	Done bool   `json:"done,omitempty"`
}

// TestRun is one run_tests outcome.
type TestRun struct {
	Step     int      `json:"step"`
	Selector string   `json:"selector"`
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Skipped  int      `json:"skipped"`
	Failing  []string `json:"failing,omitempty"`
	OK       bool     `json:"ok"`
}

// PendingCall is a tool call begun and not known to have finished.
type PendingCall struct {
	Step      int             `json:"step"`
	ToolUseID string          `json:"tool_use_id"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input,omitempty"`
	Started   time.Time       `json:"started"`
}

// Exchange is one tool call and its result, verbatim.
type Exchange struct {
	Step    int             `json:"step"`
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input,omitempty"`
	Result  string          `json:"result"`
	IsError bool            `json:"is_error,omitempty"`
}

// Totals is a run's usage so far.
type Totals struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	ModelCalls       int     `json:"model_calls"`
	ToolCalls        int     `json:"tool_calls"`
	// Wall is the wall time spent driving the run, in seconds.
	Wall float64 `json:"wall_s"`
}
