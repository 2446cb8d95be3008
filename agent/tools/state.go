package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/gate/policy"
)

// The task-state tools hand what the model states to the loop's Recorder:
// the plan and notes are task state, kept and shown to the model by the
// loop, not prose in a transcript. finish ends the loop and decides
// nothing: the verification gate does.

// Bounds of what the model states.
const (
	maxNote  = 4 << 10
	maxSteps = 50
)

// NoteKinds are the kinds of note.
var NoteKinds = []string{"fact", "hypothesis", "decision", "question", "not_to_do"}

type noteIn struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

func (t *toolbox) note() Tool {
	return newTool("note",
		"Record in the task state what you learned or decided: a fact (confirmed by a tool's answer), a hypothesis (to test), a decision, a question for the person, or not_to_do (an approach that failed or must not be tried). Notes survive a resumed run; prose does not.",
		[]field{
			{"kind", map[string]any{"type": "string", "enum": NoteKinds, "description": "fact, hypothesis, decision, question or not_to_do"}, true},
			{"text", str(fmt.Sprintf("the note, at most %d bytes", maxNote)), true},
		}, nil,
		func(ctx context.Context, in noteIn) (policy.Result, error) {
			ok := false
			for _, k := range NoteKinds {
				ok = ok || in.Kind == k
			}
			if !ok {
				return refuse("kind must be one of %s.", strings.Join(NoteKinds, ", "))
			}
			if p := stated("text", in.Text, maxNote); p != "" {
				return refuse("%s", p)
			}
			if err := t.env.Recorder.Note(ctx, in.Kind, in.Text); err != nil {
				return policy.Result{}, fmt.Errorf("record note: %w", err)
			}
			return policy.TextResult("Noted ("+in.Kind+").", false), nil
		})
}

type planIn struct {
	Steps []string `json:"steps"`
}

func (t *toolbox) plan() Tool {
	return newTool("plan",
		"Set the plan: the steps still to do, in order. It replaces the previous plan and is kept in the task state.",
		[]field{{"steps", map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1, "maxItems": maxSteps,
			"description": fmt.Sprintf("the steps, 1-%d, each a sentence", maxSteps)}, true}}, nil,
		func(ctx context.Context, in planIn) (policy.Result, error) {
			if len(in.Steps) == 0 || len(in.Steps) > maxSteps {
				return refuse("steps must have 1-%d entries, not %d.", maxSteps, len(in.Steps))
			}
			for i, s := range in.Steps {
				if p := stated(fmt.Sprintf("step %d", i+1), s, maxNote); p != "" {
					return refuse("%s", p)
				}
			}
			if err := t.env.Recorder.Plan(ctx, in.Steps); err != nil {
				return policy.Result{}, fmt.Errorf("record plan: %w", err)
			}
			return policy.TextResult(fmt.Sprintf("Plan of %d steps recorded.", len(in.Steps)), false), nil
		})
}

type finishIn struct {
	RootCause string `json:"root_cause"`
	Summary   string `json:"summary"`
}

func (t *toolbox) finish() Tool {
	return newTool("finish",
		"End the work: say the root cause you found and what you changed. This decides nothing: the verification gate then runs the task's checks.",
		[]field{
			{"root_cause", str("why the problem happened, citing path:line"), true},
			{"summary", str("what you changed and how you checked it"), true},
		}, nil,
		func(ctx context.Context, in finishIn) (policy.Result, error) {
			for _, f := range [][2]string{{"root_cause", in.RootCause}, {"summary", in.Summary}} {
				if p := stated(f[0], f[1], 4*maxNote); p != "" {
					return refuse("%s", p)
				}
			}
			if err := t.env.Recorder.Finish(ctx, in.RootCause, in.Summary); err != nil {
				return policy.Result{}, fmt.Errorf("record finish: %w", err)
			}
			return policy.TextResult("Finished: the verification gate decides whether the task is done.", false), nil
		})
}

// stated checks a text the model states: not blank, no NUL, bounded.
func stated(what, s string, n int) string {
	switch {
	case strings.TrimSpace(s) == "":
		return what + " is empty."
	case strings.ContainsRune(s, 0):
		return what + " has a NUL byte."
	case len(s) > n:
		return fmt.Sprintf("%s is %d bytes: at most %d.", what, len(s), n)
	}
	return ""
}
