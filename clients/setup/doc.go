// Package setup writes cairn into an agent client's configuration: its MCP
// server (`cairn serve mcp`, named "cairn", so Claude Code and Codex call
// its tools mcp__cairn__search, …) and, where the client takes hooks from a
// file, the hooks that run `cairn hook pre-tool|stop|session-start --client
// CLIENT`. `cairn setup` (cmd/cairn/setup.go) is its command line.
//
// # Files, by client and scope
//
// The user scope writes in the user's home and names the repository
// (--repo ABS) in every command; the project scope writes in the
// repository and lets the client name it (see the per-client notes).
//
//	client       scope    file                                  format      cairn's entries
//	claude-code  user     ~/.claude.json                        JSON        mcpServers.cairn
//	             user     ~/.claude/settings.json               JSON        hooks: PreToolUse, Stop, SubagentStop, SessionStart
//	             project  .mcp.json                             JSON        mcpServers.cairn (--repo .)
//	             project  .claude/settings.json                 JSON        hooks, as above
//	codex        user     $CODEX_HOME/config.toml (~/.codex)    TOML        [mcp_servers.cairn]
//	             user     $CODEX_HOME/hooks.json                JSON        hooks: PreToolUse, Stop, SubagentStop, SessionStart
//	             project  .codex/config.toml, .codex/hooks.json as above
//	cursor       user     ~/.cursor/mcp.json                    JSONC       mcpServers.cairn
//	             user     ~/.cursor/hooks.json                  JSONC       hooks: beforeShellExecution, preToolUse (Write|Edit|StrReplace|Delete), stop, sessionStart
//	             project  .cursor/mcp.json (--repo ${workspaceFolder}), .cursor/hooks.json
//	gemini-cli   user     ~/.gemini/settings.json               JSONC       mcpServers.cairn; hooks: BeforeTool, AfterAgent, SessionStart
//	             project  .gemini/settings.json                 JSONC       as above (--repo .)
//	opencode     user     $XDG_CONFIG_HOME/opencode/opencode.json[c]        mcp.cairn (no hooks: OpenCode's are JS plugins)
//	             project  opencode.json[c]                      JSONC       mcp.cairn (--repo .)
//
// CLAUDE_CONFIG_DIR moves Claude Code's user files (.claude.json and
// settings.json both in it); CODEX_HOME and XDG_CONFIG_HOME move Codex's
// and OpenCode's. An existing opencode.jsonc is preferred to opencode.json.
//
// Cursor's file edits are checked by preToolUse, matched to its file
// tools, before they run: Cursor has no beforeFileEdit, and afterFileEdit
// fires after the edit is made and cannot refuse it (a cairn pre-tool
// hook an earlier setup put there is taken out). Shell commands go
// through beforeShellExecution, which gives the command line itself.
// Whatever no hook refused — an edit Cursor's preToolUse does not see —
// is checked by the stop hook's gate, which reads the change itself.
// (Cursor is set up from its documentation, not run here.)
//
// Hook timeouts are generous for the stop hook, which may run `cairn
// verify`: 900 s (Claude Code, Codex: seconds) or 900000 ms (Gemini CLI);
// Cursor's hooks get the client's default (its unit is not documented
// consistently).
//
// # Merging
//
// Setup edits the text, never a re-encoding of the whole file: every byte
// outside cairn's entries stays as it was, comments included.
//
//   - JSON (and JSON with comments) is parsed with tailscale/hujson, whose
//     syntax tree keeps all whitespace and comments; setup appends,
//     replaces or removes members and array elements in that tree,
//     indenting what it inserts like its neighbours, and packs it back.
//     Files a plain JSON parser reads (Claude Code's, Codex's hooks.json)
//     are refused when they hold comments or trailing commas.
//   - TOML (Codex's config.toml): go-toml's parser gives each top-level
//     expression's byte range; setup deletes the lines that define
//     mcp_servers.cairn and appends one [mcp_servers.cairn] table.
//
// After an edit the file is read back and compared with the original with
// cairn's entries taken out of both: if anything else differs, nothing is
// written (a guard against an editing mistake, not an expected path).
//
// # What is cairn's
//
// The MCP server named "cairn" in the client's server map, whatever it
// runs. A hook handler whose command's program is named cairn (or is this
// binary) and whose first argument is "hook" — so an entry moved to
// another binary path or edited by hand is still recognised, updated and
// removed. Setup converges: a run puts cairn's entries exactly as this
// version writes them (replacing a hand-edited one in place for the
// server; re-adding hooks at the end of their event's list when they
// differ); a second run finds them equal and changes nothing, byte for
// byte, and writes no backup. --remove takes out cairn's server, cairn's
// handlers, the groups and event lists that become empty by it, and the
// containers ("mcpServers", "hooks") left empty by it.
//
// # Writing
//
// Make reads and plans; Plan.Apply writes. Before changing an existing
// file Apply copies it to FILE.cairn-backup-TIMESTAMP; it writes aside and
// renames (through a symbolic link to its target), keeps the file's mode,
// and refuses a file that changed since Make read it (Claude Code rewrites
// ~/.claude.json while it runs). A malformed file is a *ConfigError naming
// the file, line and column, and nothing is written.
package setup
