package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/cairn-dev/cairn/agent/llm"
)

// Name is the provider's name in a model spec ("openai:NAME").
const Name = "openai"

type provider struct {
	model string
	opts  llm.Options
	chat  sdk.ChatCompletionService
}

// New returns a Provider for model over OpenAI chat completions, or any
// server that speaks them (vLLM, Ollama, llama.cpp's server: a BaseURL such
// as http://host:port/v1).
func New(model string, o llm.Options) (llm.Provider, error) {
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("openai: empty model name")
	}
	// The chat service is built directly, not through sdk.NewClient, because
	// NewClient reads OPENAI_* from the environment and libraries must not:
	// the command does, into o.
	ro := []option.RequestOption{
		option.WithEnvironmentProduction(),
		// Retries are llm.Retry's, so each one is counted, reported and bounded by ctx.
		option.WithMaxRetries(0),
	}
	if o.BaseURL != "" {
		if _, err := url.Parse(o.BaseURL); err != nil {
			return nil, fmt.Errorf("openai: base URL %q: %w", o.BaseURL, err)
		}
		ro = append(ro, option.WithBaseURL(o.BaseURL))
	}
	if o.APIKey != "" {
		ro = append(ro, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(o.HTTPClient))
	}
	return &provider{model: model, opts: o, chat: sdk.NewChatCompletionService(ro...)}, nil
}

func (p *provider) Name() string  { return Name }
func (p *provider) Model() string { return p.model }

func (p *provider) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, &llm.Error{Provider: Name, Err: err}
	}
	resp, err := llm.Retry(ctx, Name, p.opts, func(ctx context.Context) (*llm.Response, error) {
		c, err := p.chat.New(ctx, params)
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			// The SDK's message names only the status; the server's says why.
			return nil, fmt.Errorf("%w: %s", err, apiErr.Message)
		}
		if err != nil {
			return nil, err
		}
		return fromCompletion(c)
	}, classify)
	if err != nil {
		return nil, err
	}
	p.opts.Prices.Price(resp, p.model)
	return resp, nil
}

// params converts req. The system prompt is the first message; a user
// message's tool_result blocks become role "tool" messages, placed before its
// text because the API wants them right after the assistant's tool calls.
// OpenAI caches prompt prefixes by itself; nothing is marked.
func (p *provider) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{
		Model:               shared.ChatModel(p.model),
		MaxCompletionTokens: sdk.Int(cmp.Or(req.MaxTokens, llm.DefaultMaxTokens)),
	}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		if len(t.Schema) > 0 {
			var schema shared.FunctionParameters
			if err := json.Unmarshal(t.Schema, &schema); err != nil {
				return params, fmt.Errorf("tool %q: schema is not a JSON object: %w", t.Name, err)
			}
			fn.Parameters = schema
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	for i, m := range req.Messages {
		msgs, err := messageParams(m)
		if err != nil {
			return params, fmt.Errorf("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msgs...)
	}
	return params, nil
}

func messageParams(m llm.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var text []string
	var out []sdk.ChatCompletionMessageParamUnion
	var calls []sdk.ChatCompletionMessageToolCallUnionParam
	for i, b := range m.Content {
		switch {
		case b.Kind == llm.Text:
			text = append(text, b.Text)
		case b.Kind == llm.ToolUse && m.Role == llm.Assistant:
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       b.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: string(b.Input)},
			}})
		case b.Kind == llm.ToolResult && m.Role == llm.User:
			content := b.Text
			if b.IsError && !strings.HasPrefix(content, "error") {
				// Chat completions have no error flag on a tool message.
				content = "error: " + content
			}
			out = append(out, sdk.ToolMessage(content, b.ID))
		default:
			return nil, fmt.Errorf("block %d: a %s message cannot hold a %q block", i, m.Role, b.Kind)
		}
	}
	joined := strings.Join(text, "\n\n")
	switch m.Role {
	case llm.User:
		if len(text) > 0 {
			out = append(out, sdk.UserMessage(joined))
		}
	case llm.Assistant:
		a := sdk.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if len(text) > 0 {
			a.Content.OfString = sdk.String(joined)
		}
		out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return out, nil
}

func fromCompletion(c *sdk.ChatCompletion) (*llm.Response, error) {
	if len(c.Choices) == 0 {
		return nil, fmt.Errorf("openai: the completion %q has no choices", c.ID)
	}
	ch := c.Choices[0]
	u := c.Usage
	cached := u.PromptTokensDetails.CachedTokens
	written := u.PromptTokensDetails.CacheWriteTokens
	r := &llm.Response{
		ID:         c.ID,
		Model:      c.Model,
		StopReason: stopReason(ch.FinishReason),
		Usage: llm.Usage{
			InputTokens:      max(0, u.PromptTokens-cached-written),
			OutputTokens:     u.CompletionTokens,
			CacheReadTokens:  cached,
			CacheWriteTokens: written,
		},
	}
	if ch.Message.Content != "" {
		r.Content = append(r.Content, llm.Block{Kind: llm.Text, Text: ch.Message.Content})
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never declared
		}
		// Arguments are a string on this wire: kept verbatim, even when not JSON.
		r.Content = append(r.Content, llm.Block{Kind: llm.ToolUse, ID: tc.ID, Name: tc.Function.Name, Input: json.RawMessage(tc.Function.Arguments)})
	}
	if r.StopReason == llm.StopEndTurn && len(r.ToolUses()) > 0 {
		// Some compatible servers answer "stop" with tool calls.
		r.StopReason = llm.StopToolUse
	}
	return r, nil
}

func stopReason(finish string) string {
	switch finish {
	case "stop", "":
		return llm.StopEndTurn
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	}
	return finish
}

func classify(err error) llm.Failure {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		f := llm.Failure{StatusCode: apiErr.StatusCode, Retryable: llm.RetryableStatus(apiErr.StatusCode)}
		if apiErr.Response != nil {
			f.Retryable = llm.ShouldRetry(apiErr.StatusCode, apiErr.Response.Header)
			f.RetryAfter = llm.ParseRetryAfter(apiErr.Response.Header, time.Now())
		}
		return f
	}
	return llm.Failure{Retryable: llm.Transient(err)}
}
