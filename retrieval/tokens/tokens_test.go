package tokens

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func terms(f func([]byte, func(Token)), s string) string {
	var out []string
	f([]byte(s), func(t Token) {
		if t.Part {
			out = append(out, "+"+t.Term)
		} else {
			out = append(out, t.Term)
		}
	})
	return strings.Join(out, " ")
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"getUserName", "get User Name"},
		{"HTTPServer", "HTTP Server"},
		{"parseHTTPRequest2xx", "parse HTTP Request 2 xx"},
		{"snake_case_name", "snake case name"},
		{"__init__", "init"},
		{"kebab-case", "kebab case"},
		{"UTF8Decoder", "UTF 8 Decoder"},
		{"already", "already"},
		{"ÜberClass", "Über Class"},
		{"$scope", "scope"},
	} {
		var got []string
		Split(tc.in, func(p string, _ int) { got = append(got, p) })
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("Split(%q) = %q, want %q", tc.in, g, tc.want)
		}
	}
}

func TestCodeAndText(t *testing.T) {
	if got, want := terms(Code, "s.getUserName(ctx)"), "s getusername +get +user +name ctx"; got != want {
		t.Errorf("Code = %q, want %q", got, want)
	}
	// prose: stop words out, stems in, identifiers still split
	if got, want := terms(Text, "Refreshing the page drops the artifact_url"), "refresh page drop artifact_url +artifact +url"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	// offsets point into the input
	var toks []Token
	Code([]byte("a fooBar"), func(t Token) { toks = append(toks, t) })
	want := []Token{{"a", 0, 1, false}, {"foobar", 2, 8, false}, {"foo", 2, 5, true}, {"bar", 5, 8, true}}
	if diff := cmp.Diff(want, toks); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
}
