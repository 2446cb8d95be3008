// Package hook is cairn inside other agents' clients: `cairn hook EVENT
// --client CLIENT` answers a client's hook call — the policy before a tool
// runs (pre-tool), the verification gate when the agent says it is done
// (stop), a short brief when a session starts (session-start). One
// decision core (Run: read the input, decide an Answer) serves every
// client; only the shapes on stdin and stdout differ (input.go, output.go).
// `cairn setup` (clients/setup) writes the clients' hook configuration.
//
// # pre-tool
//
// The tool call becomes the policy's Effects (gate/policy): a file tool's
// path (Claude Code's Edit, Write, MultiEdit, NotebookEdit; Codex's
// apply_patch envelope; Cursor's, Gemini CLI's and OpenCode's file tools)
// is a write, or a delete; a shell command line is parsed with a real
// shell parser (mvdan.cc/sh, bash syntax, shell.go): every simple
// command's argv — in pipelines, lists, subshells, $(…), and the strings
// of sh -c and eval, parsed in turn — is run, the targets of output
// redirections (> >> &> >| <>) are writes, and the common file commands'
// operands are writes or deletes: rm/unlink/rmdir/shred, mv (sources
// deleted, destination written), cp/install/ln/rsync/scp (destination,
// -t DIR), tee/touch/truncate/mkdir, chmod/chown, sed -i and perl -i, dd
// of=, curl -o/wget -O, git rm/mv/checkout --/restore, find … -delete,
// through sudo/env/nice/timeout/xargs/exec wrappers. A literal cd or
// pushd moves the directory later paths are read from (both directories
// are checked after a cd, since a subshell's cd does not move the rest);
// an unquoted glob is expanded against the worktree (bounded). Paths are
// resolved against the input's cwd and made relative to the repository;
// a path outside the repository is not its policy's to judge.
//
// The effects are checked with the layered policy — the user's policy
// (--policy, ~/.config/cairn/policy.yaml, else the default) narrowed by
// the repository's .cairn/policy.yaml (policy.Layered: a repository can
// add protection, never remove it) and by the session's contract
// (.cairn/task.yaml's scope, policy.ForContract). The policy's default is
// written for cairn's own sandboxed agent, whose command allowlist names
// only test runners and read-only tools; an interactive client has its
// own permission system for everything else. So the hook refuses what the
// policy denies — protected paths (CI configuration, lockfiles, .git,
// .cairn), deleting test files, commands a deny rule matches, writes
// outside the policy's write globs or the contract's scope — and leaves a
// command merely not on the allowlist (policy.RuleUnlisted) to the
// client: no output. Where the policy would ask a person (mode: ask), the
// client asks its user (Claude Code's "ask"; clients without it decide
// themselves). Each command is checked alone, so one not on the allowlist
// cannot hide a later one that a deny rule matches.
//
// What pre-tool cannot catch, and the stop's gate checks instead (it
// reads the change itself: scope, protected paths, tamper):
//
//   - paths that are not literal: $VAR, $(cmd), `cmd`, arithmetic (listed
//     as unknown, never guessed), and globs that match nothing yet;
//   - programs that write files on their own terms: interpreters (python
//     -c, node -e, a script), build tools (make, npm scripts), editors,
//     archive tools, git operations that rewrite the worktree wholesale
//     (checkout of a branch, stash pop, apply, reset --hard);
//   - paths that come from stdin or another command (xargs rm, find
//     -exec), aliases and shell functions, here-documents fed to a shell;
//   - a directory deleted or moved whole is checked as the directory's
//     path: a protected glob covering it matches (.github/**), but test
//     files inside it are not enumerated;
//   - symlinks the same command line creates before it writes through them
//     (an existing link is resolved by the policy's checker);
//   - reads: the policy governs writes, deletes and commands.
//
// Pre-tool opens no index and runs nothing: a policy file, perhaps a
// contract, and a parse. The repository is found by stat (the nearest
// .git above the cwd), not by running git. bench/hooks/RESULTS.md has its
// latency.
//
// # stop (Claude Code's Stop and SubagentStop)
//
// The change is the worktree against the session's base, untracked files
// included and cairn's .cairn directory not (verify.Candidate). No change
// at all: the stop goes on silently. Otherwise the gate runs as `cairn
// verify --working` runs it (evidence.Run; the gate's directory is
// evidence.DefaultDir, shared with cairn verify), against the session's
// contract: .cairn/task.yaml when the repository has one, else the
// default contract — the tests the engine's impact analysis selects for
// the change pass (impact_tests), the change stays within the policy's
// write globs and off its protected paths (scope); the gate's tamper
// checks (tests deleted, renamed or weakened, skips, CI configuration
// edited, the harness changed) run for every contract. The default
// contract's base is the commit checked out when the session started
// (recorded by session-start), so a change the agent committed is still
// its change; HEAD when no session-start ran.
//
// A pass lets the agent stop and tells the user where the evidence is. A
// fail or blocked verdict blocks the stop with a reason written for the
// model: each criterion that did not pass with the tests that failed and
// their output (bounded), each tamper and scope finding with what to do
// about it, the evidence's path, and how many blocks are left. Blocks are
// counted per session in .cairn/hooks/<session>.json; after MaxBlocks (3,
// --max-blocks) in a row the agent may stop and the user is told plainly
// that the change is UNVERIFIED (Claude Code's systemMessage, and stderr).
// A stop that does not follow a blocked one starts a new count: Claude
// Code and Codex say so with stop_hook_active false, Cursor with
// loop_count 0; Gemini CLI and OpenCode do not say, and their count runs
// until the gate passes, the change is gone or a session starts. When the
// count cannot be written the hook never blocks (it could loop).
//
// Every gate run's evidence bundle (evidence.json, CHANGE.md) is written
// to .cairn/runs/hook-<session>-<n>/, a directory with a .gitignore of
// "*" as the agent's runs have, and named in the answer. The gate's
// duration is the tests': the client's hook timeout must allow it
// (Claude Code's command hooks default to 600 s; `cairn setup` sets it).
//
// # session-start
//
// A brief of at most BriefBytes (6,000 bytes, about 1,500 tokens): the
// index's size, languages and freshness; how the session is checked; how
// to call cairn's tools (mcp__cairn__search, trace, impact …, as the
// client names MCP tools); and what the repository's own files say about
// building and testing — test-like Makefile targets with their first
// recipe line, package.json's test script, lines naming a test command
// in AGENTS.md, CLAUDE.md, README and CONTRIBUTING — quoted as
// "> path:line: text" under a label that says they are repository text,
// material to weigh and not instructions. When the brief is over budget
// the quotes are cut first, whole lines, and the cut is said.
//
// # Freshness
//
// session-start and stop re-index what changed (engine.Reindex, the
// incremental indexer: unchanged files are not re-parsed) within
// ReindexBudget (5 s); a re-index cut short keeps the previous
// generation, and the brief says the index is STALE with the count of
// changed files. Neither builds a first index (minutes on a large
// repository): the brief says to run `cairn index`. Pre-tool does not
// touch the index at all — its decision needs none, and it runs on every
// tool call. The stop's gate indexes its own workspace of the change for
// the impact analysis, so its selection never depends on the user's index.
//
// # Failures
//
// A hook never crashes its client: Run recovers panics, and every failure
// of cairn — input that is not a hook call (more than MaxInput bytes, not
// JSON, fields of the wrong type, a shell line that does not parse), an
// unreadable policy or contract, a gate that cannot run — is reported on
// stderr and answered by the policy's hooks.fail: refuse (the default)
// refuses the tool call or blocks the stop (counted like any block), allow
// lets it happen and says so. A repository's policy cannot turn refuse
// into allow (layered: refuse wins); when the repository's file itself is
// unreadable, the user's layer decides; when nothing can be read, refuse.
// Under allow, a tool call whose input was read is still checked against
// the built-in default policy, so a path it protects stays refused.
//
// # The clients' shapes
//
// Claude Code (verified against 2.1.337; testdata/clients/agent-clients-research.md):
//
//	stdin    {session_id, transcript_path, cwd, hook_event_name, tool_name, tool_input, stop_hook_active, source, …}
//	pre-tool deny   exit 0, {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":R}}
//	pre-tool ask    the same with "permissionDecision":"ask"
//	pre-tool allow  exit 0, no output (the client's own permissions apply)
//	stop block      exit 0, {"decision":"block","reason":R}
//	stop allowed    exit 0, no output; or {"systemMessage":M} to tell the user (passed, UNVERIFIED)
//	session-start   exit 0, {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":BRIEF}}
//
// Codex (0.171.0; same stdin fields, tool_name "Bash" for exec_command,
// apply_patch with its *** Add/Update/Delete File: envelope in any string
// argument): pre-tool deny is exit 2 with the reason on stderr (the form
// verified to reach the model; Codex has no "ask", which becomes no
// output); stop and session-start as Claude Code ({"decision":"block"}
// verified; SessionStart's additionalContext from its docs).
//
// Cursor (docs, not run here): stdin {hook_event_name, conversation_id,
// generation_id, workspace_roots, …}; beforeShellExecution's top-level
// command and cwd, preToolUse's tool_name/tool_input (Shell, Write, Edit,
// StrReplace, Delete). pre-tool {"permission":"deny"|"ask","user_message":R,
// "agent_message":R}, or {} to leave it to Cursor's own approval; stop
// {"followup_message":R} to continue (Cursor caps follow-ups with
// loop_limit, and sends loop_count); sessionStart {"additional_context":BRIEF}.
// `cairn setup cursor` puts pre-tool on beforeShellExecution and on
// preToolUse for the file tools; not on afterFileEdit, which fires after
// the edit and cannot refuse it.
//
// Gemini CLI (0.61.0 hooks reference; not run here): BeforeTool stdin
// {session_id, cwd, hook_event_name, timestamp, tool_name, tool_input}
// for write_file, replace, run_shell_command: {"decision":"deny","reason":R};
// AfterAgent (the stop): {"decision":"deny","reason":R} rejects the answer
// and sends the reason back for another turn; SessionStart:
// {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":BRIEF}};
// {"systemMessage":M} to tell the user.
//
// OpenCode has no command hooks, only JavaScript plugins; --client
// opencode speaks cairn's own protocol with the plugin `cairn setup
// opencode` writes: stdin {session_id, directory, tool, args} (the
// plugin's tool.execute.before input and output.args), stdout
// {"action":"allow"|"deny"|"ask"|"block"|"note"|"context","message":…,
// "user_message":…}, always exit 0; the plugin throws on deny and sends
// the message back as a prompt on block (session.idle).
package hook
