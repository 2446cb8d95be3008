package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// TestContextFollowsTheValue: for a value lost on its read path (a mapper
// builds the output without it) or on its write path (set on a copy that
// no save is given), in Go, Python and TypeScript, a 4k pack holds the
// culprit with a reason that says which of the value's paths it is on,
// for several phrasings of the symptom — some naming no identifier.
// Each fixture (testdata/values) names the culprit and the phrasings.
func TestContextFollowsTheValue(t *testing.T) {
	files, _ := filepath.Glob("testdata/values/*.txtar")
	if len(files) < 6 {
		t.Fatalf("%d fixtures", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tree := map[string]string{}
			for _, af := range ar.Files {
				tree[af.Name] = string(af.Data)
			}
			var culprit string
			var phrasings []string
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if v, ok := strings.CutPrefix(line, "culprit: "); ok {
					culprit = v
				}
				if v, ok := strings.CutPrefix(line, "phrasing: "); ok {
					phrasings = append(phrasings, v)
				}
			}
			if culprit == "" || len(phrasings) < 3 {
				t.Fatalf("fixture names no culprit or fewer than 3 phrasings")
			}
			root := enginetest.RepoOf(t, tree)
			e := open(t, root)
			ctx := context.Background()
			s, err := e.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Release()
			for _, task := range phrasings {
				pack, err := s.Context(ctx, engine.ContextOptions{Task: task, Budget: 4000, Format: "json"})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				var got []string
				for _, it := range pack.Items {
					got = append(got, it.Path+": "+it.Reason)
					if strings.Contains(it.Reason, culprit+" ") && strings.Contains(it.Reason, " path of ") {
						found = true
					}
				}
				if !found {
					t.Errorf("%q: no item holds %s with a trace reason; values %v\n  %s", task, culprit, pack.Values, strings.Join(got, "\n  "))
				}
			}
		})
	}
}
