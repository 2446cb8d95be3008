package providers

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/anthropic"
	"github.com/cairn-dev/cairn/agent/llm/openai"
)

// Names are the providers Open knows, in the order its errors list them.
var Names = []string{anthropic.Name, openai.Name}

// Open returns the provider a model spec names: "anthropic:NAME" or
// "openai:NAME" (NAME is passed to the provider as is, and may itself hold
// colons, as Ollama's "qwen2.5-coder:7b" does).
func Open(spec string, o llm.Options) (llm.Provider, error) {
	kind, model, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok || kind == "" {
		return nil, fmt.Errorf("model %q: want PROVIDER:MODEL, PROVIDER one of %s (e.g. anthropic:claude-sonnet-4-5)", spec, strings.Join(Names, ", "))
	}
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("model %q: the model name after %q is empty", spec, kind+":")
	}
	switch kind {
	case anthropic.Name:
		return anthropic.New(model, o)
	case openai.Name:
		return openai.New(model, o)
	}
	return nil, fmt.Errorf("model %q: unknown provider %q, want one of %s", spec, kind, strings.Join(Names, ", "))
}

// FromEnv fills o's empty BaseURL and APIKey for spec's provider from
// getenv (the command passes os.Getenv; libraries never read the
// environment): ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (else
// ANTHROPIC_AUTH_TOKEN), or OPENAI_BASE_URL and OPENAI_API_KEY. Fields
// already set win.
func FromEnv(spec string, getenv func(string) string, o llm.Options) llm.Options {
	kind, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	var base, key string
	switch kind {
	case anthropic.Name:
		base, key = getenv("ANTHROPIC_BASE_URL"), getenv("ANTHROPIC_API_KEY")
		if key == "" {
			key = getenv("ANTHROPIC_AUTH_TOKEN")
		}
	case openai.Name:
		base, key = getenv("OPENAI_BASE_URL"), getenv("OPENAI_API_KEY")
	}
	if o.BaseURL == "" {
		o.BaseURL = base
	}
	if o.APIKey == "" {
		o.APIKey = key
	}
	return o
}
