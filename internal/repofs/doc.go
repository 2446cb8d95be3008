// Package repofs is the one way cairn reads a file of the repository it
// serves: the repository boundary.
//
// A path reaches a reader from a client (read_span, a focus file, an LSP
// document), from the index (a file indexed earlier) or from a convention
// (CODEOWNERS, package.json). Whatever its source, FS.ReadFile refuses:
//
//   - a path that is empty, holds a NUL byte or is absolute;
//   - a path that climbs out of the root with "..";
//   - a path inside .git (credentials live in .git/config);
//   - a path whose file is not under the root once symlinks are resolved —
//     an indexed file replaced by a link to /etc/passwd after indexing, or a
//     directory on the way replaced by a link out — and a link into .git;
//   - anything but a regular file (a FIFO would block the reader, a device
//     would never end).
//
// The check is made on what was opened, not on the name before opening, so
// a file swapped for a symlink between a check and the read is caught: the
// file is opened through an os.Root on the repository root, which resolves
// the path one component at a time with O_NOFOLLOW and refuses any link
// that leaves the root; the opened descriptor is then checked (fstat: a
// regular file; on Linux its real path from /proc/self/fd: under the root
// and not in .git; elsewhere the resolved name must still be the same file).
// Comparisons of paths are by component (filepath.Rel), so a sibling that
// shares a prefix (/x/repo-secrets beside /x/repo) is outside.
//
// Every refusal is an *Error with a Reason callers branch on (the engine
// maps reasons to its error categories: invalid_argument,
// outside_repository, not_found). Error messages quote the path bounded.
//
// repofs sits under graph so that every layer above it — the indexer, the
// retrieval packages, the engine and the servers — reads through it; each
// consumer declares the one-method interface it needs
// (ReadFile(rel string) ([]byte, error)) where it uses it.
package repofs
