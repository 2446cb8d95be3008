package obs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

const ghToken = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"

// agentTurn makes the spans of one small run: the run, a model call, a
// failing tool call, a check.
func agentTurn(t trace.Tracer, runID string) {
	ctx, run := RunSpan(context.Background(), t, runID)
	mctx, m := ModelSpan(ctx, t, "anthropic", "claude-test")
	_ = mctx
	EndModelSpan(m, 1200, 345, 0.0123, nil)
	_, tool := ToolSpan(ctx, t, "shell")
	End(tool, fmt.Errorf("tool shell: %w", errors.New("exit 1: token "+ghToken)))
	_, ck := CheckSpan(ctx, t, "gate")
	End(ck, nil)
	run.End()
}

func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := newProvider(Options{ServiceVersion: "v0.test"}, sdktrace.NewSimpleSpanProcessor(exp))
	defer tp.Shutdown(context.Background())
	agentTurn(tp.Tracer(TracerName), "20261202-013000-abcdef")
	spans := exp.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	if len(spans) != 4 {
		t.Fatalf("%d spans: %v", len(spans), byName)
	}
	run := byName["cairn.agent.run"]
	wantTrace := TraceIDOf("20261202-013000-abcdef")
	for _, s := range spans {
		a := attrs(s.Attributes)
		if a[KeyRunID].AsString() != "20261202-013000-abcdef" {
			t.Errorf("span %s: cairn.run_id %v", s.Name, a[KeyRunID])
		}
		if s.SpanContext.TraceID() != wantTrace {
			t.Errorf("span %s: trace %s, want the run's %s", s.Name, s.SpanContext.TraceID(), wantTrace)
		}
		if s.Name != run.Name && s.Parent.SpanID() != run.SpanContext.SpanID() {
			t.Errorf("span %s is not a child of the run span", s.Name)
		}
		if r := attrs(s.Resource.Attributes()); r["service.name"].AsString() != "cairn" || r["service.version"].AsString() != "v0.test" {
			t.Errorf("resource %v", s.Resource)
		}
	}
	m := byName["chat claude-test"]
	a := attrs(m.Attributes)
	for k, want := range map[attribute.Key]any{
		KeyOperationName: "chat", KeySystem: "anthropic", KeyRequestModel: "claude-test",
		KeyInputTokens: int64(1200), KeyOutputTokens: int64(345), KeyCostUSD: 0.0123,
	} {
		if got := a[k].AsInterface(); got != want {
			t.Errorf("model span %s = %v, want %v", k, got, want)
		}
	}
	if m.SpanKind != trace.SpanKindClient || m.Status.Code == codes.Error {
		t.Errorf("model span kind %v status %v", m.SpanKind, m.Status)
	}
	tool := byName["execute_tool shell"]
	if tool.Status.Code != codes.Error || !strings.Contains(tool.Status.Description, "[REDACTED:github-token]") || strings.Contains(tool.Status.Description, ghToken) {
		t.Errorf("tool span status %+v", tool.Status)
	}
	if len(tool.Events) != 1 || strings.Contains(fmt.Sprint(tool.Events[0].Attributes), ghToken) {
		t.Errorf("tool span events %+v", tool.Events)
	}
	if attrs(tool.Attributes)[KeyToolName].AsString() != "shell" {
		t.Errorf("tool span %v", tool.Attributes)
	}
	if attrs(byName["check gate"].Attributes)[KeyCheckID].AsString() != "gate" {
		t.Errorf("check span %v", byName["check gate"].Attributes)
	}
}

// A resumed run (a new process, a new provider) continues the run's trace.
func TestResumeJoinsTrace(t *testing.T) {
	var ids []trace.TraceID
	for range 2 {
		exp := tracetest.NewInMemoryExporter()
		tp := newProvider(Options{}, sdktrace.NewSimpleSpanProcessor(exp))
		agentTurn(tp.Tracer(TracerName), "run-1")
		ids = append(ids, exp.GetSpans()[0].SpanContext.TraceID())
		tp.Shutdown(context.Background()) // (resets the in-memory exporter)
	}
	if ids[0] != ids[1] || !ids[0].IsValid() {
		t.Errorf("trace ids %v", ids)
	}
	// A span outside any run gets a random trace and no run id.
	exp := tracetest.NewInMemoryExporter()
	tp := newProvider(Options{}, sdktrace.NewSimpleSpanProcessor(exp))
	_, s := ToolSpan(context.Background(), tp.Tracer(TracerName), "read")
	s.End()
	got := exp.GetSpans()[0]
	if got.SpanContext.TraceID() == ids[0] || attrs(got.Attributes)[KeyRunID].Type() != attribute.INVALID {
		t.Errorf("a span outside a run: %+v", got)
	}
}

// Options.RunID, known at setup, is a resource attribute and on every span,
// even one started outside RunSpan.
func TestSetupRunID(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := newProvider(Options{RunID: "r-9"}, sdktrace.NewSimpleSpanProcessor(exp))
	_, s := ToolSpan(context.Background(), tp.Tracer(TracerName), "read")
	s.End()
	got := exp.GetSpans()[0]
	if attrs(got.Attributes)[KeyRunID].AsString() != "r-9" || attrs(got.Resource.Attributes())[KeyRunID].AsString() != "r-9" {
		t.Errorf("span %v resource %v", got.Attributes, got.Resource)
	}
}

func TestOff(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, e := range []string{"", "off", "OFF"} {
		tr, shutdown, err := Setup(context.Background(), Options{Exporter: e})
		if err != nil {
			t.Fatal(err)
		}
		ctx, s := RunSpan(context.Background(), tr, "x")
		_, m := ModelSpan(ctx, tr, "openai", "m")
		if m.IsRecording() || m.SpanContext().IsValid() {
			t.Errorf("%q: a recording span", e)
		}
		EndModelSpan(m, 1, 2, 3, errors.New("x"))
		s.End()
		if err := shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("off started goroutines: %d → %d", before, after)
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	tr, shutdown, err := Setup(context.Background(), Options{Exporter: "stdout", Writer: &buf, ServiceVersion: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	agentTurn(tr, "run-stdout")
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`"Name":"chat claude-test"`, `"Key":"cairn.run_id"`, `"run-stdout"`, `"Key":"gen_ai.usage.input_tokens"`, `"Key":"cairn.cost_usd"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout spans lack %s", want)
		}
	}
	if strings.Contains(out, ghToken) {
		t.Error("a secret reached the exporter")
	}
}

// A real OTLP/HTTP receiver: the spans arrive as protobuf, decoded with the
// OTLP types, on shutdown's flush.
func TestOTLP(t *testing.T) {
	var mu sync.Mutex
	var reqs []*coltrace.ExportTraceServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("%s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("decode: %v", err)
		}
		mu.Lock()
		reqs = append(reqs, &req)
		mu.Unlock()
		b, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(b)
	}))
	defer srv.Close()
	tr, shutdown, err := Setup(context.Background(), Options{Exporter: "otlp", Endpoint: srv.URL, ServiceVersion: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	agentTurn(tr, "run-otlp")
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	names := map[string]bool{}
	want := TraceIDOf("run-otlp")
	for _, req := range reqs {
		for _, rs := range req.ResourceSpans {
			svc := ""
			for _, kv := range rs.Resource.Attributes {
				if kv.Key == "service.name" {
					svc = kv.Value.GetStringValue()
				}
			}
			if svc != "cairn" {
				t.Errorf("resource %v", rs.Resource.Attributes)
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names[s.Name] = true
					if !bytes.Equal(s.TraceId, want[:]) {
						t.Errorf("span %s trace %x", s.Name, s.TraceId)
					}
					got := map[string]string{}
					for _, kv := range s.Attributes {
						got[kv.Key] = fmt.Sprint(kv.Value.Value)
					}
					if !strings.Contains(got["cairn.run_id"], "run-otlp") {
						t.Errorf("span %s attributes %v", s.Name, got)
					}
					if s.Name == "chat claude-test" && !strings.Contains(got["gen_ai.usage.output_tokens"], "345") {
						t.Errorf("model span %v", got)
					}
				}
			}
		}
	}
	if len(names) != 4 {
		t.Errorf("received spans %v", names)
	}
}

// A collector that never answers does not hold shutdown past its bound.
func TestOTLPHangingCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the shutdown bound")
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	tr, shutdown, err := Setup(context.Background(), Options{Exporter: "otlp", Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	agentTurn(tr, "r")
	start := time.Now()
	err = shutdown(context.Background())
	if d := time.Since(start); d > shutdownBound+2*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	if err == nil {
		t.Error("a flush that never completed reported success")
	}
}

func TestSetupErrors(t *testing.T) {
	for _, o := range []Options{
		{Exporter: "jaeger"},
		{Exporter: "otlp", Endpoint: "127.0.0.1:4318"},
		{Exporter: "otlp", Endpoint: "ftp://host"},
		{Exporter: "otlp", Endpoint: "http://"},
	} {
		if _, _, err := Setup(context.Background(), o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":           "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/":          "http://127.0.0.1:4318/v1/traces",
		"https://otel.example/base":       "https://otel.example/base/v1/traces",
		"http://127.0.0.1:4318/v1/traces": "http://127.0.0.1:4318/v1/traces",
	} {
		if got, err := tracesURL(in); err != nil || got != want {
			t.Errorf("tracesURL(%s) = %s %v, want %s", in, got, err, want)
		}
	}
}
