package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine"
)

// TestErrorsBounded: however an error is made, what leaves the engine
// quotes a huge input bounded and holds no secret.
func TestErrorsBounded(t *testing.T) {
	huge := strings.Repeat("N", 5<<20)
	token := "ghp_" + strings.Repeat("aB3dE6gH9j", 4)
	for name, err := range map[string]error{
		"Errorf %q":       engine.Errorf(engine.NotFound, "no definition of %q in the index", huge),
		"Errorf %v error": engine.Errorf(engine.InvalidArgument, "kind: %v", fmt.Errorf("unknown kind %q", huge)),
		"Classify":        engine.Classify(fmt.Errorf("parse %s: failed", huge)),
		"direct Error":    &engine.Error{Category: engine.Internal, Message: huge},
		"Errorf secret":   engine.Errorf(engine.NotFound, "no definition of %q", token),
		"Classify secret": engine.Classify(errors.New("bad url postgres://admin:S3cr3tPassw0rd@db/x")),
	} {
		msg := err.Error()
		if len(msg) > engine.MaxMessage+64 {
			t.Errorf("%s: %d bytes", name, len(msg))
		}
		if strings.HasPrefix(name, "Errorf") && len(msg) > 2*engine.MaxQuoted {
			t.Errorf("%s: quotes %d bytes of the input", name, len(msg))
		}
		if strings.Contains(msg, token) || strings.Contains(msg, "S3cr3tPassw0rd") {
			t.Errorf("%s: a secret in %q", name, msg)
		}
	}
	if q := engine.Quote(huge); len(q) > engine.MaxQuoted+40 {
		t.Errorf("Quote: %d bytes", len(q))
	}
	if got := engine.Errorf(engine.NotFound, "no definition of %q", "Serve").Error(); got != `not_found: no definition of "Serve"` {
		t.Errorf("a short message changed: %s", got)
	}
}

func TestBoundMessageCites(t *testing.T) {
	got := engine.BoundMessage(strings.Repeat("x", 5<<20))
	if !strings.HasSuffix(got, "…[5242880 bytes]") || len(got) > engine.MaxMessage+30 {
		t.Fatalf("BoundMessage of 5 MB: %d bytes ending %q", len(got), got[max(0, len(got)-30):])
	}
}
