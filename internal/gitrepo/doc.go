// Package gitrepo is cairn's one way of asking git about a worktree: which
// commit is checked out (Head), where its git directories are (Dirs), the
// blobs of HEAD's tree (Tree), a file at a revision (Show), a file's recent
// authors (Authors) and what changed (Diff, parsed once by ParseDiff into
// files and line ranges). The indexer, retrieval and the engine all use it;
// it sits beside graph's vocabulary so that every layer can.
//
// # HEAD without a process
//
// Head and Dirs read git's files, as git itself finds them: the nearest
// .git at or above the directory asked about (a directory, or a file
// "gitdir: …" for a linked worktree or a submodule, whose commondir names
// the shared directory), HEAD there, the ref it names as a loose file or
// in packed-refs. That costs a few stats and reads, cheap enough for every
// answer's freshness check. When a .git is found but the files do not tell
// (a reftable repository, a layout this reading does not know), git is
// asked (rev-parse); outside any repository the answer is "" at once.
//
// # Everything else runs git
//
// Tree, Show, Authors and Diff run git with the options that make its
// output independent of the user's configuration (no colour, no external
// diff or text conversion, fixed a/ and b/ prefixes). A failure is a
// *CommandError carrying git's own message; a revision that git could read
// as an option (a leading "-") is refused before git runs (ErrBadRevision).
//
// # Diffs
//
// ParseDiff reads `git diff` output with zero lines of context: per file
// its old and new path (quoted paths unquoted), whether it was added,
// deleted, renamed or is binary, and each hunk's old and new line range.
// "\ No newline at end of file" lines change nothing.
//
// Git refuses a repository another user owns ("dubious ownership"); a
// harness that made a worktree for a sandboxed user names it with Trust,
// and git runs there with safe.directory set to it and hooks and
// fsmonitor off. Nothing else is trusted: safe.directory exists so that a
// stranger's repository configuration never runs.
package gitrepo
