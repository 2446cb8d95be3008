// Package tokens splits code and prose into the terms cairn searches by:
// identifiers whole and in parts (camelCase, PascalCase, snake_case,
// kebab-case and digit runs), lower-cased, with the stemming and stop words
// that suit natural-language text. Text search, the built-in embedder and
// query understanding share it, so a query term and an indexed term always
// come out of the same function.
//
// A word is of one script: Chinese and Japanese text has no spaces between
// its words, and issues written in it put identifiers against it
// ("调用status.FromError时返回的错误码不对"); such an identifier is a word
// of its own, as it is in English, and a run of Han or kana is indexed as
// its overlapping pairs of characters (时返, 返回, 回的 …), the dictionary-free
// analysis search engines use for these scripts, so a query and a comment
// meet on the words they share. Hangul, which has spaces, is cut from Latin
// letters and kept whole. Before, such a query was one unknown term to the
// text search and none at all to the embedder (TestChineseIssue in
// retrieval/fuse).
//
// Indexing runs it over every chunk and file several times (BM25's fields,
// the embedder's training and vectors), and source repeats its identifiers,
// so Code and Text keep what each spelling turns into in a bounded cache
// (8,192 spellings per cache, a few caches taken without waiting by
// concurrent callers). On 32 MB of mono1m's sources (BenchmarkCode and
// BenchmarkText with CAIRN_TOKENS_CORPUS) Code went from ~0.7 to ~0.42 s
// and Text from ~2.2 to ~0.6 s, the stemmer being what prose paid for; in
// a profile of mono1m's cold index all tokenization went from 14.1 to
// 7.5 s CPU. The cached and uncached tokens are compared on real sources in
// TestCacheMatchesUncached.
package tokens
