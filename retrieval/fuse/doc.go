// Package fuse answers "where is the code that handles X?": several
// candidate generators each rank chunks, and reciprocal-rank fusion merges
// their rankings into one list that explains itself.
//
// # Generators
//
//   - text: BM25 over chunks (package bm25) with the whole query, the
//     identifiers query understanding found boosted;
//   - file: BM25 over whole-file documents of the same text index;
//   - vector: cosine similarity of chunk embeddings to the query's;
//   - symbol: definitions named by identifiers in the query (exact, then
//     qualified), weighted by how the query mentions them;
//   - path: files the query names (those of a traceback's frames first,
//     innermost first), and the chunks that contain the lines of its
//     stack-trace frames;
//   - graph: callers and callees of the strongest fused hits;
//   - rank: centrality (PageRank) as a weak prior.
//
// # Fusion
//
// Reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): a
// chunk's score is the sum over generators g of w_g / (k + rank_g), k = 30.
// Weights are fixed per generator, tuned on a development set and checked
// by cross-validation (bench/retrieval/tune.py), never per repository. Each hit keeps its rank in every generator that found it
// and a one-line "why" naming the strongest evidence. The final order sorts
// chunks by fused score plus a share of their file's fused score, so that a
// file many generators agree on leads, with its best chunks first.
//
// # Cost
//
// The embedding scan and the whole-file BM25 run in goroutines beside the
// chunk BM25 (a search uses both cores); the graph generator reads its
// neighbours' definitions in one batch; everything else reads the store a
// query at a time. Scores compare rounded to 36 significant bits (package
// retrieval/internal/ties), so sums equal in exact arithmetic tie whatever
// order they were added in. Only the hits returned are explained (why,
// ranks); the rest are scored and ranked.
//
// # Load
//
// An Engine runs at most two searches per core at once (Engine.Slots,
// CAIRN_SEARCH_SLOTS); the others wait their turn, in arrival order. A
// search is CPU work with short waits on the store: past the cores, more
// at once only makes each take as long as all of them together, and the
// costliest drag on longest. Queued instead, sixteen clients on two cores
// got the same throughput and a 95th percentile half as long.
package fuse
