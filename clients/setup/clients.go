package setup

import (
	"os"
	"path/filepath"
	"strings"
)

// ServerName is the name cairn's MCP server has in every client: Claude
// Code and Codex then name its tools mcp__cairn__search, …
const ServerName = "cairn"

// A profile is one client: the files setup edits in a scope, what the user
// must still do, and how to tell the client is installed.
type profile struct {
	files func(Options) []file
	notes func(Options) []string
	// bins are the client's commands on PATH; dirs its configuration
	// directories: either one existing means the client is there.
	bins []string
	dirs func(home string, getenv func(string) string) []string
}

// file is one configuration file and how setup edits it: apply returns
// the new content (nil to leave an absent file absent).
type file struct {
	path  string
	role  string
	apply func(old []byte, opts Options) ([]byte, error)
}

var profiles = map[Client]profile{
	ClaudeCode: {
		files: claudeFiles,
		bins:  []string{"claude"},
		dirs: func(home string, getenv func(string) string) []string {
			return []string{claudeDir(Options{Home: home, Getenv: getenv})}
		},
		notes: func(o Options) []string {
			if o.Scope == Project {
				return []string{"Claude Code asks once, in an interactive session, before it starts a project's .mcp.json servers (claude mcp list shows them pending until then)."}
			}
			return nil
		},
	},
	Codex: {
		files: codexFiles,
		bins:  []string{"codex"},
		dirs: func(home string, getenv func(string) string) []string {
			return []string{codexHome(Options{Home: home, Getenv: getenv})}
		},
		notes: func(o Options) []string {
			n := []string{"Codex runs hooks only once you trust them: start codex and review them with /hooks (trust is per hook; re-trust after cairn setup changes them)."}
			if o.Scope == Project {
				n = append(n, "Codex reads a project's .codex/ only when the project is trusted.")
			}
			return n
		},
	},
	Cursor: {
		files: cursorFiles,
		bins:  []string{"cursor", "cursor-agent"},
		dirs: func(home string, _ func(string) string) []string {
			return []string{filepath.Join(home, ".cursor")}
		},
		notes: func(Options) []string { return nil },
	},
	GeminiCLI: {
		files: geminiFiles,
		bins:  []string{"gemini"},
		dirs: func(home string, _ func(string) string) []string {
			return []string{filepath.Join(home, ".gemini")}
		},
		notes: func(o Options) []string {
			return []string{"Gemini CLI starts MCP servers only in a trusted folder (gemini trust, or the folder-trust prompt)."}
		},
	},
	OpenCode: {
		files: opencodeFiles,
		bins:  []string{"opencode"},
		dirs: func(home string, getenv func(string) string) []string {
			return []string{opencodeDir(Options{Home: home, Getenv: getenv})}
		},
		notes: func(Options) []string {
			return []string{"OpenCode takes hooks only as JavaScript/TypeScript plugins (.opencode/plugins/), not from a configuration file: cairn setup wrote the MCP server only."}
		},
	},
}

// hookKind names the cairn hook commands (cairn hook KIND).
const (
	hookPreTool      = "pre-tool"
	hookStop         = "stop"
	hookSessionStart = "session-start"
)

// command is a cairn command line as a shell runs it: the binary's
// absolute path, then args, then --repo for the user scope.
func command(o Options, args ...string) string {
	parts := []string{shellQuote(o.Binary)}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	if o.Scope == User {
		parts = append(parts, "--repo", shellQuote(o.Repo))
	}
	return strings.Join(parts, " ")
}

func hookCommand(o Options, kind string) string {
	return command(o, "hook", kind, "--client", o.Client.String())
}

// serverArgs are the arguments of `cairn serve mcp`: the user scope names
// the repository, the project scope names it as projectRepo, a form the
// client resolves in the project ("." when it starts servers in the
// project's directory).
func serverArgs(o Options, projectRepo string) []string {
	repo := projectRepo
	if o.Scope == User {
		repo = o.Repo
	}
	return []string{"serve", "mcp", "--repo", repo}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isCairnCommand says whether a hook's command line runs cairn's hook:
// its program is named cairn (or is this binary) and its first argument
// is "hook". A user may have moved the binary or added flags; the entry
// is still cairn's.
func isCairnCommand(cmd, binary string) bool {
	prog, rest := firstWord(strings.TrimSpace(cmd))
	arg, _ := firstWord(strings.TrimSpace(rest))
	base := filepath.Base(prog)
	return arg == "hook" && (base == "cairn" || prog == binary || base == filepath.Base(binary))
}

// firstWord splits off a command line's first word, unquoting a word in
// single or double quotes (enough for the commands setup writes and their
// hand-edited forms).
func firstWord(s string) (word, rest string) {
	if s == "" {
		return "", ""
	}
	if q := s[0]; q == '\'' || q == '"' {
		if i := strings.IndexByte(s[1:], q); i >= 0 {
			return s[1 : 1+i], s[2+i:]
		}
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// Claude Code: MCP servers in ~/.claude.json (user) or .mcp.json
// (project); hooks in ~/.claude/settings.json or .claude/settings.json.
// CLAUDE_CONFIG_DIR moves both user files.

func claudeDir(o Options) string {
	if d := o.env("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(o.Home, ".claude")
}

func claudeFiles(o Options) []file {
	mcp, settings := filepath.Join(o.Repo, ".mcp.json"), filepath.Join(o.Repo, ".claude", "settings.json")
	if o.Scope == User {
		mcp, settings = filepath.Join(o.Home, ".claude.json"), filepath.Join(claudeDir(o), "settings.json")
		if d := o.env("CLAUDE_CONFIG_DIR"); d != "" {
			mcp = filepath.Join(d, ".claude.json")
		}
	}
	type stdio struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return []file{
		jsonFile(mcp, "MCP server", strictJSON, jsonEdit{
			server: &server{container: "mcpServers", value: stdio{"stdio", o.Binary, serverArgs(o, ".")}},
		}),
		jsonFile(settings, "hooks", strictJSON, jsonEdit{hooks: &hookSet{style: grouped, hooks: []hook{
			{event: "PreToolUse", matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash", command: hookCommand(o, hookPreTool), timeout: 60},
			{event: "Stop", command: hookCommand(o, hookStop), timeout: 900},
			{event: "SubagentStop", command: hookCommand(o, hookStop), timeout: 900},
			{event: "SessionStart", command: hookCommand(o, hookSessionStart), timeout: 60},
		}}}),
	}
}

// Codex: MCP servers in config.toml's [mcp_servers.cairn], hooks in
// hooks.json (the same shape as Claude Code's), both in $CODEX_HOME
// (~/.codex) or the project's .codex/.

func codexHome(o Options) string {
	if d := o.env("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(o.Home, ".codex")
}

// codexServer is [mcp_servers.cairn]. cairn's tools only read, so they
// are approved by default: codex exec's approval policy "never" otherwise
// refuses every MCP call.
type codexServer struct {
	Command  string   `toml:"command"`
	Args     []string `toml:"args"`
	Approval string   `toml:"default_tools_approval_mode"`
}

func codexFiles(o Options) []file {
	dir := filepath.Join(o.Repo, ".codex")
	if o.Scope == User {
		dir = codexHome(o)
	}
	return []file{
		tomlFile(filepath.Join(dir, "config.toml"), "MCP server", codexServer{o.Binary, serverArgs(o, "."), "approve"}),
		jsonFile(filepath.Join(dir, "hooks.json"), "hooks", strictJSON, jsonEdit{hooks: &hookSet{style: grouped, hooks: []hook{
			// Codex's PreToolUse sees shell commands as Bash and
			// apply_patch (matched also as Edit and Write).
			{event: "PreToolUse", matcher: "Bash|apply_patch|Edit|Write", command: hookCommand(o, hookPreTool), timeout: 60},
			{event: "Stop", command: hookCommand(o, hookStop), timeout: 900},
			{event: "SubagentStop", command: hookCommand(o, hookStop), timeout: 900},
			{event: "SessionStart", command: hookCommand(o, hookSessionStart), timeout: 60},
		}}}),
	}
}

// Cursor: mcp.json and hooks.json in ~/.cursor or the project's .cursor/.
// A project's mcp.json names the project as ${workspaceFolder}: Cursor
// does not start servers in the project's directory.

// cursorFileTools are the file tools of Cursor's agent that its
// preToolUse hook is matched to (Shell goes through beforeShellExecution,
// which gives the command line itself).
const cursorFileTools = "Write|Edit|StrReplace|Delete"

func cursorFiles(o Options) []file {
	dir := filepath.Join(o.Repo, ".cursor")
	if o.Scope == User {
		dir = filepath.Join(o.Home, ".cursor")
	}
	type stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return []file{
		jsonFile(filepath.Join(dir, "mcp.json"), "MCP server", commentedJSON, jsonEdit{
			server: &server{container: "mcpServers", value: stdio{o.Binary, serverArgs(o, "${workspaceFolder}")}},
		}),
		jsonFile(filepath.Join(dir, "hooks.json"), "hooks", commentedJSON, jsonEdit{
			create: []createMember{{"version", 1}},
			hooks: &hookSet{style: flat, hooks: []hook{
				{event: "beforeShellExecution", command: hookCommand(o, hookPreTool)},
				// file edits: preToolUse, before the tool runs (afterFileEdit
				// fires after the edit and cannot refuse it)
				{event: "preToolUse", matcher: cursorFileTools, command: hookCommand(o, hookPreTool)},
				{event: "stop", command: hookCommand(o, hookStop)},
				{event: "sessionStart", command: hookCommand(o, hookSessionStart)},
			}},
		}),
	}
}

// Gemini CLI: one settings.json (comments allowed) in ~/.gemini or the
// project's .gemini/, holding mcpServers and hooks (timeouts in ms).

func geminiFiles(o Options) []file {
	path := filepath.Join(o.Repo, ".gemini", "settings.json")
	if o.Scope == User {
		path = filepath.Join(o.Home, ".gemini", "settings.json")
	}
	type stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return []file{
		jsonFile(path, "MCP server and hooks", commentedJSON, jsonEdit{
			server: &server{container: "mcpServers", value: stdio{o.Binary, serverArgs(o, ".")}},
			hooks: &hookSet{style: grouped, hooks: []hook{
				{event: "BeforeTool", matcher: "write_file|replace|run_shell_command", command: hookCommand(o, hookPreTool), timeout: 60_000},
				{event: "AfterAgent", command: hookCommand(o, hookStop), timeout: 900_000},
				{event: "SessionStart", command: hookCommand(o, hookSessionStart), timeout: 60_000},
			}},
		}),
	}
}

// OpenCode: the mcp section of opencode.json or opencode.jsonc (whichever
// exists, comments allowed) in $XDG_CONFIG_HOME/opencode or the project's
// root. Its hooks are code (plugins), so setup writes none.

func opencodeDir(o Options) string {
	base := o.env("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(o.Home, ".config")
	}
	return filepath.Join(base, "opencode")
}

func opencodeFiles(o Options) []file {
	dir := o.Repo
	if o.Scope == User {
		dir = opencodeDir(o)
	}
	path := filepath.Join(dir, "opencode.json")
	if _, err := os.Stat(filepath.Join(dir, "opencode.jsonc")); err == nil {
		path = filepath.Join(dir, "opencode.jsonc")
	}
	type local struct {
		Type    string   `json:"type"`
		Command []string `json:"command"`
		Enabled bool     `json:"enabled"`
	}
	return []file{
		jsonFile(path, "MCP server", commentedJSON, jsonEdit{
			create: []createMember{{"$schema", "https://opencode.ai/config.json"}},
			server: &server{container: "mcp", value: local{"local", append([]string{o.Binary}, serverArgs(o, ".")...), true}},
		}),
	}
}

// Found is a client setup found on this machine, and how.
type Found struct {
	Client Client
	How    []string // "claude on PATH", "/home/u/.claude exists"
}

// Detect lists the clients installed here: a command on PATH or a
// configuration directory that exists.
func Detect(home string, getenv func(string) string, lookPath func(string) (string, error)) []Found {
	var out []Found
	for _, c := range Clients() {
		p := profiles[c]
		f := Found{Client: c}
		for _, b := range p.bins {
			if path, err := lookPath(b); err == nil {
				f.How = append(f.How, b+" on PATH ("+path+")")
			}
		}
		for _, d := range p.dirs(home, getenv) {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				f.How = append(f.How, d+" exists")
			}
		}
		if len(f.How) > 0 {
			out = append(out, f)
		}
	}
	return out
}
