package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/agent/llm/providers"
)

// Every case runs on both protocols, through the real SDK clients against
// llmtest's HTTP server.
var protocols = []string{llmtest.Anthropic, llmtest.OpenAI}

const testModel = "test-model-1"

func open(t *testing.T, protocol string, srv *llmtest.Server, o llm.Options) llm.Provider {
	t.Helper()
	o.BaseURL = srv.AnthropicBaseURL()
	if protocol == llmtest.OpenAI {
		o.BaseURL = srv.OpenAIBaseURL()
	}
	if o.APIKey == "" {
		o.APIKey = "sk-test-key"
	}
	if o.RetryBase == 0 {
		o.RetryBase = time.Millisecond
	}
	p, err := providers.Open(protocol+":"+testModel, o)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != protocol || p.Model() != testModel {
		t.Fatalf("Open: got %s:%s", p.Name(), p.Model())
	}
	return p
}

var readTool = llm.ToolSpec{
	Name:        "read",
	Description: "Read a file.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
}

func userText(s string) llm.Message {
	return llm.Message{Role: llm.User, Content: []llm.Block{{Kind: llm.Text, Text: s}}}
}

func TestToolUseRoundTrip(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			var seen []string
			srv := llmtest.New(
				func(c *llmtest.Call) llmtest.Reply {
					if c.System != "you are a test" || c.LastText() != "read a.go" || c.Model != testModel {
						t.Errorf("call 1: system %q, last text %q, model %q", c.System, c.LastText(), c.Model)
					}
					if diff := cmp.Diff([]string{"read"}, c.Tools); diff != "" {
						t.Errorf("call 1 tools (-want +got):\n%s", diff)
					}
					return llmtest.Reply{Text: "reading", ToolCalls: []llmtest.ToolCall{{ID: "t-1", Name: "read", Input: `{"path":"a.go"}`}}}
				},
				func(c *llmtest.Call) llmtest.Reply {
					rs := c.LastToolResults()
					if len(rs) != 1 {
						t.Fatalf("call 2: %d tool results, want 1: %+v", len(rs), c.Messages)
					}
					seen = append(seen, rs[0].ID, rs[0].Text)
					return llmtest.Reply{Text: "a.go says: " + rs[0].Text}
				},
			)
			defer srv.Close()
			p := open(t, proto, srv, llm.Options{})
			req := llm.Request{System: "you are a test", Tools: []llm.ToolSpec{readTool}, Messages: []llm.Message{userText("read a.go")}}
			r1, err := p.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			wantContent := []llm.Block{{Kind: llm.Text, Text: "reading"}, {Kind: llm.ToolUse, ID: "t-1", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)}}
			if diff := cmp.Diff(wantContent, r1.Content); diff != "" {
				t.Errorf("response 1 content (-want +got):\n%s", diff)
			}
			if r1.StopReason != llm.StopToolUse || r1.Attempts != 1 || r1.Model != testModel || r1.ID == "" {
				t.Errorf("response 1: stop %q, attempts %d, model %q, id %q", r1.StopReason, r1.Attempts, r1.Model, r1.ID)
			}
			req.Messages = append(req.Messages,
				llm.Message{Role: llm.Assistant, Content: r1.Content},
				llm.Message{Role: llm.User, Content: []llm.Block{{Kind: llm.ToolResult, ID: "t-1", Text: "package a"}}})
			r2, err := p.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]llm.Block{{Kind: llm.Text, Text: "a.go says: package a"}}, r2.Content); diff != "" {
				t.Errorf("response 2 content (-want +got):\n%s", diff)
			}
			if r2.StopReason != llm.StopEndTurn {
				t.Errorf("response 2 stop reason %q", r2.StopReason)
			}
			if diff := cmp.Diff([]string{"t-1", "package a"}, seen); diff != "" {
				t.Errorf("tool result seen by the server (-want +got):\n%s", diff)
			}
			calls := srv.Calls()
			if len(calls) != 2 {
				t.Fatalf("%d calls, want 2", len(calls))
			}
			// The second request carries the assistant's tool call as the SDK serialised it.
			c2 := calls[1]
			if diff := cmp.Diff(req.Messages[:2], c2.Messages[:2]); diff != "" {
				t.Errorf("history as parsed by the server (-want +got):\n%s", diff)
			}
			body := string(c2.Body)
			switch proto {
			case llmtest.Anthropic:
				for _, want := range []string{`"tool_use_id":"t-1"`, `"type":"tool_result"`, `"cache_control":{"type":"ephemeral"}`} {
					if !strings.Contains(body, want) {
						t.Errorf("request body lacks %s:\n%s", want, body)
					}
				}
				// Breakpoints on the system prompt, the last tool and the last message.
				if n := strings.Count(body, `"cache_control"`); n != 3 {
					t.Errorf("%d cache_control breakpoints, want 3:\n%s", n, body)
				}
				// This SDK sends the API key as a bearer token (earlier ones used x-api-key).
				if got := c2.Header.Get("Authorization") + c2.Header.Get("X-Api-Key"); got != "Bearer sk-test-key" && got != "sk-test-key" {
					t.Errorf("API key header %q", got)
				}
			case llmtest.OpenAI:
				for _, want := range []string{`"role":"tool"`, `"tool_call_id":"t-1"`, `"arguments":"{\"path\":\"a.go\"}"`, `"role":"system"`} {
					if !strings.Contains(body, want) {
						t.Errorf("request body lacks %s:\n%s", want, body)
					}
				}
				if got := c2.Header.Get("Authorization"); got != "Bearer sk-test-key" {
					t.Errorf("authorization %q", got)
				}
			}
		})
	}
}

func TestUsageAndCost(t *testing.T) {
	prices := llm.Prices{"test-model": {InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.3, CacheWritePerMTok: 3.75}}
	usage := llm.Usage{InputTokens: 1000, OutputTokens: 200, CacheReadTokens: 30000, CacheWriteTokens: 5000}
	wantCost := (1000*3 + 200*15 + 30000*0.3 + 5000*3.75) / 1e6
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "hi", Usage: usage} }, llmtest.Say("estimated"))
			defer srv.Close()
			p := open(t, proto, srv, llm.Options{Prices: prices})
			r, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(usage, r.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if !r.Priced || math.Abs(r.CostUSD-wantCost) > 1e-12 {
				t.Errorf("cost %v priced %v, want %v", r.CostUSD, r.Priced, wantCost)
			}
			// A turn without usage is estimated, never zero.
			r, err = p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
				t.Errorf("estimated usage %+v", r.Usage)
			}
		})
	}
	t.Run("unpriced", func(t *testing.T) {
		srv := llmtest.New(llmtest.Say("hi"))
		defer srv.Close()
		p := open(t, llmtest.Anthropic, srv, llm.Options{Prices: llm.Prices{"other": {InputPerMTok: 1}}})
		r, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Priced || r.CostUSD != 0 {
			t.Errorf("unknown model priced: %v %v", r.Priced, r.CostUSD)
		}
	})
}

type retryLog struct {
	mu       sync.Mutex
	attempts []int
	waits    []time.Duration
	errs     []error
}

func (l *retryLog) on(attempt int, err error, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts = append(l.attempts, attempt)
	l.waits = append(l.waits, wait)
	l.errs = append(l.errs, err)
}

func TestRetries(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(llmtest.Fail(429), llmtest.Fail(500), llmtest.Say("ok"))
			defer srv.Close()
			var log retryLog
			p := open(t, proto, srv, llm.Options{OnRetry: log.on})
			r, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Attempts != 3 || len(srv.Calls()) != 3 {
				t.Errorf("attempts %d, calls %d, want 3", r.Attempts, len(srv.Calls()))
			}
			if diff := cmp.Diff([]int{1, 2}, log.attempts); diff != "" {
				t.Errorf("OnRetry attempts (-want +got):\n%s", diff)
			}
			if len(log.errs) == 2 && (!strings.Contains(log.errs[0].Error(), "429") || !strings.Contains(log.errs[1].Error(), "500")) {
				t.Errorf("OnRetry errors: %v", log.errs)
			}
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(llmtest.Fail(503), llmtest.Fail(503), llmtest.Fail(503), llmtest.Say("never"))
			defer srv.Close()
			var log retryLog
			p := open(t, proto, srv, llm.Options{MaxRetries: 2, OnRetry: log.on})
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *llm.Error", err, err)
			}
			if e.Attempts != 3 || e.StatusCode != 503 || !e.Retryable || e.Provider != proto || len(log.attempts) != 2 {
				t.Errorf("error %+v, %d retries reported", e, len(log.attempts))
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Status: 429, RetryAfter: "0.3"} }, llmtest.Say("ok"))
			defer srv.Close()
			var log retryLog
			p := open(t, proto, srv, llm.Options{OnRetry: log.on, RetryBase: time.Millisecond})
			start := time.Now()
			r, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el < 300*time.Millisecond {
				t.Errorf("retried after %v, Retry-After asked 300ms", el)
			}
			if r.Attempts != 2 || len(log.waits) != 1 || log.waits[0] != 300*time.Millisecond {
				t.Errorf("attempts %d, waits %v", r.Attempts, log.waits)
			}
		})
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(llmtest.Fail(400), llmtest.Say("never"))
			defer srv.Close()
			var log retryLog
			p := open(t, proto, srv, llm.Options{OnRetry: log.on})
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *llm.Error", err, err)
			}
			if e.StatusCode != 400 || e.Retryable || e.Attempts != 1 || len(srv.Calls()) != 1 || len(log.attempts) != 0 {
				t.Errorf("error %+v; %d calls, %d retries", e, len(srv.Calls()), len(log.attempts))
			}
			if !strings.Contains(err.Error(), "llmtest: scripted error 400") {
				t.Errorf("error does not carry the server's message: %v", err)
			}
		})
	}
}

func TestRetriesStopAtDeadline(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto+"/backoff", func(t *testing.T) {
			var turns []llmtest.Turn
			for range 50 {
				turns = append(turns, llmtest.Fail(500))
			}
			srv := llmtest.New(turns...)
			defer srv.Close()
			p := open(t, proto, srv, llm.Options{MaxRetries: 40, RetryBase: 20 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{userText("hello")}})
			el := time.Since(start)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *llm.Error", err, err)
			}
			if el > 150*time.Millisecond+100*time.Millisecond {
				t.Errorf("returned after %v, deadline 150ms", el)
			}
			if e.Attempts < 2 || e.Attempts > 10 || e.Attempts != len(srv.Calls()) {
				t.Errorf("attempts %d, calls %d", e.Attempts, len(srv.Calls()))
			}
		})
		t.Run(proto+"/retry-after-past-deadline", func(t *testing.T) {
			srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Status: 529, RetryAfter: "30"} }, llmtest.Say("never"))
			defer srv.Close()
			p := open(t, proto, srv, llm.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			start := time.Now()
			_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{userText("hello")}})
			if el := time.Since(start); el > time.Second {
				t.Errorf("waited %v for a retry the deadline forbids", el)
			}
			var e *llm.Error
			if !errors.As(err, &e) || e.Attempts != 1 || !strings.Contains(err.Error(), "would pass the deadline") {
				t.Errorf("error %v", err)
			}
		})
		t.Run(proto+"/held-call", func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			srv := llmtest.New(func(*llmtest.Call) llmtest.Reply { return llmtest.Reply{Hold: hold, Text: "late"} }, llmtest.Say("never"))
			defer srv.Close()
			p := open(t, proto, srv, llm.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{userText("hello")}})
			var e *llm.Error
			if !errors.As(err, &e) || e.Attempts != 1 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v, want a deadline after 1 attempt", err)
			}
			if n := len(srv.Calls()); n != 1 {
				t.Errorf("%d calls, want 1", n)
			}
		})
	}
}

func TestMalformedArgumentsKeptRaw(t *testing.T) {
	const bad = `{"path": "a.go", "old": `
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(llmtest.Use("edit", bad), func(c *llmtest.Call) llmtest.Reply {
				return llmtest.Reply{Text: "history has " + string(c.Messages[1].Content[0].Input)}
			})
			defer srv.Close()
			p := open(t, proto, srv, llm.Options{})
			req := llm.Request{Messages: []llm.Message{userText("edit")}}
			r, err := p.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			uses := r.ToolUses()
			if len(uses) != 1 {
				t.Fatalf("tool uses %+v", r.Content)
			}
			want := bad // chat completions carry arguments as a string: verbatim
			if proto == llmtest.Anthropic {
				want = `"{\"path\": \"a.go\", \"old\": "` // this wire carries a JSON value: the text as a string
			}
			if got := string(uses[0].Input); got != want {
				t.Errorf("input %s, want %s", got, want)
			}
			// The block survives encoding/json either way.
			data, err := json.Marshal(uses[0])
			if err != nil {
				t.Fatal(err)
			}
			var back llm.Block
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(uses[0], back); diff != "" {
				t.Errorf("JSON round trip (-want +got):\n%s", diff)
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.Assistant, Content: r.Content},
				llm.Message{Role: llm.User, Content: []llm.Block{{Kind: llm.ToolResult, ID: uses[0].ID, Text: "arguments are not JSON", IsError: true}}})
			r, err = p.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			wantHistory := "history has " + bad
			if proto == llmtest.Anthropic {
				wantHistory = "history has {}" // the API takes only an object back
			}
			if r.Content[0].Text != wantHistory {
				t.Errorf("%q, want %q", r.Content[0].Text, wantHistory)
			}
			if proto == llmtest.Anthropic {
				if rs := srv.Calls()[1].LastToolResults(); len(rs) != 1 || !rs[0].IsError {
					t.Errorf("is_error not sent: %+v", rs)
				}
			}
		})
	}
}

func TestScriptExhausted(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(llmtest.Say("one"))
			defer srv.Close()
			var log retryLog
			p := open(t, proto, srv, llm.Options{OnRetry: log.on})
			if _, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}}); err != nil {
				t.Fatal(err)
			}
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("again")}})
			if err == nil || !strings.Contains(err.Error(), "llmtest: script exhausted after 1 calls") {
				t.Fatalf("error %v, want the exhaustion message", err)
			}
			var e *llm.Error
			// x-should-retry: false — an exhausted script is not retried.
			if !errors.As(err, &e) || e.StatusCode != 500 || e.Attempts != 1 || e.Retryable || len(log.attempts) != 0 {
				t.Errorf("error %+v, %d retries", e, len(log.attempts))
			}
		})
	}
}

func TestOpenSpecs(t *testing.T) {
	for _, spec := range []string{"", "claude", "anthropic:", "openai:  ", "gemini:pro", ":x"} {
		if _, err := providers.Open(spec, llm.Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", spec)
		}
	}
	p, err := providers.Open("openai:qwen2.5-coder:7b", llm.Options{})
	if err != nil || p.Model() != "qwen2.5-coder:7b" {
		t.Errorf("Open with a colon in the model: %v %v", p, err)
	}
}

// TestEnvironmentIgnored: the providers take keys and URLs from Options
// only; the SDKs' own environment lookups are off, so a variable the command
// did not pass never reaches a request.
func TestEnvironmentIgnored(t *testing.T) {
	for k, v := range map[string]string{
		"ANTHROPIC_API_KEY": "sk-from-env", "ANTHROPIC_AUTH_TOKEN": "tok-from-env", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
		"ANTHROPIC_CUSTOM_HEADERS": "X-Leak: env", "OPENAI_API_KEY": "sk-from-env", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
		"OPENAI_ORG_ID": "org-env", "OPENAI_CUSTOM_HEADERS": "X-Leak: env",
	} {
		t.Setenv(k, v)
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.New(llmtest.Say("hi"))
			defer srv.Close()
			base := srv.AnthropicBaseURL()
			if proto == llmtest.OpenAI {
				base = srv.OpenAIBaseURL()
			}
			p, err := providers.Open(proto+":"+testModel, llm.Options{BaseURL: base, RetryBase: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}}); err != nil {
				t.Fatalf("keyless call to a local server: %v", err)
			}
			h := srv.Calls()[0].Header
			for name, vs := range h {
				for _, v := range vs {
					if strings.Contains(v, "env") {
						t.Errorf("header %s: %q came from the environment", name, v)
					}
				}
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{"ANTHROPIC_BASE_URL": "http://a", "ANTHROPIC_AUTH_TOKEN": "tok", "OPENAI_BASE_URL": "http://o/v1", "OPENAI_API_KEY": "sk-o"}
	get := func(k string) string { return env[k] }
	for _, tc := range []struct {
		spec      string
		in        llm.Options
		base, key string
	}{
		{"anthropic:m", llm.Options{}, "http://a", "tok"},
		{"openai:m", llm.Options{}, "http://o/v1", "sk-o"},
		{"openai:m", llm.Options{BaseURL: "http://flag/v1"}, "http://flag/v1", "sk-o"},
		{"gemini:m", llm.Options{}, "", ""},
	} {
		got := providers.FromEnv(tc.spec, get, tc.in)
		if got.BaseURL != tc.base || got.APIKey != tc.key {
			t.Errorf("FromEnv(%s) = %q %q, want %q %q", tc.spec, got.BaseURL, got.APIKey, tc.base, tc.key)
		}
	}
}

func TestConnectionErrorsRetried(t *testing.T) {
	srv := llmtest.New()
	url := srv.URL
	srv.Close() // nothing listens there now: connection refused
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			var log retryLog
			base := url
			if proto == llmtest.OpenAI {
				base += "/v1"
			}
			p, err := providers.Open(proto+":"+testModel, llm.Options{BaseURL: base, MaxRetries: 2, RetryBase: time.Millisecond, OnRetry: log.on})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("hello")}})
			var e *llm.Error
			if !errors.As(err, &e) || e.Attempts != 3 || e.StatusCode != 0 || !e.Retryable || len(log.attempts) != 2 {
				t.Errorf("error %+v (%v), %d retries", e, err, len(log.attempts))
			}
		})
	}
}

// TestAnotherProcess: the server keeps all state itself, so a client in
// another process (here this test binary, re-run) is scripted the same way
// — how cmd/cairn's tests drive the cairn binary.
func TestAnotherProcess(t *testing.T) {
	if base := os.Getenv("LLMTEST_CHILD_BASE_URL"); base != "" {
		p, err := providers.Open("anthropic:"+testModel, llm.Options{BaseURL: base, RetryBase: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userText("from the child")}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Attempts != 2 || r.Content[0].Text != "hello, child" {
			t.Fatalf("child got %+v", r)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	srv := llmtest.New(llmtest.Fail(503), func(c *llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "hello, " + strings.TrimPrefix(c.LastText(), "from the ")}
	})
	defer srv.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnotherProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LLMTEST_CHILD_BASE_URL="+srv.AnthropicBaseURL())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("%d calls from the child, want 2", n)
	}
}
