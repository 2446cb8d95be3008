package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/agent/state"
)

// reconcile brings task state up to the events logged after the last
// checkpoint (a run killed mid-step): usage already spent is counted, notes
// and results already seen are kept, and a tool call whose result was never
// logged is reconciled by observing the worktree — the model is told its
// outcome is unknown and what the worktree shows now, instead of the harness
// repeating it blindly.
func (h *harness) reconcile(ctx context.Context) error {
	evs, err := h.run.Events()
	if err != nil {
		return err
	}
	type open struct {
		tool  string
		input json.RawMessage
		step  int
	}
	pending := map[string]open{}
	var order []string
	folded := 0
	for _, ev := range evs {
		if ev.Seq <= h.st.Seq {
			continue
		}
		var d map[string]json.RawMessage
		_ = json.Unmarshal(ev.Data, &d)
		str := func(k string) string {
			var s string
			_ = json.Unmarshal(d[k], &s)
			return s
		}
		switch ev.Kind {
		case state.KindModelCall:
			var u struct {
				InputTokens      int64 `json:"input_tokens"`
				OutputTokens     int64 `json:"output_tokens"`
				CacheReadTokens  int64 `json:"cache_read_tokens"`
				CacheWriteTokens int64 `json:"cache_write_tokens"`
			}
			if json.Unmarshal(d["usage"], &u) == nil && d["usage"] != nil {
				var cost float64
				_ = json.Unmarshal(d["cost_usd"], &cost)
				us := &h.st.Usage
				us.InputTokens += u.InputTokens
				us.OutputTokens += u.OutputTokens
				us.CacheReadTokens += u.CacheReadTokens
				us.CacheWriteTokens += u.CacheWriteTokens
				us.CostUSD += cost
				us.ModelCalls++
				folded++
			}
		case state.KindToolCall:
			id := str("id")
			pending[id] = open{tool: str("tool"), input: d["input"], step: ev.Step}
			order = append(order, id)
			h.st.Usage.ToolCalls++
		case state.KindToolResult:
			id := str("id")
			var isErr bool
			_ = json.Unmarshal(d["is_error"], &isErr)
			if p, ok := pending[id]; ok {
				h.remember(p.tool, p.input, str("result"), isErr)
				delete(pending, id)
				folded++
			}
		case state.KindNote:
			(*recorder)(h).addNote(str("kind"), str("text"), ev.Step)
			folded++
		case state.KindPlan:
			var steps []string
			_ = json.Unmarshal(d["steps"], &steps)
			(*recorder)(h).setPlan(steps)
			folded++
		case state.KindSnapshot:
			h.st.Snapshot = str("commit")
		}
	}
	var unknown []string
	for _, id := range order {
		p, ok := pending[id]
		if !ok {
			continue
		}
		obs, err := h.observe(ctx)
		if err != nil {
			return err
		}
		msg := fmt.Sprintf("The harness was killed during this call; its outcome is unknown. The workspace now differs from the base in: %s. Observe (read, diff) before repeating it; edit and create are safe to repeat (an edit already applied is reported as applied).", obs)
		h.remember(p.tool, p.input, msg, true)
		unknown = append(unknown, p.tool)
	}
	// The model input is rebuilt from task state on the next step.
	h.msgs = nil
	_, err = h.run.Append(state.KindResumed, h.st.Step, map[string]any{"from_seq": h.st.Seq, "folded_events": folded, "unknown_outcomes": unknown, "snapshot": h.st.Snapshot})
	return err
}

// observe summarises the worktree's changes against the base.
func (h *harness) observe(ctx context.Context) (string, error) {
	ch, err := h.ws.Changed(ctx)
	if err != nil {
		return "", fmt.Errorf("observe the workspace: %w", err)
	}
	if len(ch) == 0 {
		return "nothing", nil
	}
	var parts []string
	for _, c := range ch {
		parts = append(parts, c.Status+" "+c.Path)
	}
	return strings.Join(parts, ", "), nil
}
