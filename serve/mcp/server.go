package mcp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/cairn-dev/cairn/engine/catalog"
)

// Options configure a Server.
type Options struct {
	Engine *engine.Engine
	// Version is reported to clients.
	Version string
	// MaxBytes caps the JSON of one page of results; default
	// catalog.MaxBytes (24 KiB, about 6k tokens).
	MaxBytes int
	// Tools are the catalogue's tools served and how they are described;
	// the zero Profile is all of them, fully described (`cairn serve mcp`
	// defaults to catalog.Lean).
	Tools catalog.Profile
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
working set for a task). Navigate with definition, references and callers (and the other
tools listed). Every location has path, lines and a
revision; "stale" marks files changed since indexing. Lists are paged: pass next_cursor back.`

// New makes a server over opts.Engine.
func New(opts Options) *Server {
	opts.MaxBytes = cmp.Or(opts.MaxBytes, catalog.MaxBytes)
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

// MaxArguments bounds the JSON of one tool call's arguments
// (catalog.MaxArguments).
const MaxArguments = catalog.MaxArguments

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

// register adds the catalogue's tools the profile lists, then
// verify_change (the gate, not a question about the index).
func (s *Server) register() {
	closed := false
	for _, t := range catalog.All() {
		i := t.Info()
		if !s.opts.Tools.Has(i.Name) {
			continue
		}
		info := ToolInfo{Name: i.Name, Title: i.Title, Description: i.Describe(s.opts.Tools.Short), ReadOnly: true, Input: i.Input, Output: i.Output}
		s.add(info, i.Heavy, &sdk.ToolAnnotations{Title: i.Title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed},
			func(ctx context.Context, snap *engine.Snapshot, args json.RawMessage) (any, string, error) {
				return t.Call(ctx, snap, args, catalog.Options{MaxBytes: s.opts.MaxBytes})
			})
	}
	if s.opts.Verify != nil && s.opts.Tools.Has("verify_change") {
		s.addVerify()
	}
}

// toolFunc is one tool's core: it gets a snapshot and the arguments, and
// returns the structured output and, optionally, the text for the model
// (default: the output's JSON).
type toolFunc func(ctx context.Context, snap *engine.Snapshot, args json.RawMessage) (any, string, error)

// add registers a tool: admission (a slot, and a heavy slot for heavy
// tools), cancellation, a snapshot and error categories, in one place for
// every tool. The SDK validates the arguments against info.Input before fn
// decodes them, and the output against info.Output.
func (s *Server) add(info ToolInfo, heavy bool, ann *sdk.ToolAnnotations, fn toolFunc) {
	name := info.Name
	run := func(ctx context.Context, args json.RawMessage) (any, string, error) {
		if heavy {
			select {
			case s.heavy <- struct{}{}:
				defer func() { <-s.heavy }()
			case <-ctx.Done():
				return nil, "", engine.Errorf(engine.Internal, "cancelled while waiting: %v", ctx.Err())
			}
		}
		select {
		case s.slot <- struct{}{}:
			defer func() { <-s.slot }()
		case <-ctx.Done():
			return nil, "", engine.Errorf(engine.Internal, "cancelled while waiting: %v", ctx.Err())
		}
		if s.opts.beforeTool != nil {
			if err := s.opts.beforeTool(ctx, name); err != nil {
				return nil, "", err
			}
		}
		snap, err := s.eng.Acquire(ctx)
		if err != nil {
			return nil, "", err
		}
		defer snap.Release()
		out, text, err := fn(ctx, snap, args)
		if err != nil && ctx.Err() != nil {
			err = engine.Errorf(engine.Internal, "cancelled: %v", ctx.Err())
		}
		return out, text, err
	}
	t := &sdk.Tool{Name: name, Title: info.Title, Description: info.Description, InputSchema: info.Input, OutputSchema: info.Output, Annotations: ann}
	sdk.AddTool(s.srv, t, func(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, any, error) {
		ctx, done := s.exchangeContext(ctx, req)
		defer done()
		out, text, err := run(ctx, args)
		if err != nil {
			return errorResult(err), nil, nil
		}
		res := &sdk.CallToolResult{}
		if text != "" {
			res.Content = []sdk.Content{&sdk.TextContent{Text: text}}
		}
		return res, out, nil
	})
	s.tools = append(s.tools, info)
	s.direct[name] = func(ctx context.Context, args json.RawMessage) (any, error) {
		if len(args) > MaxArguments {
			return nil, engine.Errorf(engine.InvalidArgument, "the arguments are %d bytes; at most %d are accepted", len(args), MaxArguments)
		}
		out, _, err := run(ctx, args)
		return out, err
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
