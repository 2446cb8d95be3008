// Package eval is the agent's evaluation suites: the verification gate
// against tampered changes, and agent runs judged by hidden tests. The
// engine's evaluations (localize, context) and the framework every suite
// shares — Summary, rows.jsonl and summary.json (eval.Write), the baseline
// comparison (eval.Compare), the HTML and Markdown reports (eval.Report) —
// are package eval's (../../eval); the suites here return an eval.Summary
// and rows, and render their results as an eval.Report.
//
// # gate
//
// RunGate runs the verification gate (gate/verify, in-process: the same
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
//     and no_change (must not), and the mutations below, each of which must
//     be refused. A variant that cannot be made is n/a, with the reason;
//     the ones that choose what to tamper with say what in the row's note.
//   - With Naive, the check a gate replaces runs too: the instance's tests
//     with plain go test -run on the host, exit status only.
//
// The mutations the suite makes itself:
//
//   - skip_added: t.Skip first in the tampered test (the first of the
//     instance's tests with an assertion statement in its body).
//   - assertions_neutralised: each assertion statement of that test
//     wrapped in if false {}, multi-line calls whole. Assertions are found
//     by go/ast as the gate counts them (asserts.go): Error*/Fatal*/Fail*
//     methods of anything but an imported package (t.Errorf, s.T().Fatal),
//     testify's assert.X/require.X, s.Require().X, s.Assert().X, a
//     variable bound to assert.New, a suite's s.Equal-style methods, and
//     gomega's Expect/g.Expect/Ω/Eventually(…)….To/Should…; a cmp.Diff or
//     reflect.DeepEqual guard keeps its condition, its t.Errorf is
//     wrapped. An assertion used as a value (if !assert.NoError(…)) is not
//     touched.
//   - test_deleted; ci_edited (a line appended to a .github file);
//     out_of_scope (a comment appended to the first tracked source file no
//     write glob covers).
//   - vacuous_regression: no fix; a constant in a new production file
//     (cairn_fixed.go) of the package the reference fix changes (one of
//     the instance's tests' packages when it changes one) and a test of
//     that constant alone (cairn_fixed_test.go, TestFixedIssueN): it
//     fails at the base only because its package does not build, and
//     executes nothing the change changed.
//   - helper_neutralised: the reference, with the first assertion helper
//     the tampered test reaches (else another of the instance's tests) —
//     a function of its package's _test.go files, reached as the gate
//     reaches helpers: by name, a method by its name and receiver type,
//     transitively — having its own assertion statements wrapped in if
//     false {}.
//   - harness_exit: the reference, with a TestMain that runs the tests and
//     exits 0 in the tampered test's package (cairn_main_test.go, its
//     package clause), or the package's own TestMain with each m.Run()
//     made to return 0.
//
// The summary has the confusion matrix (variant × verdict), per variant
// how often the verdict was the expected one, the flaky tests the gate
// saw (failed, then passed on a rerun), and the time per instance
// (preparation and gate). Each variant's whole gate report is kept as
// Work/reports/ID/VARIANT.json.
//
// # agent
//
// RunAgent runs agent/loop on each instance from its base (the prepared
// clone of the gate suite; the runs under Work/runs), with the issue as
// the objective and a contract of regression, the tests of the
// reference's Go packages and scope. Afterwards the hidden tests — the
// instance's test patch over the run's change, its test files replaced —
// go through the gate (the tests criteria and scope of the gate suite's
// contract). A run is resolved when the harness verified it and the
// hidden tests pass: a run the harness did not verify is rolled back, its
// change never applied. From the run's event log: finishes, the gate's
// rejections before the first pass (first pass, rework rounds), the
// policy's decisions (refused calls; commands that reach for the network
// — curl, wget, a URL — and writes outside the write scope or into a
// protected path, refused or not); from the change: its changed lines
// against the reference patch's and the files outside the reference's;
// from the outcome: tokens, cost, wall time and steps. The suite's tests
// drive it with scripted models through the real providers (llmtest's
// Anthropic and OpenAI wire formats over HTTP).
package eval
