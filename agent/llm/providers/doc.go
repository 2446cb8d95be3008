// Package providers opens an llm.Provider from a model spec,
// "anthropic:NAME" or "openai:NAME". It is the one place that knows every
// provider, so agent/llm itself imports no SDK.
package providers
