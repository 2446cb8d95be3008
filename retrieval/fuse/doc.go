// Package fuse answers "where is the code that handles X?": several
// candidate generators each rank chunks, and reciprocal-rank fusion merges
// their rankings into one list that explains itself.
//
// # Generators
//
//   - text: BM25 over chunks (package bm25) with the whole query, the
//     identifiers query understanding found boosted;
//   - file: BM25 over whole-file documents of the same text index;
//   - title: the same two BM25 searches with an issue's first line alone,
//     its shortest statement of the problem, whose words a long body would
//     otherwise outweigh (absent for a one-line query);
//   - vector: cosine similarity of chunk embeddings to the query's;
//   - symbol: definitions named by identifiers in the query (exact, then
//     qualified; a name matching only when case is ignored ranks below
//     the exact ones, but for the names the query spells for a flag or a
//     configuration key — "--max-conn-idle" as maxConnIdle, whose case the
//     text never said, so MaxConnIdle is no worse a match; query.Ident's
//     Spelled), weighted by how the query mentions them;
//   - path: the definition a signature error names first (Python's
//     "TypeError: RST.__init__() got an unexpected keyword argument": the
//     traceback ends in the caller, the callee's definition is what does
//     not accept the call), then files the query names (those of a
//     traceback's frames first,
//     innermost first, then those it links to on a code host, then the
//     others), and the chunks that contain the lines of its stack-trace
//     frames and of its links (github.com/o/r/blob/REV/x.py#L10: the
//     longest tail of REV/x.py that is an indexed path is the file);
//   - message: the chunks that write an error message the query quotes
//     (message.go): the message is cut at what looks like formatted values,
//     its pieces searched by BM25 and checked verbatim against the files
//     the search finds, longest run of words first; and the places in code
//     that hold a literal the query quotes (a flag such as --collect-only,
//     an expression such as follow_symlinks=False), when at most five code
//     files hold it (on the dev set: Acc@5 0.882 → 0.892, context fn_cov
//     at 16k 0.798 → 0.803; bench/retrieval/RESULTS.md);
//   - history: the files that the past commits most like the query
//     changed (package history: BM25 over commit messages, the 30 best
//     voting for their files, shared by how many files each changed),
//     when the generation has a history index; a file-level generator
//     whose score ranks files but is not inherited by their chunks, since
//     it says which files a change touches and nothing of which of their
//     functions (inherited, it cost two tasks their gold function in the
//     first ten on the dev set). Before those files come the files of the
//     changes the query names by hash or number (query.Refs,
//     history.Index.Named: "PR #3165 is likely the culprit"), a change's
//     files tied, since that it changed them says no more of one than of
//     another, and none of a change of more than ten files (a sweep;
//     Result.Named still lists it); and, the one place the generator
//     ranks chunks, the definitions that still hold lines such a change
//     added (git diff at search time: a regression's fix usually changes
//     what the culprit wrote);
//   - unwritten: when the query names a type and one of its fields
//     ("WireLength is not set on the stats.InPayload …"), the functions
//     that use the type without writing the field (unwritten.go) — where
//     such a bug is fixed, and what neither the field's writers nor the
//     issue's words point at; the type's own methods and tests left out.
//     On the dev set it runs for one task of 93 and takes that task's
//     file into the first five (bench/retrieval/RESULTS.md);
//   - change: when the query asks to rename, deprecate, export or
//     unexport a name (query.Parsed.Changes: "Consider export
//     withContextDialer and deprecate WithDialer"), the name's definitions
//     and then the code that uses it — the engine's references, tests left
//     out, a file at a time — and those files as files (change.go). A
//     change to a name's API is made wherever it is used, and those places
//     are what the words do not name; a library's qualified name
//     ("fix deprecated reflect.PtrTo usage") is followed to the uses
//     selected from that qualifier. On 74 commits of 16 repositories that
//     rename, deprecate, export or unexport a name (commit_tasks.py
//     --kind change) it gains the most of any generator: Acc@5 0.716 →
//     0.811, fn Acc@10 0.419 → 0.554 (BM25 over whole files: 0.730,
//     0.595). Weight 1, chosen on that set by cross-validation. Of the 274
//     tasks of the dev set and four Go fix sets it runs for two and
//     changes the ranking of one: grpc-go 2629, whose five files it takes
//     into the first five and seven functions into the first ten
//     (bench/retrieval/RESULTS.md);
//   - graph: callers and callees of the strongest fused hits; a chunk's
//     own score counts 0.6 of its weight (graphChunks: a neighbour of what
//     a task is about is seldom what a fix changes), a file's all of it;
//   - rank: centrality (PageRank) as a weak prior on files: it ranks the
//     candidates, and each file's best ranked chunk counts for the file,
//     but not for the chunk itself (chunkWeight), so that a central
//     file's small accessors do not outrank the function a task is about;
//     a context pack, whose strongest hits are the roots of its graph
//     expansion, counts it for chunks too (Options.Roots).
//
// Each can run alone (Options.Only), so that its value is measured, not
// assumed (bench/retrieval/run.sh).
//
// # Identifier search
//
// A query that is one name ("get", "Clob", "Server.Start", query.Parsed's
// Identifier) asks where that name is: its definitions (when at most 12
// share it) rank first, and their files first, whatever the fused evidence
// says; then the text that holds the name. Embeddings, the graph, titles,
// messages and history do not run — for a bare name they found look-alikes
// (on mono1m, 200 sampled names: the first hit defined the name 120 times
// with them, 159 without them and with the definitions first; the names
// defined once came first 46 and 69 times of 70) — and BM25 ranks 100
// chunks and 50 files, not 300 and 100, looking for the name's parts in
// names, paths, signatures and docs but not in bodies (package bm25, "A
// name"). After the definitions come the chunks and files that hold the
// name whole — its uses ("holds NAME" says so) — and only then what holds
// its parts or shares a file: on mono1m the uses of ListenAndServe were
// below nine chunks of its definition's file that do not mention it. From an open engine that is p50 3.2–3.5 ms instead of 11–19 ms
// on mono1m, and a one-shot search never loads the embedding model
// (bench/retrieval/RESULTS.md, bench/index).
//
// # Fusion
//
// Reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): a
// chunk's score is the sum over generators g of w_g / (k + rank_g), k = 30.
// Weights are fixed per generator, tuned on a development set and checked
// by cross-validation (bench/retrieval/tune.py), never per repository.
// Each hit keeps its rank in every generator that found it
// and a one-line "why" naming the strongest evidence. The final order sorts
// chunks by fused score plus a share of their file's fused score (history
// left out), so that a file many generators agree on leads, with its best
// chunks first. In a search's answer a function's own score is scaled by
// its length in lines to the power 0.25 (lengthPrior): a fix more often
// changes the long function that does the work than the type or short
// wrapper whose name holds the task's words; not for identifier search,
// a context pack (which pays for length in tokens) or Options.Only. On
// the dev set and three sets of Go fix commits it raised fn Acc@10 on
// every set (bench/retrieval/RESULTS.md).
//
// A file hit names the generated files made with it (Engine.GeneratedWith:
// the walker skips generated files and records them; in the file's
// directory, its name extended after "_", "." or "-"). They are named, not
// ranked: ranked right after their source they took places hand-written
// files needed.
//
// Some files answer questions about behaviour less often than the code
// does, and their scores are scaled down, all else being equal: tests
// (×0.4), files that are not source code (×0.3), and copies of other
// projects kept in the repository (×0.5): under vendor/, third_party/,
// extern/ and the like, or a Python package named "packages" inside
// another package (requests/packages/urllib3). An issue about a
// dependency's exception is fixed where the project uses it. These are the
// file categories the indexer decided and stored (graph.FileCategory, the
// rules in package indexer/walk); search reads them, and never re-derives
// them from a path.
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
// # Stores
//
// Open runs an Engine over a Source — one generation's facts and the
// directory of its side indexes, from either store (graph/store) — and
// never names a concrete store. Vector search scans the generation's
// vectors, or goes to a store's own ANN index (the shared store's HNSW
// index in PostgreSQL) past ANNThreshold vectors or as OpenOptions.ANN says.
//
// # Files
//
// engine.go holds the Engine and what it reads once per generation (its
// files, their categories, the generated files); fuse.go a search's state,
// the weights and the fusion of the generators' rankings into the answer;
// generators.go the generators text, file, title, vector, symbol, path,
// graph and rank; history.go the history generator and the changes a
// query names; message.go, unwritten.go, change.go and value.go one
// generator each (value.go's, GenValue, ranks the functions on the paths
// of the values the query talks about, which Engine.Values — the engine's
// linking and tracing, bounded in time — finds beside the other
// generators; its weight, 0.4, is chosen, not tuned: see valueWeight);
// open.go opens an Engine over a store's generation.
//
// # Load
//
// An Engine runs at most two searches per core at once (Engine.Slots, which
// cmd/cairn sets from CAIRN_SEARCH_SLOTS); the others wait their turn, in arrival order. A
// search is CPU work with short waits on the store: past the cores, more
// at once only makes each take as long as all of them together, and the
// costliest drag on longest. Queued instead, sixteen clients on two cores
// got the same throughput and a 95th percentile half as long.
package fuse
