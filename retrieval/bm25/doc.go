// Package bm25 is cairn's text index: BM25 over chunks with bleve
// (github.com/blevesearch/bleve/v2), with a code-aware analysis.
//
// # Documents and fields
//
// One document per chunk (function, method, type, or the rest of a file),
// its id the chunk's store id. Fields, weighted at query time:
//
//	name  the chunk's qualified symbol name or file name   ×3
//	path  the file path, split at separators and case      ×1.5
//	sig   the declaration head                             ×1.5
//	doc   the doc comment, as English (stemmed, stop words) ×1
//	body  the chunk's code                                 ×1
//
// The analyzers come from package tokens: an identifier is indexed whole
// and in parts (getUserName → getusername, get, user, name), lower-cased;
// prose is additionally stemmed with Porter's algorithm and stripped of stop
// words.
//
// A query's words are analysed as both: as code for name, path, sig and
// body, as English for doc. Question words (where, why, whose, whom,
// whether; tokens.Stop holds what, when, which, who and how) are no terms
// of either: "where is …" asks no question about a method Where.
//
// A file's document (ftext) is its chunks' bodies joined by newlines; each
// chunk is tokenised once for both (shared.go: the first of the file's
// documents bleve's analysis workers reach counts the terms of every
// chunk, and the file's frequencies are their sums), which took the cold
// index of mono1m from 56.9 to 53.4 s CPU with the same postings
// (bench/index/RESULTS.md).
//
// # Scoring
//
// bleve stores the postings; cairn scores them. A query is a disjunction
// of (field, term, weight) clauses, scored with bleve's BM25 model — its
// statistics, formula and coord factor, so that rankings are the ones
// bleve's own disjunction gave (TestSameAsBleve checks it on real code) —
// but term at a time: each clause's postings are read once into a dense
// array of scores by document number, and a running k-th best score keeps
// the candidates few. bleve's searcher merges every clause's postings
// document by document through a heap and allocates a match per document
// and clause. On mono1m the text generators (chunks and whole files)
// took 16.8 ms p50 that way and take 5.5 ms with the scorer; one fused
// search, 24 → 18 ms p50 (bench/retrieval/RESULTS.md, paired runs of
// bench/postgres/load). The postings are walked segment by segment
// through scorch's segment API (score.go, postings), not the snapshot's
// term field reader, which makes a document of every posting for the
// scorer to decode again: on 200 issue-shaped queries over mono1m the
// scorer's CPU fell from 5.0 to 3.8 s, the whole searches' from 9.2 to
// 7.7 s, with the same rankings. Scores are compared to 36 bits (package
// ties) and ties go to the lower id, so the order of a floating-point sum
// never decides a ranking.
//
// A field's "average length" is bleve's statistic: the field's terms
// (dictionary cardinality summed over segments) per document, not its
// tokens per document — 3 for bodies on grpc-go, where a chunk averages
// 115 tokens. The length term then dominates, a strong normalisation by a
// document's length, and it finds code better on the dev set than true
// averages do (Acc@1 0.559 against 0.516–0.527, fn Acc@10 0.620 against
// 0.543–0.598; bench/retrieval/RESULTS.md). It moves a little with how
// documents fall into segments.
//
// # Common terms
//
// In a large index a query term that more than a fifth of the chunk
// documents hold (a quarter of the file documents, and at least 500) does
// not select candidates: documents are found and scored by the query's
// other terms. It is MaxScore's observation (Turtle and Flood, 1995) — such a
// term weighs too little to lift a document into the top on its own — used
// to skip its postings, which were most of an issue-sized query's work.
// Each segment records its number of file documents (an internal key), so
// that a term's share is of the right kind of document; small indexes are
// searched with every term.
//
// # A name
//
// A query that is one identifier of several parts (Query.Name: fuse's
// identifier search) asks where that name is. The name is searched whole
// in every field, in its own spelling and in the other conventions'
// (ListenAndServe also as listen_and_serve, new_range_query also as
// newrangequery: camelCase, PascalCase and snake_case index the same
// parts differently whole), and its parts in a chunk's name, path,
// signature and doc and in a file's path, but not in a body or a file's
// text. A body holding "listen" and "serve" but not the name is not about
// it, and the bodies' postings, nearly all of them the parts' (common
// words), were 54 % of those an identifier search read on mono1m. 200
// sampled names from an open engine (bench/retrieval/latency): CPU per
// search 4.9–5.5 → 4.5–4.7 ms; the first hit is the same for 191 of 198
// names and another definition of the name for the rest; 90 % of the top
// 20 are the same hits. Documents holding the name whole (in any field and
// spelling) rank before those holding only parts, by WholeName added to
// their score: in BM25 alone a part in a name field (serve, ×3) outscored
// the name in a body, and on mono1m the three files that call
// ListenAndServe were not among its top 20 hits.
//
// # Segments
//
// A generation's text index is a list of bleve indexes (segments) in the
// epoch directory, committed through the store's meta key bm25.segments in
// the same transaction as the facts. A full run writes one base segment; an
// incremental run writes a small segment with the chunks it (re)wrote. A
// document of an older segment whose chunk was replaced is dead: chunk ids
// are never reused, and readers drop hits whose chunk is no longer in the
// store. Segments are written once and then only read, so readers in other
// processes open them read-only (shared locks) while the next generation is
// built: no reader ever waits for a writer. Segments are searched together:
// document counts, field statistics and a term's document frequency are
// summed over them. When
// more than MaxDeltas incremental segments pile up, the next run merges the
// smallest ones (delta segments store their fields for that purpose) into
// one, leaving out dead documents; package tier says which, so that a
// checkout's big delta is not rewritten for every small one.
package bm25
