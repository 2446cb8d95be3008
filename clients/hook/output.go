package hook

import (
	"bytes"
	"encoding/json"
)

// The answers in each client's format (doc.go lists them with their
// sources). Exit 0 with JSON on stdout wherever the client reads JSON;
// Codex's pre-tool refusal is exit 2 with the reason on stderr, the form
// verified against it.

type claudeOut struct {
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	HookSpecificOutput *claudeSpecific `json:"hookSpecificOutput,omitempty"`
}

type claudeSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

type cursorOut struct {
	Permission        string `json:"permission,omitempty"`
	UserMessage       string `json:"user_message,omitempty"`
	AgentMessage      string `json:"agent_message,omitempty"`
	FollowupMessage   string `json:"followup_message,omitempty"`
	AdditionalContext string `json:"additional_context,omitempty"`
}

type geminiOut struct {
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	HookSpecificOutput *claudeSpecific `json:"hookSpecificOutput,omitempty"`
}

// openCodeOut is cairn's own protocol with the OpenCode plugin `cairn
// setup opencode` writes (OpenCode's hooks are JavaScript plugins).
type openCodeOut struct {
	Action      string `json:"action"` // allow, deny, ask, block, note, context
	Message     string `json:"message,omitempty"`
	UserMessage string `json:"user_message,omitempty"`
}

// encode is an answer in a client's format: stdout, a line for stderr
// and the exit code.
func encode(c Client, ev Event, in *Input, a Answer) (stdout []byte, stderr string, code int) {
	stderr = a.User
	switch c {
	case Cursor:
		return encodeCursor(ev, a), stderr, 0
	case GeminiCLI:
		return encodeGemini(ev, a), stderr, 0
	case OpenCode:
		names := map[Verdict]string{Silent: "allow", Deny: "deny", AskUser: "ask", Block: "block", Note: "note", Context: "context"}
		return marshal(openCodeOut{Action: names[a.Verdict], Message: a.Reason + a.Context, UserMessage: a.User}), stderr, 0
	case Codex:
		if a.Verdict == Deny {
			// exit 2: the reason on stderr reaches the model
			if a.User != "" {
				return nil, a.Reason + "\n" + a.User, 2
			}
			return nil, a.Reason, 2
		}
		if a.Verdict == AskUser {
			a.Verdict = Silent // Codex has no "ask" from a hook
		}
	}
	return encodeClaude(ev, in, a), stderr, 0
}

func encodeClaude(ev Event, in *Input, a Answer) []byte {
	switch a.Verdict {
	case Deny, AskUser:
		d := "deny"
		if a.Verdict == AskUser {
			d = "ask"
		}
		return marshal(claudeOut{SystemMessage: a.User, HookSpecificOutput: &claudeSpecific{HookEventName: "PreToolUse",
			PermissionDecision: d, PermissionDecisionReason: a.Reason}})
	case Block:
		return marshal(claudeOut{Decision: "block", Reason: a.Reason, SystemMessage: a.User})
	case Note:
		return marshal(claudeOut{SystemMessage: a.User})
	case Context:
		return marshal(claudeOut{SystemMessage: a.User, HookSpecificOutput: &claudeSpecific{HookEventName: "SessionStart", AdditionalContext: a.Context}})
	}
	return nil
}

func encodeCursor(ev Event, a Answer) []byte {
	switch a.Verdict {
	case Deny:
		return marshal(cursorOut{Permission: "deny", UserMessage: a.Reason, AgentMessage: a.Reason})
	case AskUser:
		return marshal(cursorOut{Permission: "ask", UserMessage: a.Reason, AgentMessage: a.Reason})
	case Block:
		return marshal(cursorOut{FollowupMessage: a.Reason})
	case Context:
		return marshal(cursorOut{AdditionalContext: a.Context})
	}
	// nothing to say: no permission field, so Cursor's own approval
	// settings decide (an "allow" would skip them)
	return []byte("{}\n")
}

func encodeGemini(ev Event, a Answer) []byte {
	switch a.Verdict {
	case Deny, Block:
		// BeforeTool: deny refuses the tool; AfterAgent: deny rejects the
		// answer and the reason goes back to the model for another turn
		return marshal(geminiOut{Decision: "deny", Reason: a.Reason, SystemMessage: a.User})
	case Note:
		return marshal(geminiOut{SystemMessage: a.User})
	case Context:
		return marshal(geminiOut{HookSpecificOutput: &claudeSpecific{HookEventName: "SessionStart", AdditionalContext: a.Context}})
	}
	return nil
}

func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // plain strings only: a failure is a bug
	}
	return b.Bytes()
}
