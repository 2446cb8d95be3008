// Package policy is the agent's policy, enforced outside the model: what a
// tool call may write, delete and run, decided before the call runs.
//
// Layers. The user's policy is the ceiling; the repository's only narrows
// it (layer.go). The user's layer is the user's own policy file — User.File
// (cairn's --policy FILE), else UserFile ($XDG_CONFIG_HOME/cairn/policy.yaml,
// ~/.config/cairn/policy.yaml) when it exists, never a file inside the
// repository — read over Default, plus what the user allows on the command
// line (--allow-weaker-sandbox). The repository's committed
// .cairn/policy.yaml (File; policy.go documents the format) is decoded over
// that ceiling, so a key it leaves out is the user's, and Layered narrows:
//
//   - mode: enforce wins over ask;
//   - write: a path must match both layers' globs;
//   - protected, tests, commands.deny: both layers' entries;
//   - commands.allow: a rule counts only where a rule of the other layer
//     covers it (admits all it admits), so a command runs only where both
//     allow it;
//   - network: on only when both turn it on;
//   - limits: the lower of the two;
//   - sandbox.allow_weaker: the user's alone; a repository may only say
//     none;
//   - hooks.fail: refuse wins over allow.
//
// What the repository's file asked for beyond the ceiling is not granted
// and is listed in Policy.Ignored; what the user's layer allows beyond
// Default is in Policy.Weakened. The CLI prints both on stderr; the agent's
// event log (a sandbox event) and the evidence bundle (isolation) record
// them. Load is the repository's file narrowing Default alone.
//
// The task contract narrows further (ForContract): a write must match both
// the policy's write globs and the contract's scope.write, and the
// contract's protected globs join the policy's. Nothing the model reads or
// writes widens it; the repository's own instructions are material for the
// model, not policy.
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
//   - the network is off unless both layers turn it on.
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
