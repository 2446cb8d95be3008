package llmtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
)

// These talk raw HTTP, as another process would; the providers' tests
// cover the server through the SDKs.

func post(t *testing.T, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: answer is not JSON: %s", url, data)
	}
	return resp.StatusCode, resp.Header, out
}

const anthropicBody = `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"sys"}],"messages":[
 {"role":"user","content":"hi"},
 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{"path":"a"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"A"}],"is_error":true},{"type":"text","text":"go on"}]}],
 "tools":[{"name":"read","input_schema":{"type":"object"}}]}`

const openAIBody = `{"model":"m","messages":[
 {"role":"system","content":"sys"},
 {"role":"user","content":"hi"},
 {"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},
 {"role":"tool","tool_call_id":"t1","content":"A"},
 {"role":"user","content":"go on"}],
 "tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object"}}}]}`

func TestParseBothProtocols(t *testing.T) {
	srv := llmtest.New(llmtest.Say("a"), llmtest.Say("b"), llmtest.Say("c"))
	defer srv.Close()
	for _, url := range []string{srv.URL + "/v1/messages", srv.URL + "/v1/chat/completions", srv.URL + "/chat/completions"} {
		body := openAIBody
		if strings.HasSuffix(url, "/messages") {
			body = anthropicBody
		}
		if code, _, out := post(t, url, body); code != 200 {
			t.Fatalf("%s: %d %v", url, code, out)
		}
	}
	calls := srv.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls", len(calls))
	}
	want := []llm.Message{
		{Role: llm.User, Content: []llm.Block{{Kind: llm.Text, Text: "hi"}}},
		{Role: llm.Assistant, Content: []llm.Block{{Kind: llm.ToolUse, ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)}}},
		{Role: llm.User, Content: []llm.Block{{Kind: llm.ToolResult, ID: "t1", Text: "A", IsError: true}, {Kind: llm.Text, Text: "go on"}}},
	}
	for i, c := range calls {
		w := want
		if c.Protocol == llmtest.OpenAI {
			// Chat completions have no error flag.
			w = append([]llm.Message(nil), want...)
			w[2] = llm.Message{Role: llm.User, Content: []llm.Block{{Kind: llm.ToolResult, ID: "t1", Text: "A"}, {Kind: llm.Text, Text: "go on"}}}
		}
		if diff := cmp.Diff(w, c.Messages); diff != "" {
			t.Errorf("call %d (%s) messages (-want +got):\n%s", i+1, c.Protocol, diff)
		}
		if c.N != i+1 || c.System != "sys" || c.Model != "m" || !cmp.Equal(c.Tools, []string{"read"}) {
			t.Errorf("call %d: N %d system %q model %q tools %v", i+1, c.N, c.System, c.Model, c.Tools)
		}
		if c.LastText() != "go on" || len(c.LastToolResults()) != 1 {
			t.Errorf("call %d: LastText %q, LastToolResults %v", i+1, c.LastText(), c.LastToolResults())
		}
	}
}

func TestErrorShapesAndExhaustion(t *testing.T) {
	srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Status: 429, RetryAfter: "7"} }, llmtest.Fail(529))
	defer srv.Close()
	code, h, out := post(t, srv.URL+"/v1/messages", anthropicBody)
	if code != 429 || h.Get("Retry-After") != "7" || out["type"] != "error" || out["error"].(map[string]any)["type"] != "rate_limit_error" {
		t.Errorf("anthropic 429: %d %v %v", code, h, out)
	}
	code, _, out = post(t, srv.URL+"/v1/chat/completions", openAIBody)
	if e, _ := out["error"].(map[string]any); code != 529 || e == nil || e["message"] == "" {
		t.Errorf("openai 529: %d %v", code, out)
	}
	srv.Append(llmtest.Say("appended"))
	if code, _, out = post(t, srv.URL+"/v1/messages", anthropicBody); code != 200 || out["content"].([]any)[0].(map[string]any)["text"] != "appended" {
		t.Errorf("appended turn: %d %v", code, out)
	}
	code, _, out = post(t, srv.URL+"/v1/messages", anthropicBody)
	if msg := out["error"].(map[string]any)["message"]; code != 500 || msg != "llmtest: script exhausted after 3 calls" {
		t.Errorf("exhausted: %d %v", code, out)
	}
	if code, _, _ = post(t, srv.URL+"/v1/messages", `{"model":`); code != 400 {
		t.Errorf("malformed body: %d", code)
	}
	if code, _, _ = post(t, srv.URL+"/v2/else", `{}`); code != 404 {
		t.Errorf("unknown route: %d", code)
	}
}

func TestMalformedToolInputOnTheWire(t *testing.T) {
	srv := llmtest.New(llmtest.Use("edit", `{"a":`), llmtest.Use("edit", `{"a":`))
	defer srv.Close()
	_, _, out := post(t, srv.URL+"/v1/messages", anthropicBody)
	block := out["content"].([]any)[0].(map[string]any)
	if block["input"] != `{"a":` || block["id"] != "toolu_llmtest_1_0" || out["stop_reason"] != "tool_use" {
		t.Errorf("anthropic: %v", out)
	}
	_, _, out = post(t, srv.URL+"/v1/chat/completions", openAIBody)
	choice := out["choices"].([]any)[0].(map[string]any)
	call := choice["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if call["function"].(map[string]any)["arguments"] != `{"a":` || choice["finish_reason"] != "tool_calls" {
		t.Errorf("openai: %v", out)
	}
}

func TestCloseReleasesHeld(t *testing.T) {
	hold := make(chan struct{}) // never closed
	srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Hold: hold, Text: "x"} })
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(anthropicBody))
		if err == nil {
			resp.Body.Close()
		}
	}()
	for len(srv.Calls()) == 0 {
		time.Sleep(time.Millisecond) // until the request has arrived
	}
	srv.Close()
	<-done
}
