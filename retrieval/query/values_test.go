package query

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
)

func mentionNames(ms []Mention) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// TestMentions: identifiers in any spelling, prose runs, "X of the Y"
// read as "Y X", parts and synonyms after.
func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"fix the missing artifact url after reload", []string{"artifact url", "artifact link", "artifact href"}},
		{"artifactUrl is empty after refresh", []string{"artifactUrl"}},
		{"the `artifact_url` JSON key is dropped", []string{"artifact_url", "JSON"}},
		{"the link to the build output is gone after reloading the page",
			[]string{"build output link", "build output", "output link", "build output url", "output url", "build output href", "output href"}},
	} {
		got := mentionNames(Parse(tc.text).Mentions())
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, d)
		}
	}
}

type fakeIndex struct {
	syms  []graph.Symbol
	terms map[string]bool
}

func (f fakeIndex) SymbolsByName(_ context.Context, name string) ([]graph.Symbol, error) {
	var out []graph.Symbol
	for _, s := range f.syms {
		if strings.EqualFold(s.Name, name) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f fakeIndex) FilesWithTerms(_ context.Context, terms []string) ([]string, error) {
	for _, t := range terms {
		if f.terms[t] {
			return []string{"x.go"}, nil
		}
	}
	return nil, nil
}

// TestLinkValues: exact identifier > tag/column > prose joined > partial.
func TestLinkValues(t *testing.T) {
	ix := fakeIndex{syms: []graph.Symbol{
		{Name: "ArtifactURL", Kind: graph.KindField, Container: "Task"},
		{Name: "OutputURL", Kind: graph.KindField, Container: "Build"},
		{Name: "artifactUrl", Kind: graph.KindProperty, Container: "TaskState"},
		{Name: "ArtifactURL", Kind: graph.KindFunction},
	}, terms: map[string]bool{"artifact_url": true}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"ArtifactURL is lost", []string{"Task.ArtifactURL exact identifier"}},
		{"the state's artifactUrl is lost", []string{"TaskState.artifactUrl exact identifier"}},
		{"`artifact_url` is lost", []string{"artifact_url tag, column or key"}},
		{"fix the missing artifact url after reload", []string{"Task.ArtifactURL prose words joined"}},
		{"the link to the build output is gone after reloading the page", []string{"Build.OutputURL partial"}},
		{"artifact_url is missing and so is the artifact url", []string{"artifact_url tag, column or key", "Task.ArtifactURL prose words joined"}},
	} {
		vs, err := LinkValues(context.Background(), Index{Symbols: ix, Terms: ix}, Parse(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.Target+" "+v.Link.String())
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, d)
		}
	}
}

// TestSymptom: a task says a value is lost or wrong.
func TestSymptom(t *testing.T) {
	for text, want := range map[string]bool{
		"fix the missing artifact url after reload":                     true,
		"the link to the build output is gone after reloading the page": true,
		"ReportPath is not saved when a job completes":                  true,
		"Returns the file name of the archive":                          false,
		"add a --verbose flag to the index command":                     false,
	} {
		if got := Parse(text).Symptom(); got != want {
			t.Errorf("%q: Symptom() = %v", text, got)
		}
	}
}
