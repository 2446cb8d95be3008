package tier

import "testing"

func TestWindow(t *testing.T) {
	for _, c := range []struct {
		sizes    []int64
		max      int
		from, to int
	}{
		{[]int64{1, 1, 1}, 8, 0, 0},
		// a watcher's edits: the two newest smalls merge
		{[]int64{100, 1, 1, 1, 1, 1, 1, 1, 1}, 8, 7, 9},
		// a checkout's big delta arrives last: small ones merge, not it
		{[]int64{100, 1, 1, 1, 1, 1, 1, 1, 90}, 8, 6, 8},
		// two bigger deltas before: still the smallest pair
		{[]int64{100, 60, 50, 1, 1, 1, 1, 1, 1}, 8, 7, 9},
		// far over the limit: the cheapest long run
		{[]int64{5, 5, 5, 5, 100, 1, 1}, 2, 1, 7},
	} {
		from, to := Window(c.sizes, c.max)
		if from != c.from || to != c.to {
			t.Errorf("Window(%v, %d) = %d, %d; want %d, %d", c.sizes, c.max, from, to, c.from, c.to)
		}
		if to > from && to-from != len(c.sizes)-c.max+1 {
			t.Errorf("Window(%v, %d) spans %d", c.sizes, c.max, to-from)
		}
	}
}
