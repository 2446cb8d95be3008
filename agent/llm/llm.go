package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Role is who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockKind is the kind of a content block.
type BlockKind string

const (
	Text       BlockKind = "text"
	ToolUse    BlockKind = "tool_use"
	ToolResult BlockKind = "tool_result"
)

// Block is one piece of a message: text, a tool call the model made, or the
// result of one.
type Block struct {
	Kind BlockKind `json:"kind"`
	// Text is the text of a text block, or the content of a tool_result.
	Text string `json:"text,omitempty"`
	// ID is a tool_use's id; for a tool_result, the id of the call it answers.
	ID string `json:"id,omitempty"`
	// Name is the tool a tool_use calls.
	Name string `json:"name,omitempty"`
	// Input is a tool_use's arguments exactly as the model sent them. It may
	// be malformed JSON (OpenAI sends arguments as a string, kept verbatim);
	// Block's MarshalJSON stores such input as text so a Block always
	// round-trips through encoding/json.
	Input   json.RawMessage `json:"input,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// blockJSON is Block on the wire: Input when it is valid JSON, InputText
// (the verbatim bytes) when it is not.
type blockJSON struct {
	Kind      BlockKind       `json:"kind"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	InputText *string         `json:"input_text,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// MarshalJSON encodes b; malformed Input (which json.RawMessage would refuse
// to encode) is written as the string field input_text instead.
func (b Block) MarshalJSON() ([]byte, error) {
	w := blockJSON{Kind: b.Kind, Text: b.Text, ID: b.ID, Name: b.Name, IsError: b.IsError}
	if len(b.Input) > 0 {
		if json.Valid(b.Input) {
			w.Input = b.Input
		} else {
			s := string(b.Input)
			w.InputText = &s
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON wrote.
func (b *Block) UnmarshalJSON(data []byte) error {
	var w blockJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = Block{Kind: w.Kind, Text: w.Text, ID: w.ID, Name: w.Name, Input: w.Input, IsError: w.IsError}
	if w.InputText != nil {
		b.Input = json.RawMessage(*w.InputText)
	}
	return nil
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// ToolSpec declares a tool to the model. Schema is a JSON Schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// Request is one model call.
type Request struct {
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int64 // 0 → DefaultMaxTokens
}

// DefaultMaxTokens is the output cap of a Request that names none.
const DefaultMaxTokens = 8192

// Usage is what a call consumed, from the provider's own usage report.
// InputTokens counts the input tokens that were neither read from nor written
// to the prompt cache (Anthropic's input_tokens; OpenAI's prompt_tokens minus
// cached_tokens), so the input of a call is the sum of the three.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

// TotalInput is every input token of the call, cached or not.
func (u Usage) TotalInput() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
	}
}

// Stop reasons, normalised across providers. Others pass through as given.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
)

// Response is the model's answer to one Request.
type Response struct {
	Content    []Block
	StopReason string // StopEndTurn, StopToolUse, StopMaxTokens, or the provider's own
	Usage      Usage
	CostUSD    float64
	Priced     bool   // false: the model is not in the price table; CostUSD is 0
	Model      string // as the provider reported it
	ID         string
	Attempts   int // HTTP requests made, 1 when the first succeeded
}

// ToolUses returns the tool_use blocks of r in order.
func (r *Response) ToolUses() []Block {
	var out []Block
	for _, b := range r.Content {
		if b.Kind == ToolUse {
			out = append(out, b)
		}
	}
	return out
}

// Provider is a model behind one wire protocol.
type Provider interface {
	Name() string // "anthropic" | "openai"
	Model() string
	Complete(ctx context.Context, req Request) (*Response, error)
}

// Options configure a provider. Libraries never read the environment: the
// command fills BaseURL and APIKey from ANTHROPIC_* / OPENAI_*.
type Options struct {
	BaseURL    string // "" → the SDK's default endpoint
	APIKey     string // "" → requests go out unauthenticated (fine for local servers)
	HTTPClient *http.Client
	// MaxRetries is how many times a 408/409/429/5xx answer or a connection
	// error is retried; 0 → 3, negative → none.
	MaxRetries int
	// RetryBase is the backoff base: attempt n waits RetryBase·2^(n-1), with
	// jitter, capped at MaxBackoff, or what Retry-After asks. 0 → 500ms.
	RetryBase time.Duration
	Prices    Prices // nil → DefaultPrices()
	// OnRetry, when set, is called before each wait: attempt is the 1-based
	// number of the attempt that failed.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Defaults used by Options.
const (
	DefaultMaxRetries = 3
	DefaultRetryBase  = 500 * time.Millisecond
	MaxBackoff        = 30 * time.Second
)

// Error is a model call that failed: a non-retryable error, or the last error
// once retries ran out or the context ended.
type Error struct {
	Provider   string
	StatusCode int // 0 when no HTTP answer came back
	Retryable  bool
	Attempts   int
	Err        error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: model call failed after %d attempt", e.Provider, e.Attempts)
	if e.Attempts != 1 {
		s += "s"
	}
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
