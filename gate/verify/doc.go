// Package verify is the verification gate: "done" is what the checks say,
// never what the model says. The harness runs it (the model cannot waive
// anything), and so can any agent or person through `cairn verify`.
//
// # A run
//
// Verify takes an attempt (the contract, its hash and its base resolved to
// a commit), the repository, a candidate — a worktree's changes against the
// base (untracked files included, ignored ones not), a commit range
// BASE..HEAD whose BASE is the attempt's base, or a patch — and an
// executor (gate/sandbox; bubblewrap here). The candidate becomes one
// binary git patch. Then:
//
//  1. Dir/LOCK is flock(2)ed for the gate's life (one gate per Dir: two
//     would wipe each other's workspaces; a killed gate's lock goes with
//     it), then Dir/run is removed (and the repository's worktrees pruned): a gate
//     killed with SIGKILL leaves workspaces behind, never processes or
//     mounts (bwrap dies with its parent, its namespaces with it), and the
//     next run starts clean. Dir/cache is kept: the base results and the Go
//     build cache.
//  2. A workspace at the base gets the patch (git apply). A patch that does
//     not apply blocks every criterion: the verdict is blocked, never pass.
//  3. Scope and tamper checks read that workspace and the base.
//  4. Each criterion runs in a fresh workspace: sandbox.Create at the base,
//     sandbox.PrepareGo (go mod download outside the sandbox, from the
//     base's go.mod files; inside, GOPROXY=off), the patch applied, the
//     files handed to the sandbox's user.
//
// # Statuses
//
// A check is pass, fail, blocked (it could not be executed as asked: the
// diff does not apply, the package does not build, the command timed out
// or was not found, no runner reads the selector) or not_run (it executed
// and nothing it names ran: no test matched, a test selected by name never
// ran, every test skipped). Each check carries its argv, the directory it
// ran in, the exit code, the duration, the backend, per-test outcomes and a
// bounded evidence excerpt (the tail of the output; 2 KiB of each test that
// did not pass).
//
// The verdict is pass only when every criterion passes and no tamper or
// scope finding stands; fail when a criterion failed or a finding stands;
// blocked otherwise (a contract with no criteria included).
//
// # Checks
//
// tests: SELECTOR. A Runner turns the selector into a command and the
// command's output into per-test results; Go's is built: package patterns
// relative to the repository root and an optional -run REGEX (no other
// flag), run as go test -json -count=1 in the nearest directory above the
// first pattern with a go.mod. Outcomes are read per test from the JSON
// events; a package that fails to build (build-fail events, FailedBuild,
// "[build failed]", "[setup failed]", or no events at all) blocks. A
// skipped test is never a pass; a test that started and never finished,
// or that -run names exactly (^(A|B)$) and never ran, is not_run. A
// selector with "::" or a .py path is pytest's: python3 -m pytest with a
// JUnit XML report (pytest.go; its parser is tested on a report, the
// command is not, pytest not being installed here).
//
// A selector naming JS/TS files (.js .jsx .ts .tsx .mjs .cjs .mts .cts,
// relative to the repository root) or starting with -t PATTERN is jest's
// or vitest's (node.go, jest.go, vitest.go); its words are split as a
// shell splits them (-t "adds two numbers" is one pattern), and no flag
// but -t is taken. The files' package — the nearest directory above them
// with a package.json, one for all — is the command's directory and picks
// the runner, first rule that finds either wins and finding both is an
// error: jest.config.* or vitest.config.*; a "jest" key in package.json;
// jest or vitest in (dev)dependencies; jest or vitest in scripts.test.
// Before the first command in a workspace the harness installs that
// package's node_modules outside the sandbox (sandbox.PrepareNode: npm ci
// --ignore-scripts from its lockfile, once per lockfile under
// Dir/cache/node, copied into each workspace; no lockfile blocks). The
// command is the package's own node_modules/.bin/jest or vitest — never a
// download — with its JSON report written to .cairn-jest.json or
// .cairn-vitest.json in the package (jest --ci --json --outputFile
// --runTestsByPath, vitest run --reporter=json --outputFile.json, both with
// CI=true). A test is its file and its full name (describe titles and
// title joined by spaces, what -t matches); passed/failed map to pass/fail,
// pending, skipped, todo and disabled to skip; tests a -t pattern
// deselected are left out (as -run leaves Go tests out); a file that
// failed with no test in it (a syntax or import error) or a run that wrote
// no report is a build failure and blocks; a file that failed while none
// of its tests did (a beforeAll/afterAll hook threw) gets a failing test
// of its own, so that a passing test beside it never makes it a pass.
// Reruns select the failing tests exactly: their files and -t ^(NAME|…)$
// with the names escaped; such an anchored list of literal names, in a
// rerun or in the selector, makes every name that never ran not_run. vitest under CI fails a file
// with .only (jest runs the focused test and skips the rest). The node
// binary of the host runs inside the sandbox (it is under /usr, bound
// read-only); V8's 10 GiB WebAssembly reservation does not fit the
// address-space limit, so the commands run with
// NODE_OPTIONS=--disable-wasm-trap-handler (Node ≥ 20.15).
//
// Failing tests are rerun, just them, up to Options.Reruns times (default
// 2); one that passes on a rerun is flaky and fails the criterion — the
// contract has no way to allow flakiness, so a flaky test never passes
// silently or loudly. Tests still failing are then compared with the same
// selector at the base (run once per base commit, runner and selector, and
// cached under Dir/cache/base): a test that fails there too is
// pre_existing, not blamed on the change, and the criterion passes saying
// how many it excused — but only for a broad selector (packages, files). A
// selector that names its tests (a Go -run pattern, a pytest node id, a
// jest/vitest -t) is the specification: every test it names must run and
// pass on the change, and a failure at the base excuses none of them
// ("make this failing test pass" is the most natural contract there is;
// a comment-only change must not satisfy it).
//
// Go results are checked against the tests the package's test files
// declare (listed.go): go test -json reads the framing lines the test
// binary prints, so test code that prints them could make up a test and
// its pass. A result whose top-level name no test file declares is a
// forged_result tamper finding and fails. The declared names are read from
// the source, not asked of the test binary (go test -list), which a
// changed TestMain could answer too.
//
// command: [argv]. Runs in the workspace root; exit 0 passes; a time-out
// or exit 126/127 (not executable, not found) blocks.
//
// regression: true. The Go tests the diff adds or changes (a new name, or
// a body that differs from the base's, by tree-sitter) run twice: at the
// base with only the diff's test files applied (*_test.go, test_*.py,
// *.test.ts …, testdata/), where each must fail, and on the change, where
// each must pass. A failure at the base proves the change only when it is
// the change's doing (proof.go; Check.Proofs reports each test's base
// outcome with its failure message or build error, its outcome on the
// change, its coverage and why it counts or not):
//
//   - an assertion, a panic or a time-out at the base counts when the test,
//     run alone on the change with -coverpkg of the changed packages,
//     executes at least one statement on a line the change adds or edits
//     (or the change has no executable statement: a constant, data), or
//     whose panic at the base passes through a function the change edits
//     (a race's failing path is not taken in every run on the change:
//     grpc-go 2371);
//   - a package that does not build at the base (the test uses API the
//     change adds) counts only when the test executes changed statements:
//     a test of a new constant executes none and proves nothing. The proof
//     says whether any it executed are in functions the base has; a test
//     that executes only new code (a helper nothing else calls yet) still
//     counts — a refactor's new API tested directly, as grpc-go 3476's
//     BuilderMap.Equal, looks the same — and CHANGE.md says so. Such a test
//     must assert something: an assertion in it or in a helper of the
//     test files it reaches, or its T handed to another package's helper;
//     one that asserts nothing (its new helper vacuous) shows only that
//     the change builds and runs;
//   - a change of tests alone proves nothing: the base and the change run
//     the same code, so a test failing there and passing here does so by
//     chance (grpc-go 2371's racy test, without its fix, passed once);
//   - coverage that cannot be collected blocks the criterion, never passes
//     it.
//
// It passes when at least one test proves the change and all pass on the
// change; a diff with no test fails, one whose tests are only Python or
// TS/JS blocks (Go only, for now). When none fails at the base in one run,
// they run there again with -count=Options.BaseRepeats -failfast (default
// 10): a race or timing bug loses only now and then (grpc-go 2371's added
// test panics at the base in about one run in four), and a failure in any
// repetition shows it. The change must then pass M repetitions, every one
// (goRunner.Parse keeps a test's failure in any repetition as its outcome):
// a test that first failed in run r fails about once in r, and M is the
// least number of runs an unchanged failure rate passes in a row with at
// most 5 % chance (changeRepeats: 10 for r ≤ 3, 29 for r = 10, at most 30).
// The repetitions are skipped when tamper or scope findings fail the
// verdict already (a skip added, assertions neutralised: 100–200 s of a
// slow package's repeated tests on grpc-go that could change nothing); the
// criterion's reason says so. A test that mentions a changed helper of
// the test files counts as changed — a function or variable by its name,
// a method by its name and its receiver type (directly or through the
// helpers it mentions), so a changed delayListener.Dial is not every
// test that calls grpc.Dial. Suite methods (func (s) TestX) run
// under the top-level test that mentions the suite's type, selected as
// -run ^(Parent)$/^(X|TestX)$.
//
// impact_tests: true. Options.Impact names the test selectors that reach
// the change; they run as tests checks (each in its fresh workspace).
// EngineImpact is the engine's: it indexes a workspace of the candidate
// (into RUN/index, beside the worktree), asks Snapshot.Impact for the
// working tree's changes against the base, and groups the Go tests found
// by package directory. No tests selected is not_run; with no selector
// wired the criterion is blocked with that reason.
//
// scope: true, and always. Every changed path must match a scope.write glob
// and no scope.protected glob (doublestar, as gate/task validates them);
// each miss is a finding and fails the verdict whether or not the contract
// has a scope criterion.
//
// # Tamper checks
//
// Syntax-level, base against candidate, with the tree-sitter grammars the
// indexer uses (github.com/smacker/go-tree-sitter). Each finding has a kind,
// the path, the test and the evidence on both sides:
//
//   - Go: Test/Fuzz/Example/Benchmark functions (and suite methods of
//     those names, as grpc-go's grpctest runs) deleted (test_deleted) or
//     renamed (test_renamed: a new name with the same body); fewer reachable
//     assertions (fewer_assertions: t.Error*/Fatal*/Fail*, assert. and
//     require. calls, s.Require().X, s.Assert().X, a := assert.New(t)'s
//     a.X, a testify suite's own s.Equal …, gomega's Expect/Ω/Eventually/
//     Consistently(…).To/ToNot/NotTo/Should/ShouldNot, cmp.Diff,
//     reflect.DeepEqual — not counted in a branch whose condition is a
//     constant (if false, if !true && x) nor after a return, panic,
//     t.Fatal*, t.FailNow or t.Skip* in the same block, nor in a for false
//     loop). A test's count includes the assertions of the helpers it
//     reaches among the package's test files (helpers.go): a function or
//     package variable it names, a method by its name and its receiver
//     type (named by the test or by a helper it reaches), and what those
//     reach, each helper once. Every test file of a package whose test
//     files changed is read at the base and in the candidate, so a helper
//     made vacuous (if got != want { t.Errorf(…) } become _ = got == want)
//     is fewer_assertions for every test reaching it, in a changed file or
//     not; more t.Skip*/testing.Short calls (skip_added);
//     a new //go:build or // +build line (build_constraint_added); more
//     assertions that can never run than at the base — under a constant
//     condition, after the test ends — in any test, a new one included
//     (unreachable_assertions: a test added with its checks under if false
//     builds nowhere at the base, so regression alone passes it; found on
//     grpc-go, bench/gate). An added test file is compared with an empty
//     one, for this finding only.
//   - Python (pytest): test functions deleted or renamed, fewer assert
//     statements (assert True does not count; self.assert*, pytest.raises
//     do), added @pytest.mark.skip/skipif/xfail, unittest.skip, pytest.skip()
//     and pytest.xfail() calls.
//   - TypeScript/JavaScript: tests (it/test, named with their describe
//     titles) deleted, fewer expect() calls, added .skip/.todo/xit/xtest/
//     xdescribe, added .only/fit/fdescribe (only_added).
//   - Any: a test file deleted (test_file_deleted); CI configuration of the
//     common services edited (ci_config_edited), protected or not.
//
// The harness is not the change's to rewrite (harness.go). Each of these is
// a finding unless the contract's allow.harness (globs, as scope's) matches
// its path:
//
//   - Go test files: TestMain added, changed or removed, init functions
//     added or changed (harness_changed, test TestMain or init); more
//     os.Exit, syscall.Exit or unix.Exit calls than at the base, anywhere
//     in test files (exit_added: a TestMain that runs m.Run() and exits 0
//     passes a go test command whatever failed); more string literals that
//     imitate go test's framing (framing_output: test2json's framing byte
//     0x16 however spelled, a "Action": key, a line starting === RUN/PAUSE/
//     CONT/NAME or --- PASS/FAIL/SKIP/BENCH:, a PASS or FAIL line, ok or
//     FAIL with a package), except as arguments of the T's own calls
//     (t.Log*, t.Error*, t.Fatal*, t.Skip*, t.Run's name: go test indents
//     and prefixes that output, so it frames nothing; a function literal
//     passed to t.Run is the test's code and is read); more writes to the
//     binary's output in TestMain or init (fmt.Print*, log.Print*,
//     print/println, any use of os.Stdout or os.Stderr) and fd-level writes
//     anywhere (syscall.Write, os.NewFile) (framing_output). A new test
//     file is compared with an empty one for these too. An ordinary
//     fmt.Println in a test or an Example is not flagged. A //go:build
//     line added to an existing test file stays build_constraint_added;
//     allow.harness lifts it too.
//   - Python: conftest.py added, changed or deleted; in any .py file, a
//     module-level pytest_* hook (pytest_collection_modifyitems,
//     pytest_runtest_*, pytest_configure …) or the pytest_plugins list
//     added, changed or removed; pytest.ini and tox.ini changed; the
//     [tool:pytest] and [pytest] sections of setup.cfg; [tool.pytest*]
//     sections, [tool] pytest keys and pytest11 entry points of
//     pyproject.toml (harness_changed, test the hook or section).
//   - JS/TS: jest.config.*, vitest.config.*, vitest.workspace.*,
//     .mocharc*, karma.conf.* changed; the test property of vite.config.*;
//     a file the jest, vitest or vite configuration of a changed file's
//     directory or an ancestor (or package.json's jest key), at the base or
//     in the candidate, names as setupFiles, setupFilesAfterEnv,
//     globalSetup/Teardown, testEnvironment/environment, reporters,
//     runner, testRunner, resolver, snapshotResolver or testSequencer;
//     package.json's jest and mocha keys and every script whose name says
//     test (harness_changed).
//   - Makefiles (Makefile, makefile, GNUmakefile, *.mk): a rule with a
//     target that says test or check, its prerequisites and recipe, and
//     the variables whose names say test or check (harness_changed).
//
// Tests named by a criterion are the specification, and not the change's
// to edit: a test the base has, that a tests criterion names by name — the
// literal names of a Go -run (^TestA$, ^(A|B)$) in the files of its
// package patterns, a pytest node id's function in its file, the tests of
// its files a jest/vitest -t matches (its anchored list of names, or the
// pattern as a regular expression on the full title) — must keep its body:
// any change is specified_test_changed unless the contract's allow.tests
// names it. Deleting or renaming one is test_deleted or test_renamed, as
// for any test. The contract's allow lifts nothing else.
//
// # Known limits
//
// The Go build cache (Dir/cache/build) is shared by the gate's sandboxes,
// base runs included, as the sandbox's per-run cache: a cold cache costs
// minutes on a small machine. A candidate's code could write entries
// there; the cache is content-addressed, but a gate that must withstand a
// hostile candidate should give each run its own cache. Per-test results
// are read from the runner's own output (go test -json, the JUnit file),
// which code under test can imitate: Go results must name declared tests,
// and the harness checks (TestMain, init, os.Exit, output writers) and the
// regression run at the base make the rest costly, not impossible. pytest's
// JUnit file and jest's or vitest's JSON report are written by the runner,
// not read from what tests print, and what could rewrite them — conftest.py,
// pytest plugins and hooks, jest/vitest config and setup files — is a
// harness finding; their results are not checked against a collection. The
// framing_output rule reads literals: framing built at run time ("--- " +
// "PASS") or read from a file is not seen, and a legitimate test of a go
// test output parser that adds framing literals is flagged until the
// contract allows its file. Helpers' assertions are counted for Go only
// (Python and JS/TS count a test's own body), by name, not by a type
// checker: a helper's name shared with something else over-counts, at the
// base and in the candidate alike. Commands are
// not compared with the base (only tests are). The regression check is
// Go's only so far (coverage.py and the node runners' coverage would give
// pytest and jest/vitest the same proof); reruns are Go's, jest's and vitest's (not pytest's).
// jest/vitest: npm lockfiles only (no yarn or pnpm), no npm workspaces
// (a lockfile above the package is not used), no dependency's install
// script runs (a package that needs one to work is broken in the
// sandbox); the change's own package.json or lockfile edits are not
// installed (the install is the base's, as Go's modules are).
package verify
