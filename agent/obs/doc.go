// Package obs is the agent's OpenTelemetry tracing: one trace per run,
// with spans for the run, each model call, each tool call and each check.
//
// Tracing is off by default. Setup with Exporter "" or "off" returns the
// no-op tracer of go.opentelemetry.io/otel/trace/noop: no SDK provider, no
// exporter, no goroutine (TestOff counts them). "stdout" writes each span
// as JSON to Options.Writer when it ends (a synchronous processor);
// "otlp" sends OTLP/HTTP protobuf to Options.Endpoint through a batch
// processor. The returned shutdown flushes; when its context has no
// deadline it is bounded to 5 s, so an unreachable collector cannot hold
// the process (TestOTLPHangingCollector).
//
// Invariants:
//
//   - Every span started under a run carries cairn.run_id: RunSpan (or
//     WithRunID) puts the id in the context, and a span processor stamps it
//     on each span started under that context. Options.RunID, when the id is
//     known at setup, is also a resource attribute and stamped on all spans.
//   - One trace per run, across processes: a root span started under a run
//     id gets the trace id TraceIDOf(run id) (SHA-256 of the id, first 16
//     bytes) from a custom IDGenerator, so the original process and each
//     `cairn agent resume` of the run land in the same trace.
//   - Model spans follow the GenAI semantic conventions: name "chat MODEL",
//     kind client, gen_ai.operation.name=chat, gen_ai.system and
//     gen_ai.provider.name (the older and newer key for the provider),
//     gen_ai.request.model, gen_ai.usage.input_tokens and output_tokens;
//     cairn.cost_usd is cairn's. Tool spans are "execute_tool TOOL" with
//     gen_ai.tool.name; check spans "check ID" with cairn.check.id.
//   - Error messages pass internal/redact before they reach a span.
//   - The library reads no environment itself: the resource is built from
//     Options (not resource.Default, which reads OTEL_RESOURCE_ATTRIBUTES).
//     The OTLP exporter still applies its own OTEL_EXPORTER_OTLP_* variables
//     for what Options leave unset (headers, TLS, an endpoint when Endpoint
//     is empty).
//   - Setup sets no global provider; callers pass the tracer down.
package obs
