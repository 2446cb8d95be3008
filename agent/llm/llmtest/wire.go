package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
)

// The two wire protocols, as much of each as cairn's providers send and read.

// textOrBlocks is a field that is a string or an array of {type, text} blocks.
func textOrBlocks(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or an array of text blocks: %w", err)
	}
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n"), nil
}

type anthropicRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	MaxTokens int64 `json:"max_tokens"`
	Stream    bool  `json:"stream"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func parseAnthropic(body []byte, c *Call) error {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("anthropic request: %w", err)
	}
	if req.MaxTokens <= 0 {
		return fmt.Errorf("anthropic request: max_tokens is required")
	}
	c.Model, c.Stream = req.Model, req.Stream
	sys, err := textOrBlocks(req.System)
	if err != nil {
		return fmt.Errorf("anthropic request: system: %w", err)
	}
	c.System = sys
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, t.Name)
	}
	for i, m := range req.Messages {
		msg := llm.Message{Role: llm.Role(m.Role)}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Content = []llm.Block{{Kind: llm.Text, Text: s}}
			c.Messages = append(c.Messages, msg)
			continue
		}
		var blocks []anthropicBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return fmt.Errorf("anthropic request: message %d: %w", i, err)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Content = append(msg.Content, llm.Block{Kind: llm.Text, Text: b.Text})
			case "tool_use":
				msg.Content = append(msg.Content, llm.Block{Kind: llm.ToolUse, ID: b.ID, Name: b.Name, Input: b.Input})
			case "tool_result":
				text, err := textOrBlocks(b.Content)
				if err != nil {
					return fmt.Errorf("anthropic request: message %d: tool_result content: %w", i, err)
				}
				msg.Content = append(msg.Content, llm.Block{Kind: llm.ToolResult, ID: b.ToolUseID, Text: text, IsError: b.IsError})
			default:
				return fmt.Errorf("anthropic request: message %d: unsupported block type %q", i, b.Type)
			}
		}
		c.Messages = append(c.Messages, msg)
	}
	return nil
}

func anthropicReply(c *Call, r Reply) any {
	content := []map[string]any{}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = toolID(Anthropic, c.N, i)
		}
		// This wire carries input as a JSON value: malformed text goes as a
		// JSON string, which the SDK hands over verbatim (a string, not an object).
		input := json.RawMessage(anthropicInput(tc.Input))
		content = append(content, map[string]any{"type": "tool_use", "id": id, "name": tc.Name, "input": input})
	}
	return map[string]any{
		"id":            fmt.Sprintf("msg_llmtest_%d", c.N),
		"type":          "message",
		"role":          "assistant",
		"model":         c.Model,
		"content":       content,
		"stop_reason":   stopReason(r),
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                r.Usage.InputTokens,
			"output_tokens":               r.Usage.OutputTokens,
			"cache_read_input_tokens":     r.Usage.CacheReadTokens,
			"cache_creation_input_tokens": r.Usage.CacheWriteTokens,
		},
	}
}

type openAIRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// parseOpenAI maps chat messages onto cairn's: system and developer
// messages become Call.System, consecutive tool messages one user message of
// tool_result blocks (this wire has no error flag: IsError is never set).
func parseOpenAI(body []byte, c *Call) error {
	var req openAIRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("openai request: %w", err)
	}
	c.Model = req.Model
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, t.Function.Name)
	}
	var system []string
	for i, m := range req.Messages {
		text, err := textOrBlocks(m.Content)
		if err != nil {
			return fmt.Errorf("openai request: message %d: content: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			c.appendBlock(llm.User, false, llm.Block{Kind: llm.Text, Text: text})
		case "tool":
			c.appendBlock(llm.User, true, llm.Block{Kind: llm.ToolResult, ID: m.ToolCallID, Text: text})
		case "assistant":
			msg := llm.Message{Role: llm.Assistant}
			if text != "" {
				msg.Content = append(msg.Content, llm.Block{Kind: llm.Text, Text: text})
			}
			for _, tc := range m.ToolCalls {
				msg.Content = append(msg.Content, llm.Block{Kind: llm.ToolUse, ID: tc.ID, Name: tc.Function.Name, Input: json.RawMessage(tc.Function.Arguments)})
			}
			c.Messages = append(c.Messages, msg)
		default:
			return fmt.Errorf("openai request: message %d: unknown role %q", i, m.Role)
		}
	}
	c.System = strings.Join(system, "\n\n")
	return nil
}

// appendBlock adds b to the last message when it has role and (for tool
// results) the last message is also tool results or text follows them;
// otherwise starts a new message.
func (c *Call) appendBlock(role llm.Role, result bool, b llm.Block) {
	if n := len(c.Messages); n > 0 && c.Messages[n-1].Role == role {
		last := &c.Messages[n-1]
		if !result || last.Content[len(last.Content)-1].Kind == llm.ToolResult {
			last.Content = append(last.Content, b)
			return
		}
	}
	c.Messages = append(c.Messages, llm.Message{Role: role, Content: []llm.Block{b}})
}

func openAIFinish(r Reply) string {
	switch s := stopReason(r); s {
	case llm.StopEndTurn:
		return "stop"
	case llm.StopToolUse:
		return "tool_calls"
	case llm.StopMaxTokens:
		return "length"
	default:
		return s
	}
}

func openAIReply(c *Call, r Reply) any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	var calls []map[string]any
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = toolID(OpenAI, c.N, i)
		}
		calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Input}})
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	u := r.Usage
	prompt := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", c.N),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   c.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": openAIFinish(r), "logprobs": nil}},
		"usage": map[string]any{
			"prompt_tokens":     prompt,
			"completion_tokens": u.OutputTokens,
			"total_tokens":      prompt + u.OutputTokens,
			"prompt_tokens_details": map[string]any{
				"cached_tokens":      u.CacheReadTokens,
				"cache_write_tokens": u.CacheWriteTokens,
			},
		},
	}
}
