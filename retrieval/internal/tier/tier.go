package tier

import (
	"cmp"
	"slices"
)

// Pick returns the indexes, in ascending order, of the deltas to merge,
// given their sizes (oldest first): none when there are no more than max.
func Pick(sizes []int64, max int) []int {
	if max < 2 {
		max = 2
	}
	if len(sizes) <= max {
		return nil
	}
	idx := make([]int, len(sizes))
	for i := range idx {
		idx[i] = i
	}
	// smallest first; of equal sizes, the newer
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(sizes[a], sizes[b]), cmp.Compare(b, a))
	})
	want := len(sizes) - max/2 + 1 // leaves max/2 deltas
	n, sum := 1, sizes[idx[0]]
	for n < want && sizes[idx[n]] <= 2*sum {
		sum += sizes[idx[n]]
		n++
	}
	switch {
	case len(sizes) > 3*max:
		n = want
	case n < 2:
		return nil // nothing of a like size to merge with: wait for more
	}
	pick := slices.Clone(idx[:n])
	slices.Sort(pick)
	return pick
}

// Replace returns segs with the merged segments replaced by the one they
// became, at the place of the last of them.
func Replace(segs, merged []string, into string) []string {
	last := merged[len(merged)-1]
	var out []string
	for _, s := range segs {
		switch {
		case s == last:
			out = append(out, into)
		case !slices.Contains(merged, s):
			out = append(out, s)
		}
	}
	return out
}
