// Package anthropic is an llm.Provider over the Anthropic Messages API
// through github.com/anthropics/anthropic-sdk-go (v2), non-streaming.
//
// Prompt caching: the system prompt, the last tool definition and the last
// block of the last message carry an ephemeral cache_control breakpoint
// (three of the four the API allows). The system prompt and tools are the
// same on every step of a run and the conversation grows by appending, so
// each call can read the previous call's prefix; cache reads and writes come
// back in Usage and are priced at their own rates.
//
// Tool input goes back to the API as the object the model sent; input that
// is not a JSON object (malformed arguments, answered with an error result)
// is sent back as {} because the API accepts nothing else.
//
// The SDK refuses non-streaming calls whose max_tokens implies more than
// ten minutes (about 21k tokens); such a Request fails at once, unretried.
package anthropic
