package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
)

func TestCodecRoundTrip(t *testing.T) {
	r := func(sb, eb, sl, sc, el, ec uint32) graph.Range {
		return graph.Range{StartByte: sb, EndByte: eb, StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec}
	}
	in := &graph.FileFacts{
		Occurrences: []graph.Occurrence{
			{Name: "Serve", Range: r(10, 15, 2, 4, 2, 9), Role: graph.RoleDefinition, Enclosing: -1, Symbol: "cairn go . . `a`/Serve()."},
			{Name: "count", Range: r(40, 45, 5, 3, 5, 8), Role: graph.RoleRead | graph.RoleWrite, Qualifier: "s", Enclosing: 0},
			{Name: "x", Range: r(41, 42, 5, 4, 5, 5), Role: graph.RoleCall, Qualifier: "s.store", Enclosing: 0},
		},
		Imports:  []graph.Import{{Module: "net/http", Alias: "h", Range: r(3, 20, 1, 3, 1, 20)}},
		Bindings: []graph.Binding{{Name: "s", Type: "*Server", Scope: 0, Range: r(20, 30, 2, 0, 4, 1)}},
	}
	b := Encode(in)
	var out graph.FileFacts
	if err := Decode(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, &out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Truncation anywhere is an error, never a panic or a silent success.
	for i := 1; i < len(b); i++ {
		var ff graph.FileFacts
		if err := Decode(b[:i], &ff); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", i, len(b))
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(&graph.FileFacts{Occurrences: []graph.Occurrence{{Name: "a", Enclosing: -1}}}))
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var ff graph.FileFacts
		if Decode(b, &ff) == nil {
			// whatever decodes must encode and decode to the same facts
			var again graph.FileFacts
			if err := Decode(Encode(&ff), &again); err != nil {
				t.Fatalf("re-decode: %v", err)
			}
		}
	})
}
