// Package tools is the agent's typed tools: the engine's questions on the
// workspace's own index, and reading, editing and running in the sandbox.
//
// New(Env) returns them in a stable order, with these names:
//
//	search {query, limit}          definition {name}        references {name, role}
//	callers {name, depth}          callees {name, depth}    trace {target}
//	impact {target | diff}         context {task, budget}
//	read {path, start_line, end_line}  list {path}
//	edit {path, old, new}          create {path, content}
//	shell {argv, timeout_s}        run_tests {selector}     diff {}   revert {path}
//	note {kind, text}              plan {steps}             finish {root_cause, summary}
//
// # Input
//
// Every tool has a JSON Schema (an object, additionalProperties false, its
// required fields listed) and decodes its input by the same field list: an
// input that is not one object, has a field the schema does not name, lacks
// a required field (or gives it null) or has a value of the wrong type is an
// error result saying what to send. Inputs are bounded (2 MiB a call, 4 KiB
// a path, 8 MiB a file); NUL bytes in paths and argv are refused. A panic
// in a tool is recovered at the call (the isolation boundary) and returned
// as a Go error: a bug is not the model's to fix.
//
// # Two error channels
//
// As STYLE.md asks: a mistake the model can fix (a path outside the
// workspace, an ambiguous edit, an unknown name, a selector no runner
// reads) is a policy.Result with IsError and text that says what to do
// instead; a broken environment (the engine cannot take a snapshot, git or
// the executor fails, the recorder cannot record) is a Go error that ends
// the turn. Engine errors are sorted by category: not_found, ambiguous
// (with its candidates and their symbol_ids), invalid_argument and
// outside_repository are results; the rest are Go errors.
//
// # Effects and the policy
//
// Every tool is a policy.Declarer, so the loop wraps each in policy.Guard:
// edit and create declare Writes [path]; revert Writes [path] when the base
// has it, Deletes [path] when files under it are new; shell Run [argv];
// run_tests Run [the runner's planned argv] (verify.RunnerFor and Plan, the
// gate's own runners, so the policy sees the real command); the others
// declare nothing. Paths are checked again when a tool runs, by the
// policy's own rules (policy.Checker.Resolve on a checker of the default
// policy, used for its path rules only): relative, inside the workspace,
// not git's metadata, not through a symbolic link that leads out; files are
// then opened at the path the link resolves to inside the workspace.
//
// # The engine tools
//
// search, definition, references, callers, callees, trace, impact and
// build_context are the catalogue's tools (engine/catalog), wrapped thinly
// (EngineTools): the same names, descriptions, input schemas, bounds,
// paging (cursor, next_cursor) and answers as the MCP tools and the HTTP
// API, each on a snapshot acquired for the call; the wrapper only decodes
// the arguments strictly with errors written for the model (fieldsOf reads
// them from the catalogue's input schema) and maps the engine's error
// categories to error results. A list is paged and an analysis (trace,
// impact) trimmed by structure to catalog.MaxBytes, the model's result
// cap, omitted saying what each list lost. The loop bounds every tool
// result with catalog.Fit at the same catalog.MaxBytes: JSON is trimmed by
// structure (the largest lists halved, counted under omitted_by_cap, then
// the longest strings shortened with a marker), so it reaches the model
// whole and parseable; only plain text (command output) is cut by bytes,
// saying how much. impact's working: true is the engine's Diff against the
// workspace's base (catalog.Options.Base; tracked files: a new file is not
// in the git diff until a snapshot commits it). The arguments were renamed
// with the move to the catalogue (name → symbol, impact's target → symbol
// and diff: true → working: true, context → build_context); no alias is
// kept, as the model reads the schema it is given.
//
// Freshness: every tool that changes files (edit, create, revert, and shell
// for the files a command changed, found by comparing Workspace.Changed with
// each file's size and modification time before and after) re-indexes those
// paths through Engine.Reindex before it answers, and Reindex makes the new
// generation current, so the next engine answer sees the change. The same
// tools tell the Recorder (Modified); read tells it Read, run_tests Tested.
//
// # Files
//
// read returns at most Env.MaxRead lines (default and at most
// engine.MaxSpanLines, 400) and engine.MaxSpanBytes, numbered as the
// engine's spans are, redacted by internal/redact as the engine's spans are
// (a file of a parsed language as code), and labelled material — repository
// text is data for the model, never instructions. It reads the worktree as
// it is, indexed or not; directories point to list, binary files (a NUL
// byte in the first 8000 bytes, or not UTF-8) are refused.
//
// edit replaces one exact occurrence of old with new. Occurrences are
// counted overlapping; one that sits inside an occurrence of new at old's
// place in new is already applied. So: one fresh occurrence and none
// applied is edited; none fresh but new present is already_applied, a
// success that changes nothing (a resumed run may re-issue an edit whose
// outcome it did not see); several fresh ones are refused with their line
// numbers; one fresh and one applied is refused (applying it again could
// double the change); none at all is refused with the closest region — the
// window of as many lines as old whose text, whitespace aside, shares most
// character bigrams with old (Dice's coefficient), named as a whitespace
// difference when that is all it is. The result is parsed with tree-sitter
// (Go, Python, TypeScript, TSX, JavaScript): more ERROR or MISSING nodes
// than the original had and the edit is not kept, refused with the lines.
// create refuses an existing path, makes the parents and checks the syntax
// likewise. Both write atomically (a temporary file beside the target,
// fsynced, renamed over it), keeping an edited file's mode and owner; new
// files and directories belong to the executor's Owner, so the sandbox's
// user can still write what the harness wrote.
//
// # Commands
//
// shell runs argv (never a shell string) through Executor.Run: timeout_s
// is capped by Env.Limits.Wall (default sandbox.DefaultLimits.Wall); stdout
// and stderr are redacted, then each cut to the last MaxOutput/2 bytes with
// the counts of what was produced; the exit code, a time-out and the
// backend are in the answer. run_tests plans the selector with the gate's
// runner, runs it, and parses it: counts of passed, failed and skipped, the
// failing tests by name, every test that did not pass with 2 KiB of its
// output, packages that did not build with the output's tail, then the
// passing tests while the answer stays within 2×MaxOutput. It runs once:
// reruns, flakiness and pre-existing failures are the gate's to judge.
//
// diff is Workspace.Changed and Workspace.Diff, redacted and cut to
// MaxOutput bytes; revert is Workspace.Revert of a file or a directory.
//
// # Task state
//
// note, plan and finish hand what the model states to the Recorder (the
// loop's task state), bounded and checked (kinds fact, hypothesis,
// decision, question, not_to_do). finish decides nothing: the gate does.
//
// # Known limits
//
// The engine runs git (impact's diff, revisions) as the harness's user in a
// worktree whose files belong to the sandbox's user when the harness is
// root; git refuses such a repository ("dubious ownership") unless it is
// named a safe directory, so sandbox.Create and Open name the workspace
// to internal/gitrepo.Trust, which runs git there with that setting and with
// hooks and fsmonitor off. shell notices
// a command's changes by size and modification time, so a rewrite within
// the same timestamp granularity and size is missed (the index then lags
// until the next edit of the file).
package tools
