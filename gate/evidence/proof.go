package evidence

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/gate/verify"
)

// RunSummary is what an agent run spent and was refused, for the
// reviewer's summary: the steps, the model calls and tool calls, the
// policy's refusals, the tokens and the cost — and whether the cost was
// priced (an unpriced model's cost is unknown, not zero).
type RunSummary struct {
	RunID          string  `json:"run_id"`
	Status         string  `json:"status,omitempty"`
	Steps          int     `json:"steps"`
	ModelCalls     int     `json:"model_calls"`
	ToolCalls      int     `json:"tool_calls"`
	PolicyRefusals int     `json:"policy_refusals"`
	InputTokens    int64   `json:"input_tokens"`
	OutputTokens   int64   `json:"output_tokens"`
	CostUSD        float64 `json:"cost_usd"`
	CostPriced     bool    `json:"cost_priced"`
	PriceNote      string  `json:"price_note,omitempty"` // the price applied when the model had none
	WallS          float64 `json:"wall_s"`
}

// markdown is the summary's line in CHANGE.md.
func (s *RunSummary) markdown() string {
	if s == nil {
		return ""
	}
	cost := fmt.Sprintf("$%.4f", s.CostUSD)
	switch {
	case !s.CostPriced && s.PriceNote != "":
		cost += " (" + s.PriceNote + ")"
	case !s.CostPriced:
		cost = "unknown (the model has no price)"
	}
	return fmt.Sprintf("Agent run `%s`: %d steps, %d model calls, %d tool calls, %d refused by the policy, %d input and %d output tokens, cost %s, %.0f s.\n\n",
		s.RunID, s.Steps, s.ModelCalls, s.ToolCalls, s.PolicyRefusals, s.InputTokens, s.OutputTokens, cost, s.WallS)
}

// modelSaid marks a text as the model's statement: what the agent said it
// found or did, which the gate did not check — the criteria that back the
// change are listed beside it.
func modelSaid(w *strings.Builder, what, text string) {
	fmt.Fprintf(w, "_The model's %s, in its words (not checked by the gate):_\n\n", what)
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		w.WriteString("> " + l + "\n")
	}
	w.WriteString("\n")
}

// backing is the line under Cause and Fix that names what the gate ran to
// back them: each criterion with its status.
func backing(r *verify.Report) string {
	if r == nil || len(r.Criteria) == 0 {
		return "_Nothing the gate ran backs it._\n"
	}
	var parts []string
	for _, c := range r.Criteria {
		parts = append(parts, fmt.Sprintf("%s **%s**", c.ID, c.Status))
	}
	return "Backed by the gate's checks: " + strings.Join(parts, ", ") + " (below).\n"
}

// ran is what a criterion executed, in one cell.
func ran(c verify.Check) string {
	switch {
	case len(c.Argv) > 0:
		s := "`" + strings.ReplaceAll(shellJoin(c.Argv), "`", "'") + "`"
		if c.Dir != "" && c.Dir != "." {
			s += " in `" + c.Dir + "`"
		}
		return s
	case c.Kind == "scope":
		return "the changed paths against the scope"
	}
	return "—"
}

// proofs writes, per regression test, how it failed at the base (the
// message or build error), how it ran on the change, and whether that
// proves the change.
func proofs(w *strings.Builder, r *verify.Report) {
	var any bool
	for _, c := range r.Criteria {
		if len(c.Proofs) == 0 {
			continue
		}
		if !any {
			w.WriteString("\n### Regression tests: at the base and on the change\n\n")
			any = true
		}
		for _, p := range c.Proofs {
			verdict := "does **not** prove the change"
			if p.Counts {
				verdict = "proves the change"
			}
			base := string(p.BaseOutcome)
			if p.BaseFailure != "" {
				base += " (" + p.BaseFailure + ")"
			}
			fmt.Fprintf(w, "- `%s` %s — at the base: **%s**; on the change: **%s**; %s: %s", p.Package, p.Test, base, p.ChangeOutcome, verdict, oneLine(p.Reason))
			if cv := p.Coverage; cv != nil {
				fmt.Fprintf(w, " (ran %d of %d changed statements, %d in code the base has)", cv.Executed, cv.Statements, cv.InExisting)
			}
			w.WriteString(".\n")
			if msg := baseMessage(p.BaseMessage); msg != "" {
				w.WriteString("\n  ```\n")
				for _, l := range strings.Split(msg, "\n") {
					w.WriteString("  " + l + "\n")
				}
				w.WriteString("  ```\n\n")
			}
		}
	}
}

// baseMessage is the part of a base failure a reviewer reads: the lines
// after the gate's own note, at most twelve.
func baseMessage(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "base with the diff's test files only") {
		lines = lines[1:]
	}
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "=== RUN") {
			continue
		}
		out = append(out, strings.ReplaceAll(l, "```", "'''"))
	}
	if len(out) > 12 {
		out = append(out[:12], fmt.Sprintf("… %d more lines in evidence.json", len(out)-12))
	}
	return strings.Join(out, "\n")
}
