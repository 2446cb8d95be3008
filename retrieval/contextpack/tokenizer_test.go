package contextpack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Counting line by line (with the cache) gives exactly the count of the
// whole text, on real sources, renderings and awkward whitespace.
func TestCountPiecewiseIsExact(t *testing.T) {
	tok, err := NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	bt := tok.(*bpeTokenizer)
	whole := func(s string) int { return len(bt.enc.EncodeOrdinary(s)) }
	texts := []string{
		"", "\n", "\n\n\n", "a\n\nb", "  \n  x\n\t\ty\r\n\r\nz", "},\n{\"path\":\"a.go\"}\n",
		"func f() {\n\treturn\n}\n\n\n// done\n", "x = 1  \n   \n    y", "emoji 😀\nnext\n\n",
		"<|endoftext|>\nfoo", "'s\n're\n\n'll", "1234567\n890\n",
	}
	for _, dir := range []string{".", "../fuse", "../../graph"} {
		ms, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	for i, s := range texts {
		if got, want := tok.Count(s), whole(s); got != want {
			t.Errorf("text %d (%q…): piecewise %d, whole %d", i, s[:min(len(s), 40)], got, want)
		}
		// again, from the cache
		if got, want := tok.Count(s), whole(s); got != want {
			t.Errorf("text %d cached: %d, whole %d", i, got, want)
		}
	}
	big := strings.Repeat("{\"path\":\"x.go\",\"content\":\"a\\nb\"},\n", 300)
	if tok.Count(big) != whole(big) {
		t.Errorf("rendering")
	}
}
