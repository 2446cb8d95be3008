// Package task is the agent's task contract: what a run must achieve, where
// it may write, how success is proven, and what it may spend.
//
// A contract is a YAML (or JSON) file in the format of DESIGN.md's example;
// parse.go documents the format. Parsing happens in three steps, each with
// errors that name a field path ("criteria[2].check: …") and a line:
//
//  1. the bytes become a node tree (go.yaml.in/yaml/v3 for YAML; JSON is read
//     token by token into the same tree, so both formats share steps 2–3 and
//     their errors, and a repeated JSON key is caught as a repeated YAML one);
//  2. a shape check walks the tree against the file's Go types by their yaml
//     tags before anything is decoded: an unknown or repeated key, a value of
//     the wrong type, a missing value — strict decoding, with paths instead
//     of decoder messages;
//  3. validation of meaning: a required objective, a base that cannot pass
//     for a git option or a range, doublestar globs that stay inside the
//     repository, unique criterion ids, each check exactly one kind with a
//     usable selector or argv, non-negative budgets.
//
// Every problem found is reported at once (Errors), in file order.
//
// Identity. Hash is sha256 over Canonical, a JSON encoding with a fixed key
// order in which the base is defaulted ("HEAD") and the scope globs — sets —
// are sorted and deduplicated, while criteria and forbidden keep file order
// (it is shown and reported). Comments, quoting, flow or block style, YAML or
// JSON, key order and glob order therefore keep the hash; any change of
// meaning changes it. Canonical output parses back to the same hash (the
// fuzz target checks it).
//
// Allowances. The gate's tamper check (gate/verify) treats the test
// harness and the tests a criterion names as not the change's to rewrite.
// An optional allow lifts that by name, and only that:
//
//	allow:
//	  harness: [server/main_test.go, conftest.py]   # globs, as scope's
//	  tests: [TestReportedBug]                      # names, as criteria name them
//
// harness globs name the files whose harness edits stand: a Go test file's
// TestMain, init functions, os.Exit calls and test-framing output;
// conftest.py, pytest hooks and plugin lists, pytest's sections of
// pytest.ini, setup.cfg, pyproject.toml and tox.ini; jest, vitest and vite
// configuration and the setup files they name; a Makefile's test targets
// and package.json's test scripts and jest key. tests names the tests a
// tests criterion names (a -run name, a pytest node id's function, a
// jest/vitest full title) whose bodies may change. Validation checks the
// globs as scope's and that no name is empty; no other finding can be
// allowed. The sets are sorted and deduplicated in the canonical encoding,
// and a contract without allow encodes — and hashes — as it did before
// the field existed.
//
// Attempts. Start resolves the base to a full commit with git rev-parse
// (peeled with ^{commit}, after --end-of-options) and freezes a deep copy of
// the contract with its hash: an Attempt is immutable, and a changed contract
// is a new attempt.
//
// Clarification. A contract can parse and still not be runnable: Questions
// returns what a person must answer first (no write scope or a scope of the
// whole repository, no criteria or none that executes anything, an objective
// too short to act on). The agent ends such a run as needs_clarification
// with these questions rather than turning uncertainty into code.
package task
