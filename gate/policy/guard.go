package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/internal/must"
)

// Tool is what the agent calls: a stable name and a run over JSON input.
// Its two error channels are those of STYLE.md: a problem the model can fix
// is a Result with IsError set and text that says what to do; a broken
// environment is a Go error and ends the turn.
type Tool interface {
	Name() string
	Run(ctx context.Context, input json.RawMessage) (Result, error)
}

// Result is a tool's answer to the model.
type Result struct {
	Content json.RawMessage `json:"content"` // the structured result, or a JSON string
	IsError bool            `json:"is_error,omitempty"`
}

// TextResult is a Result holding text.
func TextResult(text string, isError bool) Result {
	return Result{Content: must.JSON(text), IsError: isError}
}

// Declarer is a tool that says, from its input alone and before it runs,
// what a call will do. Only declaring tools can be guarded: a tool that
// writes nothing and runs nothing declares empty Effects. An error means
// the input is malformed (the model's to fix).
type Declarer interface {
	Tool
	Effects(input json.RawMessage) (Effects, error)
}

// Event is one decision, as the audit log keeps it.
type Event struct {
	Time     time.Time       `json:"time"`
	Tool     string          `json:"tool"`
	Input    json.RawMessage `json:"input"`
	Effects  Effects         `json:"effects"`
	Decision Decision        `json:"decision"`
}

// Auditor records decisions. The agent's state package implements it with
// its event log (sequence numbers, fsync); an error there is a broken
// environment, and the call does not run.
type Auditor interface {
	Decided(ctx context.Context, e Event) error
}

// AuditorFunc adapts a function to Auditor.
type AuditorFunc func(ctx context.Context, e Event) error

func (f AuditorFunc) Decided(ctx context.Context, e Event) error { return f(ctx, e) }

// PermissionRequest is the Go error a guarded tool returns when a person
// must decide (Mode Ask, attended): the loop pauses the run durably until
// approve or deny, then calls Checker.Grant or tells the model the reason.
type PermissionRequest struct {
	Tool     string
	Input    json.RawMessage
	Decision Decision
}

func (r *PermissionRequest) Error() string {
	return fmt.Sprintf("permission needed for %s: %s", r.Tool, r.Decision.Reason)
}

// Guard wraps a tool with the policy: every call's declared effects are
// checked before it runs, the decision is recorded through the auditor
// (in call order), and a call not allowed does not run — the model gets
// the reason as an error result, or, when a person must decide, the loop
// gets a *PermissionRequest.
func Guard(t Declarer, c *Checker, a Auditor) Tool {
	return &guarded{inner: t, checker: c, audit: a}
}

type guarded struct {
	inner   Declarer
	checker *Checker
	audit   Auditor
}

func (g *guarded) Name() string { return g.inner.Name() }

func (g *guarded) Run(ctx context.Context, input json.RawMessage) (Result, error) {
	eff, err := g.inner.Effects(input)
	var d Decision
	if err != nil {
		d = Decision{Verdict: Deny, Rule: "input", Reason: fmt.Sprintf("The arguments of %s are malformed: %v", g.inner.Name(), err)}
	} else {
		d = g.checker.Check(eff)
	}
	if aerr := g.audit.Decided(ctx, Event{Time: time.Now().UTC(), Tool: g.inner.Name(), Input: input, Effects: eff, Decision: d}); aerr != nil {
		return Result{}, fmt.Errorf("audit %s: %w", g.inner.Name(), aerr)
	}
	switch d.Verdict {
	case Allow:
		return g.inner.Run(ctx, input)
	case AskPerson:
		return Result{}, &PermissionRequest{Tool: g.inner.Name(), Input: input, Decision: d}
	}
	return TextResult("Refused by policy: "+d.Reason, true), nil
}
