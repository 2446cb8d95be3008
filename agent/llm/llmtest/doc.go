// Package llmtest is a scripted model server for tests: a real HTTP server
// on 127.0.0.1 speaking the Anthropic Messages protocol (POST /v1/messages),
// OpenAI chat completions (POST /v1/chat/completions and
// /chat/completions) and the OpenAI Responses API (POST /v1/responses and
// /responses, the Codex CLI's wire; responses.go documents what of it is
// read and written), with each vendor's error-body shape. Tests drive
// cairn's providers through the real SDK clients against it, and real agent
// clients (Claude Code, in clients/e2e) as other processes; no test needs a
// live model.
//
// A Messages request with "stream": true is answered in server-sent events
// (stream.go: message_start, ping, content_block_start/delta/stop with
// text_delta and input_json_delta, message_delta with the stop reason and
// usage, message_stop), each text and tool input cut into several deltas;
// a Responses request with "stream": true in the Responses events
// (response.created … response.completed); otherwise the answer is one
// JSON body. The query (Claude Code's ?beta=true) and anthropic-beta
// headers are accepted and kept in the Call.
// Side requests a client makes — POST /v1/messages/count_tokens, GET
// /v1/models, HEAD or GET / — are answered without consuming a turn, and
// every request, routed or not, is logged with its status in Requests so a
// failing test can show what the client asked for.
//
// The script is a list of turns, consumed one per HTTP request in arrival
// order; an error reply consumes its turn, so "429, then 500, then an
// answer" is three turns. A turn is a function of the Call it answers —
// the request parsed into llm.Message, with its raw body and headers — so a
// turn can depend on the tool results the client sent. When the script runs
// out the server answers 500 "llmtest: script exhausted after N calls" with
// x-should-retry: false, so a test that makes one call too many fails loudly
// and at once (the providers honour the header; a 500 the script asks for is
// retried as usual). Usage a turn leaves zero
// is estimated as bytes/4.
//
// All state is in the server, so the client may be another process (a
// cairn binary pointed at it through ANTHROPIC_BASE_URL/OPENAI_BASE_URL).
//
// Malformed tool input: OpenAI carries arguments as a string, so they go out
// verbatim; the Anthropic wire carries input as a JSON value, so text that is
// not JSON goes out as a JSON string (what a client sees is then valid JSON
// but not an object).
package llmtest
