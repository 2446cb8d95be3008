package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/agent/llm"
)

func TestBlockJSON(t *testing.T) {
	for _, b := range []llm.Block{
		{Kind: llm.Text, Text: "hello"},
		{Kind: llm.ToolUse, ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)},
		{Kind: llm.ToolUse, ID: "t2", Name: "edit", Input: json.RawMessage(`{"path": "a.go", "old": `)},
		{Kind: llm.ToolUse, ID: "t3", Name: "list", Input: json.RawMessage(`"a string"`)},
		{Kind: llm.ToolResult, ID: "t1", Text: "boom", IsError: true},
	} {
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal %+v: %v", b, err)
		}
		var back llm.Block
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("unmarshal %s: %v", data, err)
		}
		if diff := cmp.Diff(b, back); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", data, diff)
		}
	}
	// A message holding malformed input marshals too (a plain RawMessage would fail).
	m := llm.Message{Role: llm.Assistant, Content: []llm.Block{{Kind: llm.ToolUse, Input: json.RawMessage(`{bad`)}}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"role":"assistant","content":[{"kind":"tool_use","input_text":"{bad"}]}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
}

func TestPricesCost(t *testing.T) {
	p := llm.DefaultPrices()
	u := llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}
	for _, tc := range []struct {
		model string
		want  float64
		ok    bool
	}{
		{"claude-sonnet-4-5-20250929", 3 + 15 + 0.3 + 3.75, true},
		{"claude-opus-4-5-20251101", 5 + 25 + 0.5 + 6.25, true},   // longest prefix, not claude-opus-4-…
		{"claude-opus-4-1-20250805", 15 + 75 + 1.5 + 18.75, true}, // Opus 4.1 keeps the old rate
		{"claude-opus-4-20250514", 15 + 75 + 1.5 + 18.75, true},
		{"gpt-4o-mini-2024-07-18", 0.15 + 0.6 + 0.075, true}, // not gpt-4o
		{"gpt-4o", 2.5 + 10 + 1.25, true},
		{"llama3:8b", 0, false},
	} {
		got, ok := p.Cost(tc.model, u)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Cost(%s) = %v, %v; want %v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParsePrices(t *testing.T) {
	want := llm.Prices{"m": {InputPerMTok: 1, OutputPerMTok: 2, CacheReadPerMTok: 0.1, CacheWritePerMTok: 1.25}}
	for _, src := range []string{
		"m: {input_per_mtok: 1, output_per_mtok: 2, cache_read_per_mtok: 0.1, cache_write_per_mtok: 1.25}\n",
		`{"m": {"input_per_mtok": 1, "output_per_mtok": 2, "cache_read_per_mtok": 0.1, "cache_write_per_mtok": 1.25}}`,
	} {
		got, err := llm.ParsePrices([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", src, diff)
		}
	}
	for src, wantErr := range map[string]string{
		"":                              "empty",
		"m: {input: 1}":                 "input",
		`{"m": {"inputs_per_mtok": 1}}`: "inputs_per_mtok",
		"m: {input_per_mtok: -1}":       "input_per_mtok is -1",
		"m: [1, 2]":                     "YAML",
		`{"m": `:                        "JSON",
		"'': {input_per_mtok: 1}":       "empty",
		"m: {output_per_mtok: .nan}":    "output_per_mtok",
	} {
		_, err := llm.ParsePrices([]byte(src))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ParsePrices(%q) = %v, want an error naming %q", src, err, wantErr)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"120"}, "Retry-After": {"9"}}, 120 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-4"}}, 0},
		{nil, 0},
	} {
		if got := llm.ParseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

// Retry on its own: the providers' tests cover it over HTTP; these pin the
// edges (negative MaxRetries, cancellation mid-wait, the backoff's growth).
func TestRetryEdges(t *testing.T) {
	fail := errors.New("boom")
	retryable := func(error) llm.Failure { return llm.Failure{StatusCode: 500, Retryable: true} }
	calls := 0
	call := func(context.Context) (*llm.Response, error) { calls++; return nil, fail }

	_, err := llm.Retry(context.Background(), "x", llm.Options{MaxRetries: -1}, call, retryable)
	var e *llm.Error
	if !errors.As(err, &e) || e.Attempts != 1 || calls != 1 || !errors.Is(err, fail) {
		t.Errorf("MaxRetries -1: %v after %d calls", err, calls)
	}

	calls = 0
	var waits []time.Duration
	_, err = llm.Retry(context.Background(), "x", llm.Options{MaxRetries: 4, RetryBase: time.Millisecond,
		OnRetry: func(_ int, _ error, w time.Duration) { waits = append(waits, w) }}, call, retryable)
	if calls != 5 || len(waits) != 4 {
		t.Fatalf("%d calls, waits %v", calls, waits)
	}
	for i, w := range waits {
		lo, hi := time.Millisecond<<i/2, time.Millisecond<<i
		if w < lo || w > hi {
			t.Errorf("wait %d = %v, want in [%v, %v]", i+1, w, lo, hi)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	_, err = llm.Retry(ctx, "x", llm.Options{RetryBase: time.Hour}, call, retryable)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, fail) || time.Since(start) > time.Second {
		t.Errorf("cancelled mid-wait: %v after %v", err, time.Since(start))
	}
}

func TestShouldRetry(t *testing.T) {
	for _, tc := range []struct {
		code int
		h    http.Header
		want bool
	}{
		{429, nil, true}, {500, nil, true}, {529, nil, true}, {408, nil, true}, {400, nil, false}, {401, nil, false}, {404, nil, false},
		{500, http.Header{"X-Should-Retry": {"false"}}, false},
		{400, http.Header{"X-Should-Retry": {"true"}}, true},
	} {
		if got := llm.ShouldRetry(tc.code, tc.h); got != tc.want {
			t.Errorf("ShouldRetry(%d, %v) = %v", tc.code, tc.h, got)
		}
	}
}
