// Package history indexes a repository's commit history so that search
// can find the past changes most like a task and the files they changed:
// mature code-intelligence systems build context from similar historical
// changes beside symbols and call graphs, and a fix often touches the files
// an earlier fix of the same area touched together.
//
// # What is stored
//
// A Builder (a side-index sink of the indexer) reads `git log` from the
// indexed worktree's HEAD (internal/gitrepo.Log): merges left out, renames as
// a deletion and an addition, paths relative to the indexed root. At most
// Options.MaxCommits commits are kept, newest first (5,000 by default;
// `cairn index --history N`, CAIRN_HISTORY), and a commit that changed more
// than Options.MaxFiles files (100) is left out: a bulk rename or a
// vendored update says nothing about which files go together. Each commit
// keeps its hash, time, message (capped at 2,000 bytes), files, as
// indexes into one path table, and the pull requests and issues it cites
// by number ("(#3165)", "Fixes #12", read by query.Numbers as a query's
// are; none for a message citing more than five, a changelog), in a gob
// file of the generation's side directory, written to a temporary name,
// synced and renamed; the generation's meta names it (history.file,
// history.head, history.commits) and commits with the facts. The file's
// name holds its format's version, so that a file of another format is
// read again from git rather than kept.
//
// A repository that merges pull requests records a number only on the
// merge ("Merge pull request #774 from …"), and merges are left out of
// the commits. A second `git log --merges --first-parent` keeps those
// that cite a number, each with what it changed against its first parent
// (the pull request's files), capped like the commits, in a file of their
// own beside the first (…-merges.gob): no search reads it but one that
// names a change, since astropy's 5,000 merges would double the time to
// open the history (7.0 → 13.9 ms, BenchmarkOpen) for every search.
//
// # Incremental
//
// An incremental run whose HEAD did not move keeps the previous file. When
// HEAD moved forward (the previous head is its ancestor) only the new
// commits are read (`git log PREV..HEAD`) and put before the old ones, the
// cap applied again; otherwise (a rebase, a checkout of another branch, a
// fresh epoch) the history is read again. Outside git, in a shallow clone
// git cannot walk, or with --history 0 there is no history index and the
// generator is off. A damaged file is a damaged part of the index:
// `cairn status` names it ("commit history", from the generation's file
// manifest), `cairn index` rebuilds it from git without re-parsing
// anything, and search goes on without it meanwhile.
//
// # Cost
//
// The messages are analysed when indexing; the file holds them as an
// inverted index (sorted terms, each with its postings), so opening is one
// decode — 11 ms for astropy's 4,994 commits, 16 ms for grpc-go's 4,995
// (BenchmarkOpen) — done when a search first asks (package fuse's
// History), never for def or refs. A query reads only its terms'
// postings: 0.2–0.3 ms from an open index (BenchmarkQuery). Reading 5,000
// commits of grpc-go at index time adds about 1 s of CPU to a 31 s cold
// index (noise-level in four interleaved runs); an incremental run with
// no new commit reads no git history (its files stand; the manifest check
// finds a damaged one). The merges' log adds 0.23 s on astropy (6,740
// first-parent merges; its commits' log takes 0.21 s).
//
// # Search
//
// Index.Named finds the changes a query names (package query's Refs): the
// commit whose hash begins with a hash the query writes, the commits and
// merges citing a number it writes — a regression report's culprit, the
// fix of the report a duplicate points to — newest first, three per
// number. A number the query gives another repository's name (a link to
// golang/go's issue, "sunpy/ndcube#529") names nothing unless one of the
// repository's remotes has that name (gitrepo.Remotes, origin and
// upstream of a fork alike, kept in the meta and read again by every
// index run: a clone from a local path has none, and such numbers are
// then left out). 0.21 ms from an open index of astropy's history with its
// merges read (BenchmarkNamed), reading the merges 7 ms once.
//
// Index.Commits scores commit messages against the query with BM25 (k1
// 1.2, b 0.75) over the stemmed English terms of package tokens.
// Index.Files lets the CommitsVoting (30) best commits vote for the files
// they changed that are still indexed, each commit's score shared as
// score/√(its files), so that a commit touching two files says more about
// each than one touching forty. The fused search (retrieval/fuse) takes
// that file ranking as its history generator, explained by the strongest
// commit's hash and subject.
package history
