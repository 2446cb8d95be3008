// Package tier picks which delta segments of a side index to merge.
//
// The text index (package bm25) and the vectors (package vector) both keep
// a generation as a base segment plus deltas, one per incremental run. When
// more than max deltas pile up, the smallest ones are merged into one — as
// many as bring the count down to half of max, so that a watcher's
// generations pay for a merge every few batches rather than on every one
// (each merge has a fixed cost: a new segment written and synced) — but only
// deltas of a like size: one bigger than twice the sum of those already
// taken stops the pick, and a smallest delta with nothing of its size
// waits for more. A watcher's single-file deltas thus merge among
// themselves, and a big delta — a checkout that re-indexed a thousand files
// — is left alone until the small ones have grown to its size: no
// generation rewrites (and re-checks) a big delta because small ones came
// after it. Past 3×max deltas the smallest merge regardless of size.
//
// Segments need not be adjacent to merge: documents and vectors are keyed by
// chunk ids, which are never reused, and dead ones are told apart through
// the store, so the order of segments carries nothing.
package tier
