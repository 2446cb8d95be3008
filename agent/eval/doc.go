// Package eval is cairn's evaluation suites: one command after every change
// of model, prompt, policy or engine says what moved, as numbers per task
// and overall, compared with a previous run.
//
// # Suites
//
// Each suite reads a task file, runs its tasks and returns rows (one per
// task, or per task and variant) and a Summary: the headline metrics (the
// numbers a baseline is compared on, in Order), and the suite's own detail.
// Write puts them in DIR/rows.jsonl (each row's own fields plus "key" and
// "outcome") and DIR/summary.json; Compare reads a previous DIR and gives
// the metrics' deltas and the rows whose outcome changed, was added or
// went away.
//
// # gate
//
// RunGate runs the verification gate (agent/verify, in-process: the same
// Verify call `cairn verify` ends in) over Multi-SWE-bench-style instances
// (../shared/bench/gate's format). Per instance:
//
//   - The repository ReposRoot/ORG/REPO (a clone or a bare git dir) is
//     cloned (--shared) into Work/repos/ORG/REPO@BASE and its Go modules
//     downloaded (sandbox.PrepareGo), outside any sandbox, once per base
//     revision: a marker file beside the clone says it is complete, and
//     instances of one base share it. The gate directory (build cache,
//     base results) is kept per base too, under GateRoot.
//   - The reference is applied once to find the instance's tests (the
//     f2p/n2p/s2p top-level names as functions of the test patch's files)
//     and their packages. The contract: regression; one tests criterion
//     per package (-run naming the tests exactly); scope with write = the
//     directories of both patches' files and protected = .github/**.
//   - Each variant is made as a text edit in the clone and handed to the
//     gate as a patch against the base: reference (must pass), test_only
//     and no_change (must not), and mutations of the reference the suite
//     makes itself — skip_added (t.Skip first in the tampered test, the
//     first test with a direct assertion), assertions_neutralised (each of
//     its direct t.Error*/t.Fatal* wrapped in if false {}), test_deleted,
//     ci_edited (a line appended to a .github file), out_of_scope (a
//     comment appended to the first tracked source file no write glob
//     covers). A variant that cannot be made is n/a, with the reason.
//   - With Naive, the check a gate replaces runs too: the instance's tests
//     with plain go test -run on the host, exit status only.
//
// The summary has the confusion matrix (variant × verdict), per variant
// how often the verdict was the expected one, the flaky tests the gate
// saw (failed, then passed on a rerun), and the time per instance
// (preparation and gate).
package eval
