// Package vector keeps chunk embeddings and searches them.
//
// # Storage
//
// A generation's vectors live in segment files in the epoch directory, named
// by the store meta key vec.segments and committed with the facts in one
// transaction, like the text index's segments: a full run writes one base
// segment, an incremental run a small one with the chunks it (re)wrote;
// vectors of replaced chunks are dead (chunk ids are never reused) and
// dropped at query time; when more than MaxDeltas deltas pile up, the
// smallest ones are merged, as for the text index (package tier). A
// segment is
//
//	magic "CAIRNVEC1\n", dim uint32, count uint32, model (uint16 length + bytes)
//	count × { chunk id int64, scale float32, dim × int8 }
//
// little-endian: each vector quantised to int8 with its own scale, a quarter
// of float32's size, which is what exact search reads. A segment is mapped
// read-only and scanned in place (its ids and scales read once): a
// one-shot search on the Linux kernel no longer reads and copies a 121 MB
// file; the mapping is undone when the segment is unreachable.
//
// # Search
//
// Exact: the query's vector against every stored one, a top-k heap, 8-bit
// dot products over memory read once per process. On amd64 with AVX2 the
// products run 32 at a time (dot_amd64.s: |r|·(q with r's sign) summed in
// pairs by VPMADDUBSW, then VPMADDWD): 1.0 ms for mono1m's 75,000 chunks,
// 6.5× the Go loop (BenchmarkDot), checked against it at every length
// (TestDotSIMD, TestSIMDScanIsExact). Elsewhere the Go loop runs, bounded:
// once k
// candidates are held, a vector is first multiplied on its leading quarter
// of coordinates, then half: by Cauchy–Schwarz the rest can add at most
// the product of the two tails' norms (kept per vector), and a vector that
// cannot beat the k-th best even so is passed over. The embedders'
// coordinates come from a truncated SVD, strongest first, so the tails are
// short: on mono1m (75,000 chunks, 128 dimensions) the first quarter rules
// out about 60 % of the vectors and half of them 85 %, and a search costs
// some 3 ms instead of 5. The answer is the full scan's
// (TestBoundedScanIsExact). The norms, and contiguous copies of the
// leading coordinates, take about 14 ms to make on mono1m: a segment makes
// them at its second search, so a one-shot command does not pay for them. It stops being fine past roughly
// 300,000–500,000 chunks (tens of milliseconds per query, a hundred MB in
// memory), which is where an approximate index pays off; the PostgreSQL
// store has HNSW for that.
//
// # Models
//
// The meta keys vec.model and vec.modelfile record which embedder made the
// vectors (and, for the built-in one, the trained model file); a query is
// embedded with the same model, and a run with a different embedder rebuilds
// all vectors.
package vector
