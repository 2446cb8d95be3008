// Package tier picks which delta segments of a side index to merge.
//
// The text index (package bm25) and the vectors (package vector) both keep
// a generation as a base segment plus deltas, one per incremental run. When
// more than max deltas pile up, some of them are merged into one: the
// smallest ones, as many as bring the count down to half of max, so that a
// watcher's generations pay for a merge every few batches rather than on
// every one once the limit is reached (each merge has a fixed cost: a new
// segment written and synced). A watcher's
// single-file deltas thus merge among themselves, and a big delta — a
// checkout that re-indexed a thousand files, often the newest segment when
// the merge is due — is left alone until the small ones have grown to its
// size: no generation rewrites (and re-checks) a big delta because a small
// one came after it. Segments need not be adjacent to merge: documents and
// vectors are keyed by chunk ids, which are never reused, and dead ones are
// told apart through the store, so the order of segments carries nothing.
package tier

import (
	"cmp"
	"slices"
)

// Pick returns the indexes, in ascending order, of the deltas to merge,
// given their sizes (oldest first): none when there are no more than max,
// else the len(sizes)-max/2+1 smallest (of equal sizes, the newer), which
// leave max/2 deltas.
func Pick(sizes []int64, max int) []int {
	if max < 1 {
		max = 1
	}
	if len(sizes) <= max {
		return nil
	}
	idx := make([]int, len(sizes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(sizes[a], sizes[b]), cmp.Compare(b, a))
	})
	pick := idx[:len(sizes)-max/2+1]
	slices.Sort(pick)
	return pick
}
