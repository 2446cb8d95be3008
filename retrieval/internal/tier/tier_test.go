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
		// big deltas of earlier checkouts between the small ones: only the
		// small ones merge, though fewer than would leave four deltas
		{[]int64{100, 2, 100, 1, 100, 3, 100, 4, 99}, 8, []int{1, 3, 5, 7}},
		// a delta of their order of size merges with the small ones
		{[]int64{100, 10, 4, 4, 4, 4, 100, 100, 100}, 8, []int{1, 2, 3, 4, 5}},
		// one small delta among big ones of a like size (checkouts): no
		// merge sweeps the big ones in for its sake
		{[]int64{100, 100, 100, 100, 100, 100, 100, 5, 100}, 8, nil},
		// far past the limit: the smallest, whatever their sizes
		{[]int64{1000, 1, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, 4, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	} {
		if got := Pick(c.sizes, c.max); !slices.Equal(got, c.want) {
			t.Errorf("Pick(%v, %d) = %v, want %v", c.sizes, c.max, got, c.want)
		}
	}
}
