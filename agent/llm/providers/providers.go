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
