package mcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/engine"
)

// Options configure a Server.
type Options struct {
	Engine *engine.Engine
	// Version is reported to clients.
	Version string
	// MaxBytes caps the JSON of one page of results; default 32,000 (about
	// 8k tokens; clients that show the model both the structured result and
	// its text copy still see well under 25k).
	MaxBytes int
	// MaxConcurrent bounds the tool calls running at once; default
	// 2×GOMAXPROCS, at least 4. Of those, heavy tools (build_context, trace,
	// impact, index_status) take at most half, so quick lookups never queue
	// behind them.
	MaxConcurrent int
	// Verify, when set, serves verify_change: the verification gate on the
	// repository.
	Verify *VerifyOptions
	// Log receives protocol-level problems; nil discards them.
	Log *slog.Logger
	// beforeTool, for tests, runs after a call took its slot.
	beforeTool func(ctx context.Context, tool string) error
}

// Server is cairn's MCP server.
type Server struct {
	opts  Options
	eng   *engine.Engine
	srv   *sdk.Server
	slot  chan struct{}
	heavy chan struct{}
	// exchanges maps exchangeHeader values to HTTP request contexts.
	exchanges sync.Map
	// tools and direct serve Tools and Call.
	tools  []ToolInfo
	direct map[string]func(context.Context, json.RawMessage) (any, error)
}

const instructions = `cairn answers questions about this repository from its code index.
Start with search (find code by words or an issue text) or build_context (a budgeted, cited
working set for a task). Navigate with definition, references, callers, callees and
implementations; read exact lines with read_span. Every location has path, lines and a
revision; "stale" marks files changed since indexing. Lists are paged: pass next_cursor back.`

// New makes a server over opts.Engine.
func New(opts Options) *Server {
	opts.MaxBytes = cmp.Or(opts.MaxBytes, 32000)
	opts.MaxConcurrent = cmp.Or(opts.MaxConcurrent, max(4, 2*runtime.GOMAXPROCS(0)))
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, eng: opts.Engine, slot: make(chan struct{}, opts.MaxConcurrent),
		heavy: make(chan struct{}, max(1, opts.MaxConcurrent/2)), direct: map[string]func(context.Context, json.RawMessage) (any, error){}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "cairn", Title: "cairn code intelligence", Version: cmp.Or(opts.Version, "dev")},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Log})
	s.srv.AddReceivingMiddleware(boundErrors, capArguments)
	s.register()
	return s
}

// MaxArguments bounds the JSON of one tool call's arguments. Issue texts
// and stack traces fit many times over; a 5 MB task would keep a heavy slot
// busy for minutes.
const MaxArguments = 1 << 20

// capArguments refuses a tool call whose arguments exceed MaxArguments, as
// invalid_argument, before they are decoded.
func capArguments(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil && len(r.Params.Arguments) > MaxArguments {
			return errorResult(engine.Errorf(engine.InvalidArgument, "the arguments are %d bytes; at most %d are accepted", len(r.Params.Arguments), MaxArguments)), nil
		}
		return next(ctx, method, req)
	}
}

// boundErrors bounds and redacts the errors the SDK makes itself before a
// tool runs — an unknown tool's name, an argument that fails the input
// schema, both quoted whole — as the engine bounds its own
// (engine.BoundMessage).
func boundErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var we *jsonrpc.Error
		switch {
		case errors.As(err, &we):
			b := *we
			b.Message = engine.BoundMessage(we.Message)
			err = &b
		case err != nil:
			err = errors.New(engine.BoundMessage(err.Error()))
		}
		if r, ok := res.(*sdk.CallToolResult); ok && r != nil && r.IsError && r.Meta["cairn/error"] == nil {
			// the SDK's, not errorResult's (whose candidates must stay listed)
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					tc.Text = engine.BoundMessage(tc.Text)
				}
			}
		}
		return res, err
	}
}

// SDK returns the underlying SDK server (to connect other transports).
func (s *Server) SDK() *sdk.Server { return s.srv }

// ServeStdio serves one client over stdin/stdout until it disconnects or
// ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	err := s.srv.Run(ctx, &sdk.StdioTransport{})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// exchangeHeader tags each HTTP exchange so a tool call can find it (the
// SDK hands tools the request's headers, not its context).
const exchangeHeader = "X-Cairn-Exchange"

// Handler serves streamable HTTP, statelessly (see the package doc). A
// tool call is cancelled when its HTTP exchange ends (the client went away).
func (s *Server) Handler() http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: s.opts.Log})
	// Browsers' cross-origin requests are refused (a web page must not
	// drive a local server); the SDK already refuses DNS rebinding.
	return http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := rand.Text() // replaces any value a client sent
		r.Header.Set(exchangeHeader, id)
		s.exchanges.Store(id, r.Context())
		defer s.exchanges.Delete(id)
		h.ServeHTTP(w, r)
	}))
}

// exchangeContext ties ctx to the HTTP exchange that carried req, if any.
func (s *Server) exchangeContext(ctx context.Context, req *sdk.CallToolRequest) (context.Context, func()) {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ctx, func() {}
	}
	v, ok := s.exchanges.Load(req.Extra.Header.Get(exchangeHeader))
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(v.(context.Context), func() { cancel(errClientGone) })
	return ctx, func() { stop(); cancel(nil) }
}

var errClientGone = errors.New("the client went away")

// ServeHTTP listens on addr and serves the MCP endpoint at /mcp (and /)
// until ctx ends. ready, when set, receives the bound address.
func (s *Server) ServeHTTP(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	h := s.Handler()
	mux.Handle("/mcp", h)
	mux.Handle("/", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return nil
	}
}

// handlerFunc is one tool's core: it gets a snapshot and the typed input,
// and returns the structured output and, optionally, the text for the model
// (default: the output's JSON).
type handlerFunc[In, Out any] func(ctx context.Context, snap *engine.Snapshot, in In) (Out, string, error)

// addTool registers a read-only tool whose output schema is Out's (or
// schema, when given).
func addTool[In, Out any](s *Server, name, title, desc string, schema *jsonschema.Schema, fn handlerFunc[In, Out]) {
	closed := false
	addToolAnnotated(s, name, title, desc, schema, &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}, fn)
}

// addToolAnnotated is addTool with the tool's annotations given.
func addToolAnnotated[In, Out any](s *Server, name, title, desc string, schema *jsonschema.Schema, ann *sdk.ToolAnnotations, fn handlerFunc[In, Out]) {
	if schema == nil {
		var err error
		if schema, err = jsonschema.For[Out](nil); err != nil {
			panic(fmt.Sprintf("output schema of %s: %v", name, err))
		}
	}
	t := &sdk.Tool{Name: name, Title: title, Description: desc, OutputSchema: schema, Annotations: ann}
	run := func(ctx context.Context, in In) (Out, string, error) {
		var zero Out
		if heavyTools[name] {
			select {
			case s.heavy <- struct{}{}:
				defer func() { <-s.heavy }()
			case <-ctx.Done():
				return zero, "", engine.Errorf(engine.Internal, "cancelled while waiting: %v", ctx.Err())
			}
		}
		select {
		case s.slot <- struct{}{}:
			defer func() { <-s.slot }()
		case <-ctx.Done():
			return zero, "", engine.Errorf(engine.Internal, "cancelled while waiting: %v", ctx.Err())
		}
		if s.opts.beforeTool != nil {
			if err := s.opts.beforeTool(ctx, name); err != nil {
				return zero, "", err
			}
		}
		snap, err := s.eng.Acquire(ctx)
		if err != nil {
			return zero, "", err
		}
		defer snap.Release()
		out, text, err := fn(ctx, snap, in)
		if err != nil && ctx.Err() != nil {
			err = engine.Errorf(engine.Internal, "cancelled: %v", ctx.Err())
		}
		return out, text, err
	}
	sdk.AddTool(s.srv, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		ctx, done := s.exchangeContext(ctx, req)
		defer done()
		out, text, err := run(ctx, in)
		if err != nil {
			return errorResult(err), nil, nil
		}
		res := &sdk.CallToolResult{}
		if text != "" {
			res.Content = []sdk.Content{&sdk.TextContent{Text: text}}
		}
		return res, out, nil
	})
	inSchema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", name, err))
	}
	s.tools = append(s.tools, ToolInfo{Name: name, Title: title, Description: desc, ReadOnly: ann.ReadOnlyHint,
		Input: inSchema, Output: schema})
	s.direct[name] = func(ctx context.Context, args json.RawMessage) (any, error) {
		var in In
		if len(args) > MaxArguments {
			return nil, engine.Errorf(engine.InvalidArgument, "the arguments are %d bytes; at most %d are accepted", len(args), MaxArguments)
		}
		if len(args) > 0 {
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return nil, engine.Errorf(engine.InvalidArgument, "arguments of %s: %v", name, err)
			}
		}
		out, _, err := run(ctx, in)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// ToolInfo describes a tool for other surfaces (the HTTP API): its name,
// whether it only reads, and its input and output schemas.
type ToolInfo struct {
	Name, Title, Description string
	ReadOnly                 bool
	Input, Output            *jsonschema.Schema
}

// Tools lists the tools served, in registration order.
func (s *Server) Tools() []ToolInfo { return slices.Clone(s.tools) }

// Call runs one tool as a tool call would — the same admission (slots),
// snapshot, arguments and answer — with its arguments as JSON (unknown
// members are an invalid_argument) and its structured output as the
// result. Errors are the engine's (engine.Classify gives the category).
// The HTTP API (serve/web) answers with it, so its JSON is the tools'.
func (s *Server) Call(ctx context.Context, tool string, args json.RawMessage) (any, error) {
	f, ok := s.direct[tool]
	if !ok {
		return nil, engine.Errorf(engine.NotFound, "no tool %q", tool)
	}
	return f(ctx, args)
}

// heavyTools take a heavy slot as well as a slot.
var heavyTools = map[string]bool{"build_context": true, "trace": true, "impact": true, "index_status": true, "verify_change": true}

// errorResult is a tool error: category first, candidates listed, and the
// same in _meta for programs.
func errorResult(err error) *sdk.CallToolResult {
	e := engine.Classify(err)
	var b strings.Builder
	b.WriteString(e.Error())
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n- %s (%s) %s:%d-%d symbol_id=%q", c.QualifiedName, c.Kind, c.Path, c.StartLine, c.EndLine, c.SymbolID)
	}
	meta := map[string]any{"category": string(e.Category)}
	if len(e.Candidates) > 0 {
		meta["candidates"] = e.Candidates
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: b.String()}},
		Meta: sdk.Meta{"cairn/error": meta}}
}

// cursor continues a paged answer.
type cursor struct {
	Tool string `json:"t"`
	Key  string `json:"k"`
	Gen  int64  `json:"g"`
	Off  int    `json:"o"`
}

// argsKey identifies the arguments of a call (without its cursor).
func argsKey(v any) string {
	b, _ := json.Marshal(v)
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%x", h.Sum64())
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// offsetOf decodes a cursor for tool and args at generation gen; "" is 0.
func offsetOf(raw, tool string, args any, gen int64) (int, error) {
	if raw == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	var c cursor
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Off < 0 {
		return 0, engine.Errorf(engine.InvalidArgument, "cursor is malformed: pass next_cursor exactly as given")
	}
	if c.Tool != tool || c.Key != argsKey(args) {
		return 0, engine.Errorf(engine.InvalidArgument, "cursor belongs to another call: repeat the same arguments with it")
	}
	if c.Gen != gen {
		return 0, engine.Errorf(engine.StaleIndex, "the index changed since this cursor was issued (generation %d, now %d): repeat the call without cursor", c.Gen, gen)
	}
	return c.Off, nil
}

// page cuts items[off:] to at most limit items whose rendering (by build)
// fits maxBytes, and returns the rendering of the page with the next
// cursor ("" at the end).
func page[T, O any](s *Server, items []T, off, limit int, tool string, args any, gen int64, build func(page []T, next string) O) O {
	if off > len(items) {
		off = len(items)
	}
	n := min(limit, len(items)-off)
	for {
		next := ""
		if off+n < len(items) {
			next = encodeCursor(cursor{Tool: tool, Key: argsKey(args), Gen: gen, Off: off + n})
		}
		out := build(items[off:off+n], next)
		if n <= 1 {
			return out
		}
		b, _ := json.Marshal(out)
		if len(b) <= s.opts.MaxBytes {
			return out
		}
		n = max(1, min(n-1, n*s.opts.MaxBytes/len(b)*9/10))
	}
}

// inRange checks an optional integer argument: 0 means def.
func inRange(name string, v, def, lo, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, engine.Errorf(engine.InvalidArgument, "%s must be between %d and %d (got %d)", name, lo, hi, v)
	}
	return v, nil
}
