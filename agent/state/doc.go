// Package state is an agent run's durable record: the directory
// REPO/.cairn/runs/<run-id>/ that lets a run killed at any point (kill -9,
// a power cut) be resumed from what it had made durable, and lets other
// processes (`cairn agent status|log|show|list|approve|deny`) read it or
// answer it while it runs.
//
// # Layout (format version 1, FormatVersion)
//
//	meta.json         Meta: run id, repository, base commit, contract hash,
//	                  model, creation time, cairn version, format; written once
//	contract          the contract's exact bytes, read-only (0444)
//	events.jsonl      the append-only event log: one JSON Event per line,
//	                  seq 1, 2, 3… without gaps
//	checkpoint.json   {"format":1,"state":TaskState}: the latest task state
//	requests/rN.json  permission requests; rN.answer.json their answers
//	LOCK              flock(2)ed by the process driving the run; holds its pid
//
// # Invariants
//
//   - One driver. Create and Open take an exclusive, non-blocking flock on
//     LOCK for the Run's life; a second process gets a *LockedError naming
//     the holder's pid. The kernel drops the lock when the holder dies, so a
//     killed run needs no cleanup before it is resumed. Read, List, Pending
//     and Decide take no lock.
//   - An event is durable when Append returns: the line (JSON, then '\n')
//     goes out in one write(2) and is fsynced. Sequence numbers are assigned
//     under the Run's mutex, so concurrent Appends yield contiguous seqs in
//     file order.
//   - A crash can leave at most the last line torn (a write cut short: a
//     large write(2) is cut at a page boundary when SIGKILL arrives; a power
//     cut can leave an unwritten tail). Open cuts the log back to the last
//     complete line and appends a `recovered` event with what it dropped
//     (byte count, and the dropped event's seq and kind when its prefix
//     shows them). The dropped event was never acknowledged to its writer,
//     so nothing acknowledged is lost, and the recovered event takes the
//     dropped seq: the log stays gap-free. Any other bad line — invalid
//     JSON, an unknown field, a wrong seq — anywhere but last is a
//     *CorruptError naming the line, and nothing is rewritten: that is
//     damage a person should look at, not something a crash makes.
//   - A checkpoint is published atomically: written aside, fsynced, renamed
//     over checkpoint.json, the directory fsynced. A reader, and a resume
//     after a crash at any point, sees the previous checkpoint or the new
//     one, whole. TaskState.Seq is the last event the checkpoint reflects;
//     events are fsynced before the checkpoint names them, so Seq never
//     exceeds the log (Open checks it). Events after Seq are what a resume
//     must fold in or reconcile. A `checkpoint` event follows each save.
//   - Secrets never land on disk: event data, checkpoints, requests and
//     answers are marshalled to JSON and every string in them (member names
//     and values) passes internal/redact; a string assigned to a member whose
//     name names a credential ({"api_key": "…"}) is judged as that
//     assignment. Redaction is lossy by design: a resumed run sees
//     [REDACTED:kind] where a secret was.
//   - Permission answers come from other processes, without the lock: Decide
//     publishes rN.answer.json with link(2), which never replaces, so of two
//     answers exactly one lands and the second gets ErrAnswered. The driver
//     polls Answer and writes the permission_decision event itself (only the
//     lock holder appends).
//
// fsync's effect cannot be observed by a test that kills a process (the
// page cache survives it); the tests check what a kill can break — torn
// lines, half checkpoints, lock hand-over — with real child processes.
package state
