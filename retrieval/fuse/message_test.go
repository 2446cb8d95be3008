package fuse

import (
	"slices"
	"testing"
)

// TestMessagePieces: an error line is cut at what looks like formatted
// values, keeping the fixed pieces of two words and more; of a piece, the
// runs of three words and more are tried, longest first.
func TestMessagePieces(t *testing.T) {
	for line, want := range map[string][]string{
		"ValueError: Unrecognized QDP line: read serr 1 2":                 {"Unrecognized QDP line: read serr"},
		"AttributeError: 'custom_coord' object has no attribute 'prop'":    {"object has no attribute"},
		"TypeError: None is not a valid Unit":                              {"None is not a valid Unit"},
		"error: [Errno 104] Connection reset by peer":                      {"Connection reset by peer"},
		`KeyError: "['1'] not in index"`:                                   nil,
		"panic: jobq: no handler for job kind \"mail\" (after 3 attempts)": {"jobq: no handler for job kind", "after"},
	} {
		got := messagePieces(line)
		// "after" is one word: not a piece
		want = slices.DeleteFunc(want, func(s string) bool { return s == "after" })
		if !slices.Equal(got, want) {
			t.Errorf("messagePieces(%q) = %q, want %q", line, got, want)
		}
	}
	if got, want := windows("Right contains more items, first extra item"), []string{
		"Right contains more items, first extra item",
		"Right contains more items, first extra", "contains more items, first extra item",
		"Right contains more items, first", "contains more items, first extra", "more items, first extra item",
		"Right contains more items", "contains more items, first", "more items, first extra", "items, first extra item",
		"Right contains more", "contains more items", "more items, first", "items, first extra", "first extra item",
	}; !slices.Equal(got, want) {
		t.Errorf("windows:\n got %q\nwant %q", got, want)
	}
}
