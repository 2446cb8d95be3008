// Package openai is an llm.Provider over OpenAI chat completions through
// github.com/openai/openai-go/v3, and so over the servers that speak them
// (vLLM, Ollama, llama.cpp's server; BaseURL http://host:port/v1).
//
// Mapping: the system prompt is the first message (role system); tools are
// functions; a user message's tool_result blocks become role "tool"
// messages, placed before its text; an error result is prefixed "error: "
// because the wire has no error flag. A tool call's arguments are a string
// on this wire and are kept verbatim as the Block's Input, JSON or not.
// The output cap is sent as max_completion_tokens.
//
// Usage: prompt_tokens includes cached ones, so InputTokens is prompt_tokens
// minus prompt_tokens_details.cached_tokens (and cache_write_tokens when a
// server reports them); OpenAI caches prefixes on its own, nothing is marked.
// finish_reason maps to llm's stop reasons: stop → end_turn, tool_calls →
// tool_use, length → max_tokens; "stop" with tool calls (some compatible
// servers) is tool_use.
package openai
