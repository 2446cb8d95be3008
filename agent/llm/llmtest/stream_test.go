package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
)

// The Anthropic SDK's own stream parser and accumulator read the events:
// the text and a tool input (cut into several deltas, one inside a rune)
// come back whole, with the stop reason and the usage.
func TestAnthropicStreamThroughTheSDK(t *testing.T) {
	input := `{"path":"pkg/änderung/file.go","line":42,"note":"a long enough input to need several deltas"}`
	text := "Let me look at the file — it is ünicode and longer than one chunk."
	srv := llmtest.New(func(c *llmtest.Call) llmtest.Reply {
		if !c.Stream {
			t.Errorf("call %d: Stream false", c.N)
		}
		return llmtest.Reply{Text: text, ToolCalls: []llmtest.ToolCall{{Name: "read", Input: input}}}
	})
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.AnthropicBaseURL()), option.WithAPIKey("test"), option.WithMaxRetries(0))
	stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model: "m", MaxTokens: 100,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	}, option.WithQuery("beta", "true"), option.WithHeader("anthropic-beta", "claude-code-20250219"))
	var msg anthropic.Message
	var types []string
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if err := msg.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[0].Text != text || msg.Content[1].Name != "read" || string(msg.Content[1].Input) != input {
		t.Errorf("content: %+v", msg.Content)
	}
	if msg.StopReason != anthropic.StopReasonToolUse || msg.Usage.InputTokens == 0 || msg.Usage.OutputTokens == 0 || msg.Content[1].ID != "toolu_llmtest_1_0" {
		t.Errorf("stop %q usage %+v id %q", msg.StopReason, msg.Usage, msg.Content[1].ID)
	}
	// message_start, then per block start, deltas, stop; message_delta,
	// message_stop (the SDK drops the ping)
	if types[0] != "message_start" || types[len(types)-2] != "message_delta" || types[len(types)-1] != "message_stop" {
		t.Errorf("event order: %v", types)
	}
	if n := strings.Count(strings.Join(types, " "), "content_block_delta"); n < 6 {
		t.Errorf("%d deltas, want text and input cut into several each: %v", n, types)
	}
	if c := srv.Calls(); len(c) != 1 || c[0].URL != "/v1/messages?beta=true" || c[0].Header.Get("anthropic-beta") != "claude-code-20250219" {
		t.Errorf("call: %+v", c)
	}
}

// Claude Code's side requests — the token counter, the model list, a
// reachability probe — are answered without consuming a turn, and every
// request, known or not, is in Requests.
func TestSideRequestsAndTheRequestLog(t *testing.T) {
	srv := llmtest.New(llmtest.Say("only turn"))
	defer srv.Close()
	code, _, out := post(t, srv.URL+"/v1/messages/count_tokens?beta=true", anthropicBody)
	if n, _ := out["input_tokens"].(float64); code != 200 || n <= 0 {
		t.Errorf("count_tokens: %d %v", code, out)
	}
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(models.Data) != 1 {
		t.Errorf("models: %d %+v", resp.StatusCode, models)
	}
	if resp, err := http.Head(srv.URL + "/"); err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD /: %v %v", resp, err)
	}
	post(t, srv.URL+"/v1/unknown", `{}`)
	if code, _, out := post(t, srv.URL+"/v1/messages", anthropicBody); code != 200 || out["content"].([]any)[0].(map[string]any)["text"] != "only turn" {
		t.Errorf("the turn after the side requests: %d %v", code, out)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.String())
	}
	want := []string{
		"POST /v1/messages/count_tokens?beta=true → 200",
		"GET /v1/models → 200",
		"HEAD / → 200",
		"POST /v1/unknown → 404",
		"POST /v1/messages → 200",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// A streamed error is an HTTP error before any event, as the API answers
// a request it refuses; the raw events carry each name in "event:" and
// again in the data's "type".
func TestAnthropicStreamRawEvents(t *testing.T) {
	srv := llmtest.New(llmtest.Fail(529), llmtest.Say("ok"))
	defer srv.Close()
	body := strings.Replace(anthropicBody, `"max_tokens":10,`, `"max_tokens":10,"stream":true,`, 1)
	code, _, out := post(t, srv.URL+"/v1/messages", body)
	if code != 529 || out["error"].(map[string]any)["type"] != "overloaded_error" {
		t.Errorf("streamed error: %d %v", code, out)
	}
	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	var name string
	var events []string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		} else if v, ok := strings.CutPrefix(line, "data: "); ok {
			var d struct{ Type string }
			if err := json.Unmarshal([]byte(v), &d); err != nil || d.Type != name {
				t.Errorf("event %q: data %s", name, v)
			}
			events = append(events, name)
		}
	}
	want := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// Codex's side of the Responses API: namespaced MCP tools, a function
// call and its output, and a streamed answer read by the OpenAI SDK's own
// event parser — the deltas add up to the text and the arguments that
// response.completed carries whole.
func TestResponsesStreamThroughTheSDK(t *testing.T) {
	args := `{"target":"Cart.Total","depth":3,"note":"long enough for several deltas"}`
	srv := llmtest.New(
		func(c *llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Text: "tracing Cart.Total — ünicode too", ToolCalls: []llmtest.ToolCall{{Name: "mcp__cairn__trace", Input: args}}}
		},
	)
	defer srv.Close()
	body := `{"model":"m","instructions":"be brief","stream":true,"input":[
	 {"type":"message","role":"developer","content":[{"type":"input_text","text":"dev"}]},
	 {"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},
	 {"type":"reasoning","summary":[]},
	 {"type":"function_call","call_id":"c1","namespace":"mcp__cairn","name":"trace","arguments":"{\"target\":\"x\"}"},
	 {"type":"function_call_output","call_id":"c1","output":"X"}],
	 "tools":[{"type":"function","name":"exec_command","parameters":{}},{"type":"namespace","name":"mcp__cairn","tools":[{"type":"function","name":"trace"}]},{"type":"custom","name":"apply_patch"}]}`
	resp, err := http.Post(srv.OpenAIBaseURL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), `"namespace":"mcp__cairn","name":"trace"`) && !strings.Contains(string(raw), `"name":"trace","namespace":"mcp__cairn"`) {
		t.Errorf("a namespaced tool's call does not go out as namespace and name:\n%s", raw)
	}
	c := srv.Calls()[0]
	if c.Protocol != llmtest.OpenAIResponses || !c.Stream || c.System != "be brief\n\ndev" || !cmp.Equal(c.Tools, []string{"exec_command", "mcp__cairn__trace", "apply_patch"}) {
		t.Errorf("call: protocol %s stream %v system %q tools %v", c.Protocol, c.Stream, c.System, c.Tools)
	}
	want := []llm.Message{
		{Role: llm.User, Content: []llm.Block{{Kind: llm.Text, Text: "hi"}}},
		{Role: llm.Assistant, Content: []llm.Block{{Kind: llm.ToolUse, ID: "c1", Name: "mcp__cairn__trace", Input: json.RawMessage(`{"target":"x"}`)}}},
		{Role: llm.User, Content: []llm.Block{{Kind: llm.ToolResult, ID: "c1", Text: "X"}}},
	}
	if diff := cmp.Diff(want, c.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}

	// The same script's answer once more, streamed to the SDK.
	srv.Append(func(c *llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "tracing Cart.Total — ünicode too", ToolCalls: []llmtest.ToolCall{{ID: "call_x", Name: "exec_command", Input: args}}}
	})
	client := openai.NewClient(oaoption.WithBaseURL(srv.OpenAIBaseURL()), oaoption.WithAPIKey("test"), oaoption.WithMaxRetries(0))
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
	})
	var text, arguments strings.Builder
	var types []string
	var final responses.Response
	seq := int64(-1)
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.SequenceNumber != seq+1 {
			t.Errorf("%s: sequence_number %d after %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq = ev.SequenceNumber
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.function_call_arguments.delta":
			arguments.WriteString(ev.Delta)
		case "response.completed":
			final = ev.AsResponseCompleted().Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if text.String() != "tracing Cart.Total — ünicode too" || arguments.String() != args {
		t.Errorf("deltas: text %q arguments %q", text.String(), arguments.String())
	}
	if final.Status != "completed" || len(final.Output) != 2 || final.Usage.TotalTokens == 0 {
		t.Fatalf("completed response: status %s, %d outputs, usage %d", final.Status, len(final.Output), final.Usage.TotalTokens)
	}
	msg, call := final.Output[0].AsMessage(), final.Output[1].AsFunctionCall()
	if msg.Content[0].Text != "tracing Cart.Total — ünicode too" || call.Name != "exec_command" || call.CallID != "call_x" || call.Arguments != args {
		t.Errorf("output: %+v / %+v", msg, call)
	}
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Errorf("events: %v", types)
	}
}
