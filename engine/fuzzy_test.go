package engine

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/tokens"
)

func TestNameWords(t *testing.T) {
	for name, want := range map[string][]string{
		"getUserName":           {"get", "user", "name"},
		"full_dispatch_request": {"full", "dispatch", "request"},
		"HTTPServer":            {"http", "server"},
		"parseV2Header":         {"parse", "v", "2", "header"},
		"_private":              {"private"},
	} {
		if got := tokens.NameWords(name); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestFuzzyTier(t *testing.T) {
	for _, c := range []struct {
		q, name string
		tier    int
		ok      bool
	}{
		{"Serve", "Serve", tierExact, true},
		{"serve", "Serve", tierExactFold, true},
		{"send_from", "send_from_directory", tierPrefix, true},
		{"sendfrom", "send_from_directory", tierPrefix, true},
		{"fulldisp", "full_dispatch_request", tierPrefix, true},
		{"fdr", "full_dispatch_request", tierHumps, true},
		{"fuldisreq", "full_dispatch_request", tierHumps, true},
		{"gUN", "getUserName", tierHumps, true},
		{"gun", "getUserName", tierHumps, true},
		{"usrnm", "getUserName", tierSubsequence, true},
		{"zz", "getUserName", 0, false},
		{"nameuser", "getUserName", 0, false},
	} {
		n := prepare(c.name)
		tier, ok := fuzzyTier(c.q, squash(c.q), &n)
		if ok != c.ok || ok && tier != c.tier {
			t.Errorf("fuzzyTier(%q, %q) = %d, %v; want %d, %v", c.q, c.name, tier, ok, c.tier, c.ok)
		}
	}
}
