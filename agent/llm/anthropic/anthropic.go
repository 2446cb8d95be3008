package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/cairn-dev/cairn/agent/llm"
)

// Name is the provider's name in a model spec ("anthropic:NAME").
const Name = "anthropic"

type provider struct {
	model  string
	opts   llm.Options
	client sdk.Client
}

// New returns a Provider for model over the Anthropic Messages API.
func New(model string, o llm.Options) (llm.Provider, error) {
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("anthropic: empty model name")
	}
	ro := []option.RequestOption{
		// Never read ANTHROPIC_* from the environment: the command does, into o.
		option.WithoutEnvironmentDefaults(),
		// Retries are llm.Retry's, so each one is counted, reported and bounded by ctx.
		option.WithMaxRetries(0),
	}
	if o.BaseURL != "" {
		if _, err := url.Parse(o.BaseURL); err != nil {
			return nil, fmt.Errorf("anthropic: base URL %q: %w", o.BaseURL, err)
		}
		ro = append(ro, option.WithBaseURL(o.BaseURL))
	}
	if o.APIKey != "" {
		ro = append(ro, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(o.HTTPClient))
	}
	return &provider{model: model, opts: o, client: sdk.NewClient(ro...)}, nil
}

func (p *provider) Name() string  { return Name }
func (p *provider) Model() string { return p.model }

func (p *provider) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, &llm.Error{Provider: Name, Err: err}
	}
	resp, err := llm.Retry(ctx, Name, p.opts, func(ctx context.Context) (*llm.Response, error) {
		msg, err := p.client.Messages.New(ctx, params)
		if err != nil {
			return nil, err
		}
		return fromMessage(msg), nil
	}, classify)
	if err != nil {
		return nil, err
	}
	p.opts.Prices.Price(resp, p.model)
	return resp, nil
}

// params converts req to the SDK's request. The system prompt, the last tool
// and the last block of the last message carry cache_control breakpoints:
// the system prompt and tool definitions are identical on every step of a
// run, and the conversation grows by appending, so each call reads the
// previous call's prefix from the cache (three of the API's four breakpoints).
func (p *provider) params(req llm.Request) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{
		Model:     sdk.Model(p.model),
		MaxTokens: cmp.Or(req.MaxTokens, llm.DefaultMaxTokens),
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for i, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return params, err
		}
		if i == len(req.Tools)-1 {
			tool.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	for i, m := range req.Messages {
		blocks, err := blocksParam(m.Content, i == len(req.Messages)-1)
		if err != nil {
			return params, fmt.Errorf("message %d: %w", i, err)
		}
		switch m.Role {
		case llm.User:
			params.Messages = append(params.Messages, sdk.NewUserMessage(blocks...))
		case llm.Assistant:
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(blocks...))
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return params, nil
}

func toolParam(t llm.ToolSpec) (*sdk.ToolParam, error) {
	schema := map[string]any{}
	if len(t.Schema) > 0 {
		if err := json.Unmarshal(t.Schema, &schema); err != nil {
			return nil, fmt.Errorf("tool %q: schema is not a JSON object: %w", t.Name, err)
		}
	}
	in := sdk.ToolInputSchemaParam{Properties: schema["properties"]}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		if k == "properties" || k == "required" || k == "type" {
			continue
		}
		if in.ExtraFields == nil {
			in.ExtraFields = map[string]any{}
		}
		in.ExtraFields[k] = v
	}
	tool := &sdk.ToolParam{Name: t.Name, InputSchema: in}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	return tool, nil
}

func blocksParam(bs []llm.Block, last bool) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(bs))
	for i, b := range bs {
		cache := last && i == len(bs)-1
		switch b.Kind {
		case llm.Text:
			tb := &sdk.TextBlockParam{Text: b.Text}
			if cache {
				tb.CacheControl = sdk.NewCacheControlEphemeralParam()
			}
			out = append(out, sdk.ContentBlockParamUnion{OfText: tb})
		case llm.ToolUse:
			// The API takes an object; input that is not one (a model's
			// malformed arguments, answered with an error result) goes back
			// as {} so the conversation stays valid.
			var input any = json.RawMessage("{}")
			if isObject(b.Input) {
				input = b.Input
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: b.ID, Name: b.Name, Input: input}})
		case llm.ToolResult:
			tr := &sdk.ToolResultBlockParam{ToolUseID: b.ID}
			if b.Text != "" {
				tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: b.Text}}}
			}
			if b.IsError {
				tr.IsError = sdk.Bool(true)
			}
			if cache {
				tr.CacheControl = sdk.NewCacheControlEphemeralParam()
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolResult: tr})
		default:
			return nil, fmt.Errorf("block %d: unknown kind %q", i, b.Kind)
		}
	}
	return out, nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func fromMessage(m *sdk.Message) *llm.Response {
	r := &llm.Response{
		ID:         m.ID,
		Model:      string(m.Model),
		StopReason: string(m.StopReason),
		Usage: llm.Usage{
			InputTokens:      m.Usage.InputTokens,
			OutputTokens:     m.Usage.OutputTokens,
			CacheReadTokens:  m.Usage.CacheReadInputTokens,
			CacheWriteTokens: m.Usage.CacheCreationInputTokens,
		},
	}
	for _, c := range m.Content {
		switch c.Type {
		case "text":
			r.Content = append(r.Content, llm.Block{Kind: llm.Text, Text: c.Text})
		case "tool_use":
			r.Content = append(r.Content, llm.Block{Kind: llm.ToolUse, ID: c.ID, Name: c.Name, Input: append(json.RawMessage(nil), c.Input...)})
		}
		// Thinking and server-tool blocks are not requested and not kept.
	}
	return r
}

// classify tells llm.Retry what a failed attempt was.
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
