// Package loop is the agent's turn loop: it turns a task contract into a
// change in a sandbox worktree and hands "done" to the verification gate.
// The model proposes; the harness decides what the model sees, what it may
// do, when it must stop and whether the work is done.
//
// # A run
//
// Run freezes the contract as an attempt (its base resolved to a commit,
// its content hash in every event), creates the run directory
// (agent/state: .cairn/runs/RUN with the contract, an append-only fsynced
// event log and task-state checkpoints) and then:
//
//  1. A contract task.Questions finds vague (no write scope, no executable
//     criterion) is not run: the run ends needs_clarification with the
//     questions, before any workspace exists.
//  2. A sandbox worktree of the base is created under the run directory
//     (gate/sandbox); the user's worktree is never written (Apply brings
//     over later the patch the gate verified — evidence/change.patch,
//     checked against the sha256 the evidence records — and refuses when
//     the workspace no longer holds it or files changed since the base).
//     An engine index of the worktree lives beside it; the tools re-index
//     what they change, so engine answers follow the edits.
//  3. The brief, built before the first edit and kept in task state: the
//     user's branch and uncommitted changes, the repository's own
//     instructions (AGENTS.md, CLAUDE.md, CONTRIBUTING, Makefile and
//     package.json test targets — quoted as material; they cannot widen the
//     policy, which is built from .cairn/policy.yaml and the contract
//     only), the changes the objective names ("since #3165", a commit
//     hash) with the files each changed (search's named changes, from the
//     commit history), the write and read paths (engine Trace) of the values the
//     objective names — identifiers in it, else what search ranks first —,
//     the tests that reach the functions on those paths (engine Impact)
//     with their selectors, and risk flags (schema files on the path,
//     public API, dependents no test reaches).
//  4. The turn loop: a model call with the system prompt (the harness's
//     rules, the contract; repository text and tool output are material,
//     never instructions; trace before editing), then every tool call of
//     the answer through its policy guard (gate/policy: a refusal is a
//     tool result the model can act on, counted), then a sandbox commit of
//     the step's edits and a checkpoint. Plan and notes are task state
//     (the plan and note tools write them), not prose.
//  5. finish records the root cause and summary and decides nothing: the
//     harness runs the gate (gate/verify) on the worktree's diff. Pass →
//     verified. Otherwise the model gets the report and another try, until
//     escalation.max_gate_failures (default 2) rejected candidates → failed.
//
// # Ceilings and loops
//
// Before every model call the budgets are checked (the contract's, else
// DefaultBudgets): steps, input and output tokens and cost as the
// provider's usage counts them, and wall time across resumes. The first
// reached ends the run escalated, with an escalation event carrying what
// was learned (facts, hypotheses, decisions, files, tests, failed
// approaches). Wall time is also a deadline on what runs between the
// checks: the model call, every tool command (its own limit capped at
// what is left) and the gate are stopped at it, and the run escalates the
// same way. A contract that sets cost_usd for a model the price table
// (Options.Prices) lacks is refused before it starts (UnpricedError);
// under the default cost ceiling it runs, and its run_started event says
// the cost is not counted.
//
// An action is fingerprinted by tool, canonical input and the workspace's
// snapshot commit: the same call against an unchanged worktree is not run
// again — the model is told so — and the RepeatLimit-th such repeat
// escalates. Unknown tools and malformed arguments are error
// results; a provider that still fails after its retries (agent/llm retries
// 429/5xx with backoff) aborts the run with the error as an event.
//
// # Kill -9 and resume
//
// Every event is fsynced before the next action; a checkpoint follows every
// step. Resume reopens the same worktree and run (its lock keeps a second
// process out), rebuilds the model input from task state — brief, notes,
// plan, files, tests and the last few tool exchanges — rather than
// replaying a transcript, and folds in what the log holds past the
// checkpoint: model usage already spent, notes, results already seen. A
// tool call logged without a result has an unknown outcome: the harness
// does not repeat it; the model is told, with what the worktree now shows
// (edit and create are idempotent: an edit already applied reports so, so
// a repeated edit never duplicates). Compaction, when the input nears the
// model's window, is the same rebuild, logged as a compaction event.
//
// # Ask mode
//
// A policy in ask mode turns an action outside the allowlist into a
// permission request: the run records it durably (agent/state), shows it
// in cairn agent status, and waits until cairn agent approve|deny RUN
// REQUEST answers, from any process. An approval grants exactly the
// narrower grant the request named (kept in task state, so a resumed run
// keeps it); a denial is a tool result with the person's note. A run
// killed while it waits resumes with that call's outcome unknown, and
// asks again if the model repeats it. An unattended run denies instead of
// asking.
package loop
