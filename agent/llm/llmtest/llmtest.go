package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
)

// Protocols a Call arrived on (and OpenAIResponses, in responses.go).
const (
	Anthropic = "anthropic"
	OpenAI    = "openai" // chat completions
)

// Call is one HTTP request the server received, parsed into cairn's
// vocabulary so a turn can depend on what the client sent.
type Call struct {
	N        int    // 1-based, in arrival order
	Protocol string // Anthropic or OpenAI
	Model    string
	System   string
	Messages []llm.Message
	Tools    []string // declared tool names, in order
	Header   http.Header
	Body     []byte // the request body as the SDK serialised it
	URL      string // the request's path and query (/v1/messages?beta=true)
	Stream   bool   // the client asked for server-sent events ("stream": true)

	namespaced map[string][2]string // Responses: a tool's full name → namespace, name
}

// LastToolResults returns the tool_result blocks of the last message.
func (c *Call) LastToolResults() []llm.Block {
	if len(c.Messages) == 0 {
		return nil
	}
	var out []llm.Block
	for _, b := range c.Messages[len(c.Messages)-1].Content {
		if b.Kind == llm.ToolResult {
			out = append(out, b)
		}
	}
	return out
}

// LastText returns the text blocks of the last message, joined by newlines.
func (c *Call) LastText() string {
	if len(c.Messages) == 0 {
		return ""
	}
	var parts []string
	for _, b := range c.Messages[len(c.Messages)-1].Content {
		if b.Kind == llm.Text {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolCall is a tool call a scripted turn makes. Input is raw JSON text and
// may be malformed on purpose; ID "" gets a generated id.
type ToolCall struct {
	ID, Name, Input string
}

// Reply is what the server answers to one call.
type Reply struct {
	Text       string
	ToolCalls  []ToolCall
	Usage      llm.Usage // zero → estimated (bytes/4 of the request and of the answer)
	Status     int       // non-zero: answer with this HTTP error, in the protocol's error shape
	RetryAfter string    // the Retry-After header of an error
	// Hold, when set, delays the answer until it is closed or the request's
	// context ends (the client gave up).
	Hold       <-chan struct{}
	StopReason string // "" → "tool_use" with tool calls, else "end_turn" (mapped per protocol)
}

// Turn computes one reply from the call it answers.
type Turn func(c *Call) Reply

// Say answers with text.
func Say(text string) Turn { return func(*Call) Reply { return Reply{Text: text} } }

// Use answers with one call of tool name with input (raw JSON text).
func Use(name, input string) Turn {
	return func(*Call) Reply { return Reply{ToolCalls: []ToolCall{{Name: name, Input: input}}} }
}

// Fail answers with HTTP status.
func Fail(status int) Turn { return func(*Call) Reply { return Reply{Status: status} } }

// Server is a scripted model server on 127.0.0.1. Every piece of state is
// here, so the client may be another process.
type Server struct {
	URL string // http://127.0.0.1:PORT

	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	requests []Request
	turns    []Turn
	next     int // index of the next turn
	calls    []*Call
	done     chan struct{}
	once     sync.Once
}

// New starts a server that answers with turns, one per request.
func New(turns ...Turn) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("llmtest: listen: %v", err))
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, turns: turns, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages", s.handle(Anthropic))
	mux.HandleFunc("POST /v1/messages/count_tokens", s.countTokens)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("/v1/chat/completions", s.handle(OpenAI))
	mux.HandleFunc("/chat/completions", s.handle(OpenAI))
	mux.HandleFunc("/v1/responses", s.handle(OpenAIResponses))
	mux.HandleFunc("/responses", s.handle(OpenAIResponses))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet) {
			return // a client's reachability probe
		}
		writeError(w, OpenAI, http.StatusNotFound, "", fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path))
	})
	s.srv = &http.Server{Handler: s.record(mux), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s
}

// AnthropicBaseURL is the base URL for the Anthropic SDK.
func (s *Server) AnthropicBaseURL() string { return s.URL }

// OpenAIBaseURL is the base URL for the OpenAI SDK (…/v1).
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// Append adds turns to the end of the script.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Calls returns the calls received so far.
func (s *Server) Calls() []*Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Call(nil), s.calls...)
}

// Request is one HTTP request the server answered, whatever its route: a
// test that fails prints Requests to show what the client asked for.
type Request struct {
	Method, URL string // URL: path and query
	Status      int
}

func (r Request) String() string { return fmt.Sprintf("%s %s → %d", r.Method, r.URL, r.Status) }

// Requests returns every request answered so far, in the order answered.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// record notes each request and the status it was answered with.
func (s *Server) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, URL: r.URL.RequestURI(), Status: sw.status})
		s.mu.Unlock()
	})
}

// statusWriter remembers the status written; it flushes, as a stream needs.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// countTokens answers the Messages API's token counter with the bytes/4
// estimate; it consumes no turn.
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || !json.Valid(body) {
		writeError(w, Anthropic, http.StatusBadRequest, "", "llmtest: count_tokens wants a JSON body")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"input_tokens": len(body)/4 + 1})
}

// models lists one model, in the Anthropic shape (type, display_name) with
// the OpenAI fields (object, owned_by) too, as either client may ask.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	m := map[string]any{"type": "model", "id": "llmtest", "display_name": "llmtest", "created_at": "2026-01-01T00:00:00Z",
		"object": "model", "created": 1767225600, "owned_by": "llmtest"}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"data": []any{m}, "object": "list", "has_more": false, "first_id": "llmtest", "last_id": "llmtest"})
}

// Close releases held requests and stops the server.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.srv.Shutdown(ctx)
	})
}

func (s *Server) handle(protocol string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeError(w, protocol, http.StatusMethodNotAllowed, "", "llmtest: want POST, got "+r.Method)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, protocol, http.StatusBadRequest, "", "llmtest: read body: "+err.Error())
			return
		}
		c := &Call{Protocol: protocol, Header: r.Header.Clone(), Body: body, URL: r.URL.RequestURI()}
		switch protocol {
		case Anthropic:
			err = parseAnthropic(body, c)
		case OpenAIResponses:
			err = parseResponses(body, c)
		default:
			err = parseOpenAI(body, c)
		}
		s.mu.Lock()
		c.N = len(s.calls) + 1
		s.calls = append(s.calls, c)
		var turn Turn
		consumed := s.next
		if err == nil && s.next < len(s.turns) {
			turn = s.turns[s.next]
			s.next++
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, protocol, http.StatusBadRequest, "", "llmtest: "+err.Error())
			return
		}
		if turn == nil {
			// Not worth retrying: the script will not grow by itself.
			w.Header().Set("X-Should-Retry", "false")
			writeError(w, protocol, http.StatusInternalServerError, "", fmt.Sprintf("llmtest: script exhausted after %d calls", consumed))
			return
		}
		reply := turn(c)
		if reply.Hold != nil {
			select {
			case <-reply.Hold:
			case <-r.Context().Done():
				return
			case <-s.done:
			}
		}
		if reply.Status != 0 {
			writeError(w, protocol, reply.Status, reply.RetryAfter, fmt.Sprintf("llmtest: scripted error %d on call %d", reply.Status, c.N))
			return
		}
		if reply.Usage == (llm.Usage{}) {
			reply.Usage = estimate(body, reply)
		}
		if c.Stream && protocol == Anthropic {
			streamAnthropic(w, c, reply)
			return
		}
		if c.Stream && protocol == OpenAIResponses {
			streamResponses(w, c, reply)
			return
		}
		var out any
		switch protocol {
		case Anthropic:
			out = anthropicReply(c, reply)
		case OpenAIResponses:
			out = responsesReply(c, reply)
		default:
			out = openAIReply(c, reply)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
}

// estimate counts bytes/4, the usual rough token size, when a turn gives no usage.
func estimate(body []byte, r Reply) llm.Usage {
	out := len(r.Text)
	for _, tc := range r.ToolCalls {
		out += len(tc.Name) + len(tc.Input)
	}
	return llm.Usage{InputTokens: int64(len(body)/4 + 1), OutputTokens: int64(out/4 + 1)}
}

func stopReason(r Reply) string {
	switch {
	case r.StopReason != "":
		return r.StopReason
	case len(r.ToolCalls) > 0:
		return llm.StopToolUse
	}
	return llm.StopEndTurn
}

func toolID(protocol string, call, i int) string {
	if protocol == Anthropic {
		return fmt.Sprintf("toolu_llmtest_%d_%d", call, i)
	}
	return fmt.Sprintf("call_llmtest_%d_%d", call, i)
}

func writeError(w http.ResponseWriter, protocol string, status int, retryAfter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	var body any
	if protocol == Anthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": anthropicErrorType(status), "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": msg, "type": openAIErrorType(status), "param": nil, "code": nil}}
	}
	json.NewEncoder(w).Encode(body)
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

func openAIErrorType(status int) string {
	switch {
	case status == 429:
		return "rate_limit_exceeded"
	case status == 401:
		return "invalid_api_key"
	case status < 500:
		return "invalid_request_error"
	}
	return "server_error"
}
