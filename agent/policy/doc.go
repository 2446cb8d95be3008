// Package policy is the agent's policy, enforced outside the model: what a
// tool call may write, delete and run, decided before the call runs.
//
// A Policy comes from the repository's .cairn/policy.yaml (policy.go
// documents the format), or Default without one, and is narrowed per task
// by ForContract: a write must match both the policy's write globs and the
// contract's scope.write, and the contract's protected globs join the
// policy's. Nothing the model reads or writes widens it; the repository's
// own instructions are material for the model, not policy.
//
// Decisions. A Checker decides a call by the Effects it declares — the
// paths it writes and deletes, the argv it runs, whether it needs the
// network — and returns a Decision: allow; deny, with a reason written for
// the model (what was refused and what to do instead); or ask, with the
// intent a person needs to decide (why, what it affects, and a narrower
// grant when there is one: the exact paths or the exact argv rather than a
// glob). The checks, in order, for every effect; a deny anywhere outranks an
// ask:
//
//   - paths: relative to the workspace root — absolute paths, '..' that
//     climbs out, and symlinks anywhere along the path that lead out or into
//     .git are refused; a path through a symlink inside the workspace is
//     checked as given and as resolved, so a link launders nothing;
//   - protected globs (CI configuration, lockfiles, .git, .cairn, the
//     contract's protected paths): never written or deleted;
//   - test globs: test files may be added to and changed, never deleted —
//     whether a change weakens a test (fewer assertions, added skips) is
//     the verification gate's syntax-level tamper check, not a path rule;
//   - write globs and the contract's scope: outside them is an ask (Mode
//     ask) or a deny (Mode enforce);
//   - commands: a deny rule anywhere refuses; an allow rule (an argv prefix,
//     or an exact argv, with simple '*'/'?' patterns past argv[0]) admits;
//     anything else is an ask or a deny. The default allows the Go, pytest
//     and node test runners and a few read-only tools, and denies
//     go test/build/vet with -exec, -toolexec or -vettool;
//   - the network is off unless the policy turns it on.
//
// An unattended checker denies what would ask, keeping the intent in the
// decision for the report. Grants (Checker.Grant) add what a person
// approved, exactly as named; they never reach past a protected path, a
// deny rule or the workspace. Every deny is counted (Violations).
//
// Enforcement is a decorator, as STYLE.md asks of cross-cutting policy:
// Guard wraps any tool that declares its effects (Declarer) in a Tool of
// the same name that checks each call before it runs, records the decision
// through an Auditor in call order (the agent's state package writes it to
// the event log; an audit failure is a broken environment and the call does
// not run), and then runs the tool, answers the model with the refusal as
// an error result, or returns a *PermissionRequest for the loop to pause on.
// A tool that cannot say what it will do cannot be guarded: Declarer is
// required by the type, not checked at run time.
package policy
