// Package walk enumerates the files of a repository that cairn should index,
// and records a reason for every file it leaves out.
//
// The walk is a depth-first traversal in lexical order, so its output is
// deterministic. At each directory it reads .gitignore and .cairnignore and
// pushes their patterns, scoped to that directory, on a stack; a path is
// matched against the stack from the innermost file outwards and the last
// matching pattern wins, as in git. Ignored directories are not entered (git
// cannot re-include a file below an excluded directory either) and are
// recorded once as a directory skip. Pattern syntax is git's, parsed with
// go-git's gitignore package.
//
// Symbolic links are never followed. A link is recorded as a skip whose
// reason says where it leads: a loop, outside the repository, or a duplicate
// of a path inside it that is indexed under its real name.
//
// WalkPaths visits only some paths (a watcher's change set) and decides
// about each exactly as a full walk would: it pushes the ignore files of
// every ancestor directory first and does not visit a path below an ignored
// directory. WalkDirs and WalkPaths report every directory they enter, which
// is the set of directories a watcher must watch.
//
// Decisions that need the file's bytes (binary, minified, generated, long
// lines, the C-or-C++ question for .h files) are made by [Classify], which the
// indexer calls on content it reads anyway for hashing; the walk itself only
// stats files, so an incremental run that finds every file unchanged reads
// nothing but directories. A generated-code marker counts in a comment line
// of the file's first 2 KB: a string literal spelling one (in the generator
// that writes it) is hand-written code.
//
// # Categories
//
// A kept file's category (graph.FileCategory: test, vendored, docs) is
// decided here once, one function per fact ([IsTest], [IsVendored],
// [IsDocs], combined by [Category]), and the indexer stores it with the
// file; search, packs and impact read the stored category and never decide
// it again from a path. Generated files need no flag: [Classify] skips them.
// The rules are those search applied at query time before categories were
// stored, kept exactly, so that rankings stayed as they were. Whether a
// Python file is vendored depends on other files (the __init__.py files of
// the packages around it), so the indexer decides again, over the whole
// generation, when one of those comes or goes ([VendoredBy]).
package walk
