package obs

import (
	"crypto/rand"

	"go.opentelemetry.io/otel/trace"
)

// randomIDs returns a random, valid trace id and span id.
func randomIDs() (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	var sid trace.SpanID
	for !tid.IsValid() {
		rand.Read(tid[:])
	}
	for !sid.IsValid() {
		rand.Read(sid[:])
	}
	return tid, sid
}
