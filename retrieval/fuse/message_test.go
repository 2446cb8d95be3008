package fuse

import (
	"slices"
	"testing"
)

// TestMessagePieces: an error line is cut at what looks like formatted
// values, keeping the fixed pieces of two words and more; a piece shortens
// from its end.
func TestMessagePieces(t *testing.T) {
	for line, want := range map[string][]string{
		"ValueError: Unrecognized QDP line: read serr 1 2":                  {"Unrecognized QDP line: read serr"},
		"AttributeError: 'custom_coord' object has no attribute 'prop'":     {"object has no attribute"},
		"TypeError: None is not a valid Unit":                               {"None is not a valid Unit"},
		"error: [Errno 104] Connection reset by peer":                       {"Connection reset by peer"},
		`KeyError: "['1'] not in index"`:                                    nil,
		"panic: jobq: no handler for job kind \"mail\" (after 3 attempts)": {"jobq: no handler for job kind", "after"},
	} {
		got := messagePieces(line)
		// "after" is one word: not a piece
		want = slices.DeleteFunc(want, func(s string) bool { return s == "after" })
		if !slices.Equal(got, want) {
			t.Errorf("messagePieces(%q) = %q, want %q", line, got, want)
		}
	}
	var chain []string
	for p := "Unrecognized QDP line: read serr"; p != ""; p = shorter(p) {
		chain = append(chain, p)
	}
	if want := []string{"Unrecognized QDP line: read serr", "Unrecognized QDP line: read", "Unrecognized QDP line", "Unrecognized QDP"}; !slices.Equal(chain, want) {
		t.Errorf("shortening: %q, want %q", chain, want)
	}
}
