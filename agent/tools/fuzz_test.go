package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/gate/policy"
)

// FuzzDecode: no input makes decoding panic, and whatever it accepts
// re-encodes (the schema's fields only).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[]`, `{"path":"a","old":"b","new":"c"}`, `{"path":5}`, `{"path":"a","x":1}`, "{\"path\":\"\x00\"}", `{"old":{"a":1}}`, `"str"`, `{"path":"a"}{"path":"b"}`} {
		f.Add(s)
	}
	tl := newTool("edit", "", []field{{"path", str("p"), true}, {"old", str("o"), true}, {"new", str("n"), true}},
		func(in editIn) (policy.Effects, error) { return policy.Effects{Writes: []string{in.Path}}, nil },
		func(context.Context, editIn) (policy.Result, error) { return policy.Result{}, nil })
	f.Fuzz(func(t *testing.T, in string) {
		res, err := tl.Run(context.Background(), json.RawMessage(in))
		if err != nil {
			t.Fatalf("Go error on input %q: %v", in, err)
		}
		if res.IsError && len(res.Content) > 4000 {
			t.Fatalf("a %d-byte refusal", len(res.Content))
		}
	})
}

// FuzzEditMatch: finding occurrences and the closest region never panics
// and every occurrence it reports is one.
func FuzzEditMatch(f *testing.F) {
	f.Add("a\nb\nX a\nb Y\n", "a\nb", "X a\nb Y")
	f.Add("", "x", "")
	f.Add("ééé\n", "é", "éé")
	f.Fuzz(func(t *testing.T, content, old, new string) {
		if old == "" {
			return
		}
		fresh, applied := occurrences(content, old, new)
		for _, p := range fresh {
			if !strings.HasPrefix(content[p:], old) {
				t.Fatalf("fresh %d is not old", p)
			}
		}
		for _, p := range applied {
			if !strings.HasPrefix(content[p:], new) {
				t.Fatalf("applied %d is not new", p)
			}
		}
		_ = closest("f.go", content, old)
		_ = lineList(content, fresh)
	})
}
