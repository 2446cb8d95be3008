package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
)

// The OpenAI Responses API (POST /v1/responses), as the Codex CLI speaks it
// through a model_providers entry with wire_api = "responses".
//
// Request: instructions and input items. A message item {type: "message"
// (or no type), role, content: a string or [{type: input_text|output_text,
// text}]} becomes a message (system and developer roles go to Call.System,
// after instructions); function_call {call_id, name, namespace?, arguments}
// and custom_tool_call {call_id, name, input} become tool_use blocks of an
// assistant message; function_call_output and custom_tool_call_output
// {call_id, output: a string or text parts} become tool_result blocks of a
// user message; reasoning and other items are skipped. Tools are
// {type: function|custom, name} or {type: namespace, name, tools: [...]},
// whose tools a model calls as name + "__" + tool (mcp__cairn + __ +
// trace): Call.Tools lists them so, and a scripted call of such a name goes
// out as {namespace, name} again.
//
// Answer: a response object {id, object: "response", status: completed,
// output: [message {content: [output_text]}, function_call…], usage}; with
// "stream": true the events response.created, response.in_progress, per
// output item response.output_item.added, its deltas (content_part.added,
// output_text.delta… output_text.done, content_part.done; or
// function_call_arguments.delta… .done), response.output_item.done, and
// response.completed carrying the whole response. Every event has a
// sequence_number. A reply whose stop reason is max_tokens ends with status
// incomplete (response.incomplete, reason max_output_tokens).

// OpenAIResponses is the protocol of a Call to /v1/responses.
const OpenAIResponses = "openai-responses"

type responsesRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

func parseResponses(body []byte, c *Call) error {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("responses request: %w", err)
	}
	c.Model, c.Stream = req.Model, req.Stream
	for i, raw := range req.Tools {
		var t responsesTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("responses request: tools[%d]: %w", i, err)
		}
		if t.Type != "namespace" {
			if t.Name != "" {
				c.Tools = append(c.Tools, t.Name)
			}
			continue
		}
		for _, inner := range t.Tools {
			full := t.Name + "__" + inner.Name
			c.Tools = append(c.Tools, full)
			if c.namespaced == nil {
				c.namespaced = map[string][2]string{}
			}
			c.namespaced[full] = [2]string{t.Name, inner.Name}
		}
	}
	var system []string
	if req.Instructions != "" {
		system = append(system, req.Instructions)
	}
	var items []responsesItem
	var s string
	if json.Unmarshal(req.Input, &s) == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: req.Input}}
	} else if len(req.Input) > 0 {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return fmt.Errorf("responses request: input: %w", err)
		}
	}
	for i, it := range items {
		switch it.Type {
		case "message", "":
			text, err := textOrBlocks(it.Content)
			if err != nil {
				return fmt.Errorf("responses request: input[%d]: content: %w", i, err)
			}
			switch it.Role {
			case "system", "developer":
				system = append(system, text)
			case "user":
				c.appendBlock(llm.User, false, llm.Block{Kind: llm.Text, Text: text})
			case "assistant":
				c.appendBlock(llm.Assistant, false, llm.Block{Kind: llm.Text, Text: text})
			default:
				return fmt.Errorf("responses request: input[%d]: unknown role %q", i, it.Role)
			}
		case "function_call":
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "__" + it.Name
			}
			c.appendBlock(llm.Assistant, false, llm.Block{Kind: llm.ToolUse, ID: it.CallID, Name: name, Input: json.RawMessage(it.Arguments)})
		case "custom_tool_call":
			input, err := json.Marshal(it.Input)
			if err != nil {
				return fmt.Errorf("responses request: input[%d]: %w", i, err)
			}
			c.appendBlock(llm.Assistant, false, llm.Block{Kind: llm.ToolUse, ID: it.CallID, Name: it.Name, Input: input})
		case "function_call_output", "custom_tool_call_output":
			text, err := textOrBlocks(it.Output)
			if err != nil {
				return fmt.Errorf("responses request: input[%d]: output: %w", i, err)
			}
			c.appendBlock(llm.User, true, llm.Block{Kind: llm.ToolResult, ID: it.CallID, Text: text})
		}
	}
	c.System = strings.Join(system, "\n\n")
	return nil
}

// responsesOutput is the reply's output items, complete.
func responsesOutput(c *Call, r Reply) []map[string]any {
	var out []map[string]any
	if r.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": fmt.Sprintf("msg_llmtest_%d", c.N), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}})
	}
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = toolID(OpenAI, c.N, i)
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_llmtest_%d_%d", c.N, i), "call_id": id,
			"name": tc.Name, "arguments": tc.Input, "status": "completed"}
		if ns, ok := c.namespaced[tc.Name]; ok {
			item["namespace"], item["name"] = ns[0], ns[1]
		}
		out = append(out, item)
	}
	return out
}

func responsesObject(c *Call, r Reply, status string, output []map[string]any) map[string]any {
	u := r.Usage
	in := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	o := map[string]any{
		"id": fmt.Sprintf("resp_llmtest_%d", c.N), "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": c.Model, "output": output, "parallel_tool_calls": true, "tools": []any{},
		"usage": map[string]any{
			"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": u.CacheReadTokens},
			"output_tokens": u.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": in + u.OutputTokens,
		},
	}
	if status == "incomplete" {
		o["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	return o
}

func responsesStatus(r Reply) string {
	if stopReason(r) == llm.StopMaxTokens {
		return "incomplete"
	}
	return "completed"
}

func responsesReply(c *Call, r Reply) any {
	return responsesObject(c, r, responsesStatus(r), responsesOutput(c, r))
}

// streamResponses answers in the Responses API's events (see the top of
// this file).
func streamResponses(w http.ResponseWriter, c *Call, r Reply) {
	s := startSSE(w)
	seq := 0
	emit := func(v map[string]any) {
		v["sequence_number"] = seq
		seq++
		s.event(v)
	}
	emit(map[string]any{"type": "response.created", "response": responsesObject(c, r, "in_progress", []map[string]any{})})
	emit(map[string]any{"type": "response.in_progress", "response": responsesObject(c, r, "in_progress", []map[string]any{})})
	output := responsesOutput(c, r)
	for i, item := range output {
		id := item["id"]
		started := map[string]any{}
		for k, v := range item {
			started[k] = v
		}
		started["status"] = "in_progress"
		if item["type"] == "message" {
			started["content"] = []any{}
			emit(map[string]any{"type": "response.output_item.added", "output_index": i, "item": started})
			emit(map[string]any{"type": "response.content_part.added", "item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, p := range pieces(r.Text) {
				emit(map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": i, "content_index": 0, "delta": p, "logprobs": []any{}})
			}
			emit(map[string]any{"type": "response.output_text.done", "item_id": id, "output_index": i, "content_index": 0, "text": r.Text, "logprobs": []any{}})
			emit(map[string]any{"type": "response.content_part.done", "item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}})
		} else {
			args := item["arguments"].(string)
			started["arguments"] = ""
			emit(map[string]any{"type": "response.output_item.added", "output_index": i, "item": started})
			for _, p := range pieces(args) {
				emit(map[string]any{"type": "response.function_call_arguments.delta", "item_id": id, "output_index": i, "delta": p})
			}
			emit(map[string]any{"type": "response.function_call_arguments.done", "item_id": id, "output_index": i, "arguments": args, "name": item["name"]})
		}
		emit(map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
	}
	status := responsesStatus(r)
	end := "response.completed"
	if status == "incomplete" {
		end = "response.incomplete"
	}
	emit(map[string]any{"type": end, "response": responsesObject(c, r, status, output)})
}
