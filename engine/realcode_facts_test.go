package engine_test

// Real-code cases of the extraction and resolution classes of issue 19:
// keyword arguments are not writes, quoted keys are matched as written,
// package-qualified Go calls, Python subclasses through qualified bases,
// and what a trace of an unknown type says. Each answer was checked by
// reading the pinned source (the comments say where).

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

func init() {
	realCases = append(realCases,
		realCase{Name: "writes/Response.encoding without keyword arguments", View: "requests", Check: func(t *testing.T, s *engine.Snapshot) {
			// requests/adapters.py:315 response.encoding = get_encoding_from_headers(...)
			// is the one assignment outside Response.__init__ (models.py:681,
			// the definition). cookies.py:55 to_native_string(..., encoding="utf-8")
			// binds a parameter of to_native_string (_internal_utils.py:23).
			got := refSites(t, s, engine.ReferencesOptions{Name: "Response.encoding", Roles: "write"})
			sameSet(t, "refs --role write Response.encoding", got, []string{"requests/adapters.py:315:18 write"})
			res, err := s.Trace(context.Background(), engine.TraceOptions{Target: "Response.encoding"})
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, "trace Response.encoding writes", siteLines(res.Writes), []string{"requests/adapters.py:315"})
		}},
	)
}

// siteLines lists trace sites as "path:line".
func siteLines(ss []trace.Site) []string {
	var out []string
	for _, x := range ss {
		out = append(out, fmt.Sprintf("%s:%d", x.Path, x.StartLine))
	}
	return out
}
