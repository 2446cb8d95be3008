package obs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/cairn-dev/cairn/internal/redact"
)

// Options configure tracing. The zero value is tracing off.
type Options struct {
	// Exporter: "" or "off" (no tracing), "stdout" (JSON spans to Writer)
	// or "otlp" (OTLP/HTTP protobuf to Endpoint).
	Exporter string
	// Endpoint is the OTLP/HTTP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT:
	// http://127.0.0.1:4318; /v1/traces is appended unless the path already
	// ends with it. Empty: the exporter's default (its own OTEL_* variables,
	// then localhost:4318).
	Endpoint string
	// Writer receives the stdout exporter's spans (default os.Stdout).
	Writer io.Writer
	// RunID, when known at setup, is a resource attribute and stamped on
	// every span; RunSpan and WithRunID set it per run otherwise.
	RunID          string
	ServiceVersion string
}

// Attribute keys. The gen_ai.* keys are OpenTelemetry's GenAI semantic
// conventions; cairn.* are cairn's own.
const (
	KeyRunID         = attribute.Key("cairn.run_id")
	KeyCostUSD       = attribute.Key("cairn.cost_usd")
	KeyCheckID       = attribute.Key("cairn.check.id")
	KeyOperationName = attribute.Key("gen_ai.operation.name")
	KeySystem        = attribute.Key("gen_ai.system")
	KeyProviderName  = attribute.Key("gen_ai.provider.name")
	KeyRequestModel  = attribute.Key("gen_ai.request.model")
	KeyInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	KeyOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	KeyToolName      = attribute.Key("gen_ai.tool.name")
	KeyErrorType     = attribute.Key("error.type")
)

// TracerName is the instrumentation scope of cairn's spans.
const TracerName = "github.com/cairn-dev/cairn/agent"

// shutdownBound bounds a shutdown whose context has no deadline: an
// unreachable collector must not hold the process up.
const shutdownBound = 5 * time.Second

// Setup returns the tracer cairn's agent spans go to, and a shutdown that
// flushes and stops the exporter. Off (the default) is a no-op tracer: no
// exporter, no goroutine, nothing recorded.
func Setup(ctx context.Context, o Options) (trace.Tracer, func(context.Context) error, error) {
	var sp sdktrace.SpanProcessor
	switch strings.ToLower(strings.TrimSpace(o.Exporter)) {
	case "", "off", "none":
		return noop.NewTracerProvider().Tracer(TracerName), func(context.Context) error { return nil }, nil
	case "stdout":
		w := o.Writer
		if w == nil {
			w = os.Stdout
		}
		exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
		if err != nil {
			return nil, nil, fmt.Errorf("stdout trace exporter: %w", err)
		}
		// synchronous: a span is written when it ends
		sp = sdktrace.NewSimpleSpanProcessor(exp)
	case "otlp":
		opts := []otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 5 * time.Second, MaxElapsedTime: 15 * time.Second,
		})}
		if o.Endpoint != "" {
			u, err := tracesURL(o.Endpoint)
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, otlptracehttp.WithEndpointURL(u))
		}
		exp, err := otlptracehttp.New(ctx, opts...)
		if err != nil {
			return nil, nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		sp = sdktrace.NewBatchSpanProcessor(exp)
	default:
		return nil, nil, fmt.Errorf("unknown trace exporter %q (off, stdout or otlp)", o.Exporter)
	}
	tp := newProvider(o, sp)
	shutdown := func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, shutdownBound)
			defer cancel()
		}
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}
	return tp.Tracer(TracerName), shutdown, nil
}

// newProvider is the SDK provider around sp: cairn's resource, run-id
// stamping, and trace ids derived from the run id.
func newProvider(o Options, sp sdktrace.SpanProcessor) *sdktrace.TracerProvider {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", "cairn"),
	}
	if o.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", o.ServiceVersion))
	}
	if o.RunID != "" {
		attrs = append(attrs, KeyRunID.String(o.RunID))
	}
	// resource.NewSchemaless, not resource.Default: a library reads no
	// environment (OTEL_RESOURCE_ATTRIBUTES is cmd's to pass).
	return sdktrace.NewTracerProvider(
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
		sdktrace.WithIDGenerator(runIDs{}),
		sdktrace.WithSpanProcessor(runStamp{runID: o.RunID}),
		sdktrace.WithSpanProcessor(sp),
	)
}

// tracesURL turns an OTLP base URL into the traces endpoint.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("otlp endpoint %s: want an http(s) URL such as http://127.0.0.1:4318", redact.Quote(endpoint))
	}
	if !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

type runIDKey struct{}

// WithRunID returns ctx carrying the run id: spans started under it get
// the cairn.run_id attribute, and a root span started under it belongs to
// the run's trace.
func WithRunID(ctx context.Context, runID string) context.Context {
	return context.WithValue(ctx, runIDKey{}, runID)
}

// RunIDFrom returns the run id ctx carries ("" for none).
func RunIDFrom(ctx context.Context) string {
	s, _ := ctx.Value(runIDKey{}).(string)
	return s
}

// RunSpan starts the span of one run (or one resumed leg of it) and
// returns ctx carrying the run id. Its trace id is derived from the run id,
// so the original process and every resume of the run form one trace.
func RunSpan(ctx context.Context, t trace.Tracer, runID string) (context.Context, trace.Span) {
	ctx = WithRunID(ctx, runID)
	return t.Start(ctx, "cairn.agent.run", trace.WithNewRoot(), trace.WithAttributes(KeyRunID.String(runID)))
}

// TraceIDOf is the trace id of a run: the first 16 bytes of SHA-256 of
// its id.
func TraceIDOf(runID string) trace.TraceID {
	sum := sha256.Sum256([]byte("cairn.run:" + runID))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

// runIDs generates random ids, except that a root span started under a
// run id belongs to that run's trace.
type runIDs struct{}

func (runIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	tid, sid := randomIDs()
	if id := RunIDFrom(ctx); id != "" {
		tid = TraceIDOf(id)
	}
	return tid, sid
}

func (runIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	_, sid := randomIDs()
	return sid
}

// runStamp puts cairn.run_id on every span that starts under a run id
// (or on all spans, when Options.RunID was set).
type runStamp struct{ runID string }

func (p runStamp) OnStart(parent context.Context, s sdktrace.ReadWriteSpan) {
	id := RunIDFrom(parent)
	if id == "" {
		id = p.runID
	}
	if id != "" {
		s.SetAttributes(KeyRunID.String(id))
	}
}
func (runStamp) OnEnd(sdktrace.ReadOnlySpan)      {}
func (runStamp) Shutdown(context.Context) error   { return nil }
func (runStamp) ForceFlush(context.Context) error { return nil }

// ModelSpan starts the span of one model call (GenAI conventions: a
// client span named "chat MODEL").
func ModelSpan(ctx context.Context, t trace.Tracer, provider, model string) (context.Context, trace.Span) {
	return t.Start(ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		KeyOperationName.String("chat"),
		KeySystem.String(provider),
		KeyProviderName.String(provider),
		KeyRequestModel.String(model),
	))
}

// EndModelSpan records a model call's usage and cost (or its error) and
// ends the span.
func EndModelSpan(sp trace.Span, inTok, outTok int64, cost float64, err error) {
	sp.SetAttributes(KeyInputTokens.Int64(inTok), KeyOutputTokens.Int64(outTok), KeyCostUSD.Float64(cost))
	End(sp, err)
}

// ToolSpan starts the span of one tool call.
func ToolSpan(ctx context.Context, t trace.Tracer, tool string) (context.Context, trace.Span) {
	return t.Start(ctx, "execute_tool "+tool, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		KeyOperationName.String("execute_tool"),
		KeyToolName.String(tool),
	))
}

// CheckSpan starts the span of one check (a gate run, a criterion).
func CheckSpan(ctx context.Context, t trace.Tracer, id string) (context.Context, trace.Span) {
	return t.Start(ctx, "check "+id, trace.WithAttributes(KeyCheckID.String(id)))
}

// End ends sp, marking it failed with err's (redacted) message when err
// is not nil.
func End(sp trace.Span, err error) {
	if err != nil {
		msg := redact.Text(err.Error())
		sp.RecordError(errors.New(msg))
		sp.SetStatus(codes.Error, msg)
		sp.SetAttributes(KeyErrorType.String(errorType(err)))
	}
	sp.End()
}

// errorType is error.type: the innermost error's Go type, or "_OTHER" (the
// conventions' fallback) for an untyped one.
func errorType(err error) string {
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u
	}
	switch t := fmt.Sprintf("%T", err); t {
	case "*errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError":
		return "_OTHER"
	default:
		return t
	}
}
