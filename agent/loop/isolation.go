package loop

import (
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/gate/evidence"
)

// recordIsolation writes what the run's commands are isolated by to the
// event log, at every start and resume (the flags may differ).
func (h *harness) recordIsolation() error {
	_, err := h.run.Append(state.KindSandbox, h.st.Step, h.isolation())
	return err
}

// isolation is the executor's backend; why bubblewrap could not run when
// the user allowed the weaker one; what the user's layer of the policy
// weakened and what the repository's asked for and did not get
// (policy.Layered).
func (h *harness) isolation() evidence.Isolation {
	return evidence.IsolationOf(h.o.Executor, h.o.Policy)
}
