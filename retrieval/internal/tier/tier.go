// Package tier picks which delta segments of a side index to merge.
//
// The text index (package bm25) and the vectors (package vector) both keep
// a generation as a base segment plus deltas, one per incremental run. When
// more than max deltas pile up, some adjacent ones are merged into one. The
// run to merge is the cheapest one that brings the count back to max: the
// window of adjacent deltas with the fewest bytes. A watcher's single-file
// deltas thus merge among themselves, and a big delta — a checkout that
// re-indexed a thousand files, often the newest segment when the merge is
// due — is left alone until the small ones have grown to its size: no
// generation rewrites a big delta because a small one came after it.
package tier

// Window returns the half-open range [from, to) of deltas to merge, given
// the deltas' sizes in order (oldest first); from == to when there are no
// more than max. The range always spans len(sizes)-max+1 deltas.
func Window(sizes []int64, max int) (from, to int) {
	if max < 1 {
		max = 1
	}
	if len(sizes) <= max {
		return 0, 0
	}
	w := len(sizes) - max + 1
	var sum int64
	for _, s := range sizes[:w] {
		sum += s
	}
	best, bestFrom := sum, 0
	for i := w; i < len(sizes); i++ {
		sum += sizes[i] - sizes[i-w]
		if sum <= best { // ties: the newer window, whose segments are younger
			best, bestFrom = sum, i-w+1
		}
	}
	return bestFrom, bestFrom + w
}
