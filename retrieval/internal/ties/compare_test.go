package ties

import (
	"math"
	"testing"
)

// TestCompare: sums equal in exact arithmetic tie; scores that
// differ in the ninth digit do not; order is kept across magnitudes.
func TestCompare(t *testing.T) {
	cases := []struct {
		a, b float64
		want int
	}{
		{0.1 + 0.2, 0.3, 0},
		{1.0/61 + 1.0/62 + 1.0/63, 1.0/63 + 1.0/61 + 1.0/62, 0},
		{1, 1 + 1e-9, -1},
		{2e-5, 1e-5, 1},
		{0.75, 0.5, 1},
		{0, 1e-300, -1},
		{math.Inf(1), 1e300, 1},
	}
	for _, c := range cases {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
