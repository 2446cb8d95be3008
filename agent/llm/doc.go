// Package llm is the agent's vocabulary for talking to a model: messages of
// text, tool_use and tool_result blocks, a Provider interface with one
// method, Complete, and the parts every provider shares — retries, prices
// and the typed Error. It imports no SDK; agent/llm/anthropic and
// agent/llm/openai adapt the vendors' SDKs to it, agent/llm/providers opens
// one from a "provider:model" spec, and agent/llm/llmtest is a scripted HTTP
// server speaking both wire protocols for tests.
//
// Invariants:
//
//   - Retries are done here (Retry), never by an SDK (both are built with
//     max retries 0), so every attempt is counted in Response.Attempts or
//     Error.Attempts and reported through Options.OnRetry, and no wait runs
//     past the context: a wait that would cross ctx's deadline is not started,
//     and a cancelled context ends the wait at once. Retried: 408, 409, 429,
//     5xx (incl. Anthropic's 529) and connection errors, unless the server
//     says x-should-retry: false (or forces one with true); Retry-After /
//     retry-after-ms is obeyed over the exponential backoff
//     (RetryBase·2^(n-1), jitter in [½, 1], capped at MaxBackoff).
//   - A tool_use's Input is what the model sent, byte for byte, even when it
//     is not JSON (OpenAI sends arguments as a string). Validation is the
//     tools' job, so a malformed call reaches the model again as an error
//     result it can fix. Block's JSON encoding keeps such input as text.
//   - Usage is the provider's own count. InputTokens excludes cache reads
//     and writes on both providers, so TotalInput is their sum and Cost
//     charges each at its own rate. A model without a price is reported
//     Priced=false with cost 0, never guessed.
//   - No package here reads the environment: cmd passes keys and base URLs
//     in Options (the Anthropic client is built WithoutEnvironmentDefaults;
//     the OpenAI chat service is built without NewClient, which reads
//     OPENAI_*).
package llm
