package verify

import "github.com/cairn-dev/cairn/gate/sandbox"

// RunnerFor picks the runner a test selector is written for, as the gate
// does: pytest's for a node id (::) or a .py path, an error for jest and
// vitest selectors (not built yet), Go's otherwise. The agent's run_tests
// tool runs the same runners, so the model sees tests as the gate will.
func RunnerFor(ws *sandbox.Workspace, selector string) (Runner, error) {
	return runnerFor(ws, selector)
}
