package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/agent/state"
)

// recorder is the harness as the task-state tools see it: note, plan and
// finish change task state (not prose in a transcript), and the file and
// test tools report what they read, changed and ran.
type recorder harness

func (r *recorder) Note(ctx context.Context, kind, text string) error {
	if err := r.addNote(kind, text, r.st.Step); err != nil {
		return err
	}
	_, err := r.run.Append(state.KindNote, r.st.Step, map[string]any{"kind": kind, "text": text})
	return err
}

// addNote changes task state only (reconcile folds logged notes with it).
func (r *recorder) addNote(kind, text string, step int) error {
	st := r.st
	n := state.Note{Step: step, Text: text}
	switch kind {
	case "fact":
		st.Facts = append(st.Facts, n)
	case "hypothesis":
		st.Hypotheses = append(st.Hypotheses, n)
	case "decision":
		st.Decisions = append(st.Decisions, n)
	case "question":
		st.Questions = append(st.Questions, n)
	case "not_to_do":
		st.NotToDo = append(st.NotToDo, n)
	default:
		return fmt.Errorf("note kind %q: want fact, hypothesis, decision, question or not_to_do", kind)
	}
	return nil
}

func (r *recorder) Plan(ctx context.Context, steps []string) error {
	r.setPlan(steps)
	_, err := r.run.Append(state.KindPlan, r.st.Step, map[string]any{"steps": steps})
	return err
}

func (r *recorder) setPlan(steps []string) {
	done := map[string]bool{}
	for _, p := range r.st.Plan {
		done[p.Text] = p.Done
	}
	r.st.Plan = r.st.Plan[:0]
	for _, s := range steps {
		text, marked := strings.CutPrefix(strings.TrimSpace(s), "[x] ")
		r.st.Plan = append(r.st.Plan, state.PlanStep{Text: text, Done: marked || done[text]})
	}
}

func (r *recorder) Finish(ctx context.Context, rootCause, summary string) error {
	r.st.RootCause, r.st.Summary = rootCause, summary
	r.finished = true
	_, err := r.run.Append(state.KindFinish, r.st.Step, map[string]any{"root_cause": rootCause, "summary": summary})
	return err
}

func (r *recorder) Read(path string) {
	if !slices.Contains(r.st.FilesRead, path) {
		r.st.FilesRead = append(r.st.FilesRead, path)
	}
}

func (r *recorder) Modified(path string) {
	if !slices.Contains(r.st.FilesModified, path) {
		r.st.FilesModified = append(r.st.FilesModified, path)
		slices.Sort(r.st.FilesModified)
	}
}

func (r *recorder) Tested(selector string, passed, failed, skipped int, failing []string) {
	r.st.Tests = append(r.st.Tests, state.TestRun{Step: r.st.Step, Selector: selector, Passed: passed, Failed: failed, Skipped: skipped, Failing: failing, OK: failed == 0 && passed > 0})
}
