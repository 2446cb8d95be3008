package tier

import (
	"slices"
	"testing"
)

func TestPick(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		max   int
		want  []int
	}{
		{[]int64{1, 1, 1}, 8, nil},
		// a watcher's edits: the six small ones merge, four deltas stay
		{[]int64{100, 1, 1, 1, 1, 1, 1, 1, 1}, 8, []int{3, 4, 5, 6, 7, 8}},
		// a checkout's big delta arrives last: small ones merge, not it
		{[]int64{100, 1, 1, 1, 1, 1, 1, 1, 90}, 8, []int{2, 3, 4, 5, 6, 7}},
		// smalls between big ones (earlier merges left them there) still
		// merge among themselves, with the smallest big ones
		{[]int64{100, 2, 100, 1, 100, 3, 100, 4, 99}, 8, []int{1, 3, 5, 6, 7, 8}},
		// max 2 leaves one delta: all of them merge
		{[]int64{5, 5, 5, 5, 100, 1, 1}, 2, []int{0, 1, 2, 3, 4, 5, 6}},
	} {
		if got := Pick(c.sizes, c.max); !slices.Equal(got, c.want) {
			t.Errorf("Pick(%v, %d) = %v, want %v", c.sizes, c.max, got, c.want)
		}
	}
}
