package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/must"
)

// Server-sent events, the streaming form of both wires. A stream is the
// same Reply the JSON answer carries, cut into the events a client
// accumulates: every text and every tool input goes out in several deltas
// (chunk bytes each, cut on rune boundaries), so a client that keeps only
// the last delta is caught.

// chunk is the size of one text or argument delta.
const chunk = 16

// sse writes events to a streaming answer, flushing each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event whose data is v as JSON; the event name is v's
// "type", as both wires repeat it there.
func (s *sse) event(v map[string]any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal event: %v", err)) // every value here is a map of plain values
	}
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", v["type"], data)
	if s.f != nil {
		s.f.Flush()
	}
}

// pieces cuts text into deltas of about chunk bytes, never inside a rune;
// empty text is one empty piece.
func pieces(text string) []string {
	var out []string
	for len(text) > chunk {
		n := chunk
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		if n == 0 {
			n = chunk
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return append(out, text)
}

// anthropicInput is the tool input as this wire carries it: a JSON value,
// and text that is not JSON as a JSON string (as the JSON answer does).
func anthropicInput(text string) string {
	if json.Valid([]byte(text)) {
		return text
	}
	return string(must.JSON(text))
}

// streamAnthropic answers in the Messages API's events: message_start, a
// ping, per content block content_block_start, its deltas (text_delta or
// input_json_delta) and content_block_stop, then message_delta with the
// stop reason and the output usage, and message_stop.
func streamAnthropic(w http.ResponseWriter, c *Call, r Reply) {
	s := startSSE(w)
	u := r.Usage
	s.event(map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_llmtest_%d", c.N), "type": "message", "role": "assistant", "model": c.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": u.InputTokens, "output_tokens": 1,
			"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": u.CacheWriteTokens,
		},
	}})
	s.event(map[string]any{"type": "ping"})
	index := 0
	block := func(start map[string]any, deltaType, field string, parts []string) {
		s.event(map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		for _, p := range parts {
			s.event(map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": deltaType, field: p}})
		}
		s.event(map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if r.Text != "" {
		block(map[string]any{"type": "text", "text": ""}, "text_delta", "text", pieces(r.Text))
	}
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = toolID(Anthropic, c.N, i)
		}
		block(map[string]any{"type": "tool_use", "id": id, "name": tc.Name, "input": map[string]any{}},
			"input_json_delta", "partial_json", pieces(anthropicInput(tc.Input)))
	}
	s.event(map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}})
	s.event(map[string]any{"type": "message_stop"})
}
