// Package e2e drives the real agent clients cairn sets itself up in — the
// Claude Code native binary and the Codex CLI — against cairn's scripted
// model server (agent/llm/llmtest), end to end: the client is the shipped
// binary (pinned in testdata/agents, installed by .ci/deps.sh), it talks
// HTTP to the server on 127.0.0.1, and it starts cairn as its MCP server
// and runs cairn's hooks as any user's session would. Nothing of the
// client is stubbed; only the model is scripted, each turn a function of
// the request the client sent, so a turn can assert on what the client
// carried back (a tool's result, a hook's reason).
//
// Isolation: every session gets a scratch HOME (the client's config files
// are written there), a scratch git repository as its working directory,
// and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, with which Claude Code
// contacts no host but the base URL (testdata/clients/agent-clients-research.md
// §1a). In -p mode its stdin is /dev/null, else it waits for input.
//
// Claude Code 2.1.x defers MCP tools behind its ToolSearch tool by default;
// the sessions set ENABLE_TOOL_SEARCH=false so cairn's tools are declared
// to the model directly and a scripted turn can call mcp__cairn__trace.
//
// The tests, in the order issue 51 asks for them:
//
//   - TestClaudeCodeTraceOverMCP: `cairn setup claude-code --user` into a
//     HOME that already holds another MCP server and another hook; the
//     model calls mcp__cairn__trace and the tool_result Claude Code sends
//     back holds the write (Cart.Add) and the read (Receipt); the session
//     changed nothing, so cairn's stop hook lets it end (two model calls,
//     no third); then `setup --remove` leaves only the foreign entries.
//   - TestCodexTraceOverMCP: the same trace through `codex exec` on the
//     Responses wire (a model_providers entry, wire_api = "responses";
//     `cairn setup codex --user` writes the MCP entry), cairn's tools sent
//     to the model as the namespace mcp__cairn.
//   - TestClaudeCodePreToolRefusesProtectedEdit: an Edit of
//     .github/workflows/ci.yml is refused by cairn's PreToolUse hook before
//     it runs; the file is unchanged and the error result carries the reason.
//   - TestClaudeCodeStopGate, with .cairn/task.yaml and with none (the
//     default contract): a weakened test and "done" — the stop is blocked
//     and the next request carries the tamper finding; the test restored,
//     the bug fixed, a regression test added and "done" — the gate passes,
//     the session ends with the fix, and both runs' evidence bundles are
//     under .cairn/runs.
//
// Every Claude Code session runs with the hooks `cairn setup` wrote
// (pre-tool, stop, session-start), beside the foreign hook. The stop
// gate's directory (evidence.DefaultDir under XDG_CACHE_HOME) is put under
// one root the tests share, and its Go build cache seeded from a previous
// session's (warmGate): a cold cache compiles the testing packages in the
// sandbox for each of the gate's workspaces.
//
// The binaries are large (≈430 MB each) and are not needed to build cairn:
// when they are missing the tests skip, except under `make test`
// (CAIRN_TEST_PG_REQUIRED set), where a missing client fails them.
package e2e
