// Package contextpack builds the spans a model should read for a task,
// within a token budget, each cited (path, lines, revision), with the
// reason it was admitted and a trust label.
//
// Candidates come from the fused search (retrieval/fuse) over the task
// text, from focus symbols or files, and from a diff's changed lines; the
// definitions found are expanded one step through the graph (callers,
// callees, implementations, tests) at a lower score — the search counts
// centrality and the graph's evidence in full for chunks here
// (fuse.Options.Roots; `cairn search` does not), since central roots reach
// more of what a change touches
// (without it fn_cov@16k on the dev set 0.818 → 0.798); search hits past the
// 60th (a large budget asks for more) rank after that expansion. An
// interface among the strongest hits brings the methods implementing each
// of its methods as well as the implementing types (a change to an
// interface is a change to its implementations), and an implementation in
// a test file (a fake) ranks at 0.7 of the code's own. A type's chunk is cut
// to its head, since its methods are candidates of their own; config and
// docs are admitted as such. A source file's head (before its first
// definition) is no definition: its imports are cut out, and what remains
// before them (a package doc, a module docstring) and after them (a
// constant) is admitted only when it says more than a package clause;
// imports enter a pack only as context of a whole-file item (a focus
// file, a small file taken whole).
//
// Values a task talks about come first: the search's value generator
// (fuse.GenValue; the engine links the task's words to fields, tags,
// columns and keys, query.LinkValues, and traces the strongest one or
// two within 400 ms, saying in Pack.Values what it traced, how each value
// was linked, and when a trace was cut) returns the functions on the
// values' paths — the gap, the write site, the persistence write, the
// read query, the mapper and the consumer (trace.Result.Evidence). They
// are admitted before the search's hits, each with its reason ("read
// path of Task.ArtifactURL: ToResponse drops it → gap"), within
// valueShare (35%) of the budget: whole files and whole items while they
// fit in the share, their signatures after, so that the rest of the budget
// stays the search's.
//
// Packing merges overlapping and adjacent candidates of a file, ranks them
// by score, and fills the budget in that order. A file's strongest
// candidate brings the whole file (after its license notice, imports
// included) when the file costs at most a quarter of the budget — past
// the full share below, a 16th: a Go file of a few hundred lines holds the
// type, its constructor and the methods a fix touches together, and one
// item's citation is cheaper than several (an item's citation and reason
// cost about 100 tokens in JSON; on the dev set whole files took context
// recall at 16k from 0.722 to 0.788, bench/context). A candidate a few lines from
// an item already picked joins it (in JSON an item's citation and reason
// cost about as many tokens as ten lines of code); a span that opens its
// file starts after the license notice; an item that does not fit in full
// degrades to its signature — the whole declaration head with its
// decorators or annotations, however many lines its parameters, defaults
// and results take, up to where its brackets close and its body opens
// (Python's colon, "{") or the declaration ends (";": an overload, an
// interface's method); a head whose brackets never close is the
// definition whole, never cut — and its doc's summary (first paragraph,
// four lines at most) before it is dropped. Overloads share a symbol ID
// (Python's `@overload` stubs, TypeScript's overload declarations): a
// chunk's head and doc are those of the definition whose name lies in the
// chunk, not the first of the ID's (which cut the later overloads to
// `def to_netcdf(`). What
// is dropped is listed (capped) with why. Whole items fill at most a share of
// the budget (Request.FullShare, half by default; the three strongest come
// whole when they fit); past it, candidates with a signature come as that,
// so the pack reaches further down the ranking; room still left once every
// candidate had its turn gives the strongest of those signatures their
// bodies back (at 16k the packs had left about 570 tokens unspent; now
// about 180). Ordering by score per token was
// measured and covers less of what an issue changes (bench/context). Items are then ordered
// for reading: grouped by file, definitions before their uses. Tokens are
// counted with a real BPE tokenizer (cl100k, offline: the encoding's ranks
// from tiktoken-go's offline loader, its pre-tokenizing pattern written out
// as code in cl100k.go, exact against tiktoken-go and several times faster
// than its regular-expression engine; o200k through tiktoken-go) on the rendered
// output — the JSON or Markdown actually returned — and used_tokens is
// settled to a fixed point, so it never exceeds the budget; when not even
// the frame of an empty pack fits, ErrBudgetTooSmall says so. The task is
// echoed (untrusted) so a reader can tell what the pack answers, in at most
// a 32nd of the budget: the reader has the task, the budget is for code.
// A packed file with generated files made with it (fuse.Engine.GeneratedWith:
// skipped by the index) has them named after the items — a change to the
// file usually regenerates them — and the names are counted like the rest.
//
// Content is read from the worktree through Builder.Files, the repository
// boundary (internal/repofs: nothing outside the root, in .git or behind a
// link out is read): a file whose content no longer matches its indexed
// hash is marked stale. Text that is not code (comments, docs, strings)
// carries the "untrusted-text" label, and secrets (keys, tokens, private
// keys, passwords in assignments) are redacted (internal/redact) before
// anything is counted or returned.
//
// # Files
//
// pack.go holds the request, the pack and the Builder, and the packing of
// ranked candidates into the budget; candidates.go finds the candidates
// (search, focus, diff, the graph's expansion); source.go reads and cuts
// source text (spans, license notices, heads, signatures, docs, untrusted
// lines); render.go renders a pack as JSON or Markdown.
package contextpack
