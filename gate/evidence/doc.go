// Package evidence is the verification gate's evidence bundle: what a
// reviewer (or a program) needs to trust a change without rerunning it,
// and what they need to rerun it when they do not.
//
// # The bundle
//
// Build turns a gate run (gate/verify's Report, the attempt, the
// candidate) into a Bundle, JSON in the format of
// schema/evidence.schema.json (SchemaVersion, checked by a test that
// validates a real bundle against the schema):
//
//   - identity: the contract hash and objective, the base commit, the head
//     (a range's HEAD, or the worktree's HEAD for a working candidate) and
//     the sha256 of the exact binary patch the gate applied;
//   - the changed files with the lines each adds and deletes, counted from
//     that patch (binary files marked, test files marked);
//   - the report itself: every criterion's status, command, exit code,
//     duration and per-test outcomes, the tamper and scope findings;
//   - risks from the engine's impact analysis of the change (the
//     candidate's workspace indexed, Snapshot.Impact of its working tree
//     against the base, as verify.EngineImpact does): dependents, direct
//     dependents, untested callers, whether exported symbols changed and
//     which. When the gate's impact_tests criterion already ran the
//     analysis, Run reuses it (one index, not two); otherwise Build indexes
//     a workspace of its own under the scratch directory. When the analysis
//     cannot run, Risks.Available is false and Unavailable says why — never
//     an empty list that reads as "no risk";
//   - root cause, summary and decisions when the caller has task state (the
//     agent's); empty otherwise, and the description says so;
//   - how to reproduce: the `cairn verify` command line, the contract as
//     the gate ran it (canonical; its sha256 is the contract hash), and per
//     check the argv, the directory and the environment variables that
//     decide what it computes (sandbox.ReproducibleEnv: GOFLAGS, GOPROXY=off,
//     GOTOOLCHAIN=local …);
//   - the environment: the repository's HEAD, the sha256 of every lockfile
//     at the base (go.sum, package-lock.json, poetry.lock,
//     requirements*.txt, … outside vendor/ and node_modules/; changed ones
//     marked), go version, bwrap version, the sandbox backend, cairn's
//     version, and the model with its configuration when the caller names
//     one. A tool that cannot be asked is recorded as "not installed" or
//     "unknown (…)", not left out.
//
// Markdown renders the change description a reviewer reads in two
// minutes: the verdict line first; for an agent run, its summary (steps,
// model and tool calls, the policy's refusals, tokens, and the cost — or
// that it is unknown, the model having no price); then Cause and Fix,
// where the model's diagnosis and summary are quoted and marked as its
// words, not checked by the gate, with the criteria that back them beside
// (files table, decisions); and Proof: per criterion what it ran (argv and
// directory), its status and note; per regression test how it failed at
// the base (assertion, panic, time-out or build, with the message or the
// build error), how it ran on the change, its coverage of the changed
// statements and whether it proves the change; the findings, the risks
// (an agent run's too: its scratch directory is made when missing), the
// commands to reproduce — the saved contract's path and, for a patch, the
// patch's (`cairn verify --task RUN/contract --patch
// RUN/evidence/change.patch`), so the line runs as written — and one line
// of environment. Write puts evidence.json and
// CHANGE.md in a directory, each written aside, synced and renamed;
// CHANGE.md first, so a directory with evidence.json has both.
//
// # One way to run the gate
//
// Run is the gate as `cairn verify` and the MCP tool verify_change both
// call it: parse the contract (a file or its text), take a range's base
// as the contract's base, start the attempt, pick the executor the policy
// allows (the user's, narrowed by the repository's: PolicyExecutor), run
// verify.Verify, and
// Build the bundle. Errors the caller can fix (a contract that does not
// parse, a malformed range, a base that is not a commit, a bad policy) are
// *RequestError; the rest are the environment's. A verdict that is not
// pass is an answer, not an error.
package evidence
