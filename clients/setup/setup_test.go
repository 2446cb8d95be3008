package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"

	"github.com/cairn-dev/cairn/internal/must"
)

const testBinary = "/opt/cairn/bin/cairn"

// fixtures are existing configurations, one per file the client's profile
// edits (in its order), holding another MCP server, another hook,
// unrelated settings and, where the format has them, comments.
var fixtures = map[Client][]string{
	ClaudeCode: {
		`{
    "numStartups": 3,
    "mcpServers": {
        "other": {
            "type": "stdio",
            "command": "other-server",
            "args": []
        }
    },
    "projects": {}
}
`,
		`{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo other"}]}
    ]
  }
}
`},
	Codex: {
		`# my codex config
model = "gpt-5"

[mcp_servers.other]
command = "other-server" # trailing comment
args = ["--x"]

[mcp_servers.other.env]
KEY = "v"

# profiles below
[profiles.fast]
model = "gpt-5-mini"
`,
		`{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "echo done"}
        ]
      }
    ]
  }
}
`},
	Cursor: {
		`{
  // my servers
  "mcpServers": {
    "other": {"command": "other-server", "args": []},
  }
}
`,
		`{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      {"command": "./audit.sh"}
    ]
  }
}
`},
	GeminiCLI: {
		`{
  // the look
  "ui": {"theme": "GitHub"},
  "mcpServers": {
    "other": {"command": "other-server"} // keep me
  },
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "echo other", "timeout": 1000}]}
    ]
  }
}
`},
	OpenCode: {
		`{
  "$schema": "https://opencode.ai/config.json",
  // a theme
  "theme": "tokyonight",
  "mcp": {
    "other": {"type": "local", "command": ["other-server"], "enabled": true}
  }
}
`},
}

type env struct {
	home, repo string
	vars       map[string]string
}

func newEnv(t *testing.T) env {
	t.Helper()
	e := env{home: t.TempDir(), repo: t.TempDir(), vars: map[string]string{}}
	t.Setenv("HOME", e.home)
	return e
}

func (e env) opts(c Client, s Scope) Options {
	return Options{Client: c, Scope: s, Repo: e.repo, Home: e.home, Binary: testBinary, Getenv: func(k string) string { return e.vars[k] }}
}

// writeFixtures puts the client's fixtures where the scope's files are
// and returns their paths.
func writeFixtures(t *testing.T, o Options) []string {
	t.Helper()
	var paths []string
	for i, f := range profiles[o.Client].files(o) {
		path := f.path
		if o.Client == OpenCode {
			path += "c" // opencode.jsonc: the one with comments
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(fixtures[o.Client][i]), 0o640); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

func apply(t *testing.T, o Options) (*Plan, []string) {
	t.Helper()
	p, err := Make(o)
	if err != nil {
		t.Fatalf("Make(%v %v remove=%v): %v", o.Client, o.Scope, o.Remove, err)
	}
	backups, err := p.Apply(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return p, backups
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// linesKept checks that every line of old is a line of new, in order:
// setup only inserted lines (and commas after the items it appended to).
func linesKept(t *testing.T, path, old, new string) {
	t.Helper()
	got := strings.Split(new, "\n")
	j := 0
	for _, l := range strings.Split(old, "\n") {
		// (a last item gains the comma that separates it from cairn's)
		for j < len(got) && got[j] != l && got[j] != l+"," && strings.Replace(got[j], "}, //", "} //", 1) != l {
			j++
		}
		if j == len(got) {
			t.Errorf("%s: line %q of the original is gone or moved:\n%s", path, l, new)
			return
		}
		j++
	}
}

// TestSetupMerge: per client and scope, setup merges into an existing
// configuration keeping every original line, writes one backup per
// changed file, a second run changes nothing (byte-identical, no new
// backup), and --remove gives back the original file byte for byte.
func TestSetupMerge(t *testing.T) {
	for _, c := range Clients() {
		for _, s := range []Scope{Project, User} {
			t.Run(c.String()+"/"+s.String(), func(t *testing.T) {
				e := newEnv(t)
				o := e.opts(c, s)
				paths := writeFixtures(t, o)
				p, backups := apply(t, o)
				if len(backups) != len(paths) {
					t.Errorf("backups %v, want one per file %v", backups, paths)
				}
				for i, path := range paths {
					got := read(t, path)
					linesKept(t, path, fixtures[c][i], got)
					if b := read(t, backups[min(i, len(backups)-1)]); b != fixtures[c][i] && len(backups) == len(paths) {
						t.Errorf("backup %s is not the original", backups[i])
					}
					if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
						t.Errorf("%s: mode %v, want the original 0640", path, st.Mode().Perm())
					}
				}
				checkEntries(t, o, paths, true)
				if len(p.Notes) == 0 && (c == Codex || c == OpenCode) {
					t.Errorf("%v: no notes", c)
				}

				// idempotent
				before := contents(t, paths)
				p2, backups2 := apply(t, o)
				if p2.Changed() || len(backups2) != 0 {
					t.Errorf("second run changed %v, backups %v:\n%s", p2.Changed(), backups2, p2.Diff())
				}
				if after := contents(t, paths); !slices.Equal(before, after) {
					t.Error("second run rewrote files")
				}

				// --remove gives back the original
				o.Remove = true
				apply(t, o)
				for i, path := range paths {
					if got := read(t, path); got != fixtures[c][i] {
						t.Errorf("%s after --remove:\n%s\nwant the original:\n%s", path, got, fixtures[c][i])
					}
				}
				p3, _ := apply(t, o)
				if p3.Changed() {
					t.Errorf("second --remove changed:\n%s", p3.Diff())
				}
			})
		}
	}
}

func contents(t *testing.T, paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, read(t, p))
	}
	return out
}

// standard reads a JSON-with-comments file as plain JSON.
func standard(t *testing.T, path string) map[string]any {
	t.Helper()
	v, err := hujson.Parse([]byte(read(t, path)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v.Standardize()
	var m map[string]any
	if err := json.Unmarshal(v.Pack(), &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func dig(m any, keys ...string) any {
	for _, k := range keys {
		o, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = o[k]
	}
	return m
}

// checkEntries checks cairn's entries in the written files as each
// client's documentation describes them.
func checkEntries(t *testing.T, o Options, paths []string, merged bool) {
	t.Helper()
	repoArg := "."
	if o.Scope == User {
		repoArg = o.Repo
	}
	wantArgs := []any{"serve", "mcp", "--repo", repoArg}
	hookCmd := func(kind string) string {
		s := testBinary + " hook " + kind + " --client " + o.Client.String()
		if o.Scope == User {
			s += " --repo " + o.Repo
		}
		return s
	}
	checkServer := func(m map[string]any, container string) {
		t.Helper()
		srv := dig(m, container, ServerName)
		switch o.Client {
		case OpenCode:
			want := map[string]any{"type": "local", "command": append([]any{testBinary}, wantArgs...), "enabled": true}
			if !jsonEqual(srv, want) {
				t.Errorf("opencode server %v, want %v", srv, want)
			}
		default:
			if o.Client == Cursor && o.Scope == Project {
				wantArgs[3] = "${workspaceFolder}"
			}
			if dig(srv, "command") != testBinary || !jsonEqual(dig(srv, "args"), wantArgs) {
				t.Errorf("server %v, want command %s args %v", srv, testBinary, wantArgs)
			}
		}
		if merged && dig(m, container, "other") == nil {
			t.Error("the other server is gone")
		}
	}
	groupedHook := func(m map[string]any, event, matcher, kind string, timeout float64) {
		t.Helper()
		groups, _ := dig(m, "hooks", event).([]any)
		for _, g := range groups {
			hs, _ := dig(g, "hooks").([]any)
			for _, h := range hs {
				if dig(h, "command") == hookCmd(kind) {
					if dig(g, "matcher") != nil && dig(g, "matcher") != matcher || matcher != "" && dig(g, "matcher") != matcher || dig(h, "type") != "command" || dig(h, "timeout") != timeout {
						t.Errorf("hooks.%s: %v", event, g)
					}
					return
				}
			}
		}
		t.Errorf("no cairn hook %q under hooks.%s: %v", hookCmd(kind), event, groups)
	}
	switch o.Client {
	case ClaudeCode:
		checkServer(standard(t, paths[0]), "mcpServers")
		if dig(standard(t, paths[0]), "mcpServers", ServerName, "type") != "stdio" {
			t.Error("claude server type is not stdio")
		}
		s := standard(t, paths[1])
		groupedHook(s, "PreToolUse", "Edit|Write|MultiEdit|NotebookEdit|Bash", hookPreTool, 60)
		groupedHook(s, "Stop", "", hookStop, 900)
		groupedHook(s, "SubagentStop", "", hookStop, 900)
		groupedHook(s, "SessionStart", "", hookSessionStart, 60)
	case Codex:
		var m map[string]any
		if _, err := toml.DecodeFile(paths[0], &m); err != nil {
			t.Fatal(err)
		}
		srv := dig(m, "mcp_servers", ServerName)
		if dig(srv, "command") != testBinary || !jsonEqual(dig(srv, "args"), wantArgs) || dig(srv, "default_tools_approval_mode") != "approve" {
			t.Errorf("codex server %v", srv)
		}
		s := standard(t, paths[1])
		groupedHook(s, "PreToolUse", "Bash|apply_patch|Edit|Write", hookPreTool, 60)
		groupedHook(s, "Stop", "", hookStop, 900)
		groupedHook(s, "SessionStart", "", hookSessionStart, 60)
	case Cursor:
		checkServer(standard(t, paths[0]), "mcpServers")
		s := standard(t, paths[1])
		if s["version"] != float64(1) {
			t.Errorf("cursor hooks version %v", s["version"])
		}
		for event, kind := range map[string]string{"beforeShellExecution": hookPreTool, "preToolUse": hookPreTool, "stop": hookStop, "sessionStart": hookSessionStart} {
			hs, _ := dig(s, "hooks", event).([]any)
			if !slices.ContainsFunc(hs, func(h any) bool { return dig(h, "command") == hookCmd(kind) }) {
				t.Errorf("cursor hooks.%s: %v", event, hs)
			}
		}
		// file edits are checked before they run (preToolUse, on the file
		// tools); afterFileEdit fires after the edit and cannot refuse it
		if m := dig(s, "hooks", "preToolUse").([]any); dig(m[len(m)-1], "matcher") != "Write|Edit|StrReplace|Delete" {
			t.Errorf("cursor hooks.preToolUse: %v", m)
		}
		if hs := dig(s, "hooks", "afterFileEdit"); hs != nil {
			t.Errorf("cursor hooks.afterFileEdit: %v, want no cairn hook there", hs)
		}
	case GeminiCLI:
		s := standard(t, paths[0])
		checkServer(s, "mcpServers")
		groupedHook(s, "BeforeTool", "write_file|replace|run_shell_command", hookPreTool, 60000)
		groupedHook(s, "AfterAgent", "", hookStop, 900000)
		groupedHook(s, "SessionStart", "", hookSessionStart, 60000)
	case OpenCode:
		checkServer(standard(t, paths[0]), "mcp")
	}
}

func jsonEqual(a, b any) bool {
	return bytes.Equal(must.JSON(a), must.JSON(b))
}

// TestSetupNewFiles: with nothing there, setup creates each file (the
// user scope's in the scratch home, the project scope's in the
// repository), and --remove leaves no cairn entry.
func TestSetupNewFiles(t *testing.T) {
	want := map[Client]map[Scope][]string{
		ClaudeCode: {Project: {"R/.mcp.json", "R/.claude/settings.json"}, User: {"H/.claude.json", "H/.claude/settings.json"}},
		Codex:      {Project: {"R/.codex/config.toml", "R/.codex/hooks.json"}, User: {"H/.codex/config.toml", "H/.codex/hooks.json"}},
		Cursor:     {Project: {"R/.cursor/mcp.json", "R/.cursor/hooks.json"}, User: {"H/.cursor/mcp.json", "H/.cursor/hooks.json"}},
		GeminiCLI:  {Project: {"R/.gemini/settings.json"}, User: {"H/.gemini/settings.json"}},
		OpenCode:   {Project: {"R/opencode.json"}, User: {"H/.config/opencode/opencode.json"}},
	}
	for _, c := range Clients() {
		for _, s := range []Scope{Project, User} {
			t.Run(c.String()+"/"+s.String(), func(t *testing.T) {
				e := newEnv(t)
				o := e.opts(c, s)
				p, backups := apply(t, o)
				var got []string
				for _, ch := range p.Changes {
					rel := strings.NewReplacer(e.repo, "R", e.home, "H").Replace(ch.Path)
					got = append(got, rel)
					if !ch.Changed() || ch.Old != nil {
						t.Errorf("%s: not created", rel)
					}
					st, err := os.Stat(ch.Path)
					if err != nil {
						t.Fatal(err)
					}
					if wantMode := map[Scope]os.FileMode{User: 0o600, Project: 0o644}[s]; st.Mode().Perm() != wantMode {
						t.Errorf("%s: mode %v, want %v", rel, st.Mode().Perm(), wantMode)
					}
				}
				if !slices.Equal(got, want[c][s]) {
					t.Errorf("files %v, want %v", got, want[c][s])
				}
				if len(backups) != 0 {
					t.Errorf("backups of new files: %v", backups)
				}
				var paths []string
				for _, ch := range p.Changes {
					paths = append(paths, ch.Path)
				}
				checkEntries(t, o, paths, false)
				o.Remove = true
				apply(t, o)
				for _, path := range paths {
					if b := read(t, path); strings.Contains(b, "cairn") {
						t.Errorf("%s after --remove still names cairn:\n%s", path, b)
					}
				}
			})
		}
	}
}

// TestSetupMovedConfigDirs: CLAUDE_CONFIG_DIR, CODEX_HOME and
// XDG_CONFIG_HOME move the user scope's files.
func TestSetupMovedConfigDirs(t *testing.T) {
	e := newEnv(t)
	alt := t.TempDir()
	e.vars["CLAUDE_CONFIG_DIR"] = filepath.Join(alt, "claude")
	e.vars["CODEX_HOME"] = filepath.Join(alt, "codex")
	e.vars["XDG_CONFIG_HOME"] = filepath.Join(alt, "xdg")
	want := map[Client][]string{
		ClaudeCode: {"claude/.claude.json", "claude/settings.json"},
		Codex:      {"codex/config.toml", "codex/hooks.json"},
		OpenCode:   {"xdg/opencode/opencode.json"},
	}
	for c, w := range want {
		p, err := Make(e.opts(c, User))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range p.Changes {
			r, _ := filepath.Rel(alt, ch.Path)
			got = append(got, r)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%v: %v, want %v", c, got, w)
		}
	}
}

// TestSetupHandEdited: an entry the user changed (another binary path,
// another timeout, extra flags) is still cairn's: setup puts it back as it
// writes it, and --remove takes it out, leaving the rest alone.
func TestSetupHandEdited(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode, Project)
	settings := filepath.Join(e.repo, ".claude", "settings.json")
	mcp := filepath.Join(e.repo, ".mcp.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	edited := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "echo mine"},
          {"type": "command", "command": "'/usr/local/bin/cairn' hook stop --client claude-code --verbose", "timeout": 5}
        ]
      }
    ]
  }
}
`
	os.WriteFile(settings, []byte(edited), 0o644)
	os.WriteFile(mcp, []byte(`{"mcpServers": {"cairn": {"command": "/old/cairn", "args": ["serve", "mcp"]}, "other": {"command": "x"}}}`+"\n"), 0o644)
	apply(t, o)
	s := standard(t, settings)
	var cmds []string
	for _, g := range dig(s, "hooks", "Stop").([]any) {
		for _, h := range dig(g, "hooks").([]any) {
			cmds = append(cmds, dig(h, "command").(string))
		}
	}
	if want := []string{"echo mine", testBinary + " hook stop --client claude-code"}; !slices.Equal(cmds, want) {
		t.Errorf("Stop commands %q, want %q", cmds, want)
	}
	if got := read(t, mcp); got != `{"mcpServers": {"cairn": {"type": "stdio", "command": "/opt/cairn/bin/cairn", "args": ["serve", "mcp", "--repo", "."]}, "other": {"command": "x"}}}`+"\n" {
		t.Errorf("server replaced in place:\n%s", got)
	}
	o.Remove = true
	apply(t, o)
	if got := read(t, mcp); got != `{"mcpServers": {"other": {"command": "x"}}}`+"\n" {
		t.Errorf(".mcp.json after --remove:\n%s", got)
	}
	if got := standard(t, settings); !jsonEqual(got, map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo mine"}}}}}}) {
		t.Errorf("settings after --remove: %v", got)
	}
}

// TestSetupCursorAfterFileEditGone: a hooks.json an earlier setup wrote,
// with cairn's pre-tool on afterFileEdit (which fires after the edit and
// cannot refuse it), loses that entry and keeps the user's own there;
// the file tools are checked by preToolUse instead.
func TestSetupCursorAfterFileEditGone(t *testing.T) {
	e := newEnv(t)
	o := e.opts(Cursor, Project)
	hooks := filepath.Join(e.repo, ".cursor", "hooks.json")
	os.MkdirAll(filepath.Dir(hooks), 0o755)
	os.WriteFile(hooks, []byte(`{"version": 1, "hooks": {"afterFileEdit": [{"command": "prettier --write"}, {"command": "`+testBinary+` hook pre-tool --client cursor"}]}}`+"\n"), 0o644)
	apply(t, o)
	s := standard(t, hooks)
	if got := dig(s, "hooks", "afterFileEdit"); !jsonEqual(got, []any{map[string]any{"command": "prettier --write"}}) {
		t.Errorf("afterFileEdit after setup: %v, want only the user's hook", got)
	}
	if got := dig(s, "hooks", "preToolUse"); !jsonEqual(got, []any{map[string]any{"command": testBinary + " hook pre-tool --client cursor", "matcher": "Write|Edit|StrReplace|Delete"}}) {
		t.Errorf("preToolUse after setup: %v", got)
	}
	o.Remove = true
	apply(t, o)
	if got := standard(t, hooks); !jsonEqual(got, map[string]any{"version": float64(1), "hooks": map[string]any{"afterFileEdit": []any{map[string]any{"command": "prettier --write"}}}}) {
		t.Errorf("hooks.json after --remove: %v", got)
	}
}

// TestSetupMalformed: a malformed existing file is an error naming the
// file, line and column, and nothing is written.
func TestSetupMalformed(t *testing.T) {
	for _, tc := range []struct {
		client     Client
		index      int
		content    string
		line, col  int
		msgContain string
	}{
		{ClaudeCode, 0, "{\n  \"mcpServers\": {\n    \"a\": 1,,\n  }\n}\n", 3, 12, "not valid JSON"},
		{ClaudeCode, 1, "{\n  // a comment Claude Code's JSON.parse refuses\n  \"hooks\": {}\n}\n", 2, 3, "comments"},
		{ClaudeCode, 0, "{\n  \"mcpServers\": [1]\n}\n", 2, 17, `"mcpServers" is not a JSON object`},
		{Codex, 0, "model = \"x\"\n[mcp_servers\ncommand = 1\n", 2, 13, "not valid TOML"},
		{Codex, 1, "{\"hooks\": {\"Stop\": {}}}", 1, 20, "hooks.Stop is not a JSON array"},
		{GeminiCLI, 0, "{\n  \"ui\": {\n}\n", 4, 1, "not valid JSON"},
		{OpenCode, 0, "[1, 2]\n", 1, 1, "not a JSON object"},
	} {
		t.Run(tc.client.String(), func(t *testing.T) {
			e := newEnv(t)
			o := e.opts(tc.client, Project)
			files := profiles[tc.client].files(o)
			path := files[tc.index].path
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(tc.content), 0o644)
			_, err := Make(o)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Make: %v, want a ConfigError", err)
			}
			if ce.Path != path || ce.Line != tc.line || ce.Column != tc.col || !strings.Contains(ce.Msg, tc.msgContain) {
				t.Errorf("error %q (line %d col %d), want %s:%d:%d … %s", err, ce.Line, ce.Column, path, tc.line, tc.col, tc.msgContain)
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("error %q does not start with the file", err)
			}
			if got := read(t, path); got != tc.content {
				t.Error("the malformed file changed")
			}
			for i, f := range files {
				if _, err := os.Stat(f.path); i != tc.index && err == nil {
					t.Errorf("%s written", f.path)
				}
			}
		})
	}
}

// TestSetupDiff: a plan's diff is a unified diff of what Apply would
// write, and making a plan writes nothing.
func TestSetupDiff(t *testing.T) {
	e := newEnv(t)
	o := e.opts(Codex, User)
	paths := writeFixtures(t, o)
	p, err := Make(o)
	if err != nil {
		t.Fatal(err)
	}
	d := p.Diff()
	for _, want := range []string{"--- " + paths[0], "+++ " + paths[0], "+[mcp_servers.cairn]", "@@ ", `+    "PreToolUse": [`} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	for i, path := range paths {
		if read(t, path) != fixtures[Codex][i] {
			t.Errorf("Make wrote %s", path)
		}
	}
}

// TestSetupSymlink: a configuration that is a symbolic link (a dotfiles
// checkout) is edited where it points, and stays a link.
func TestSetupSymlink(t *testing.T) {
	e := newEnv(t)
	dots := t.TempDir()
	real := filepath.Join(dots, "claude.json")
	os.WriteFile(real, []byte(fixtures[ClaudeCode][0]), 0o600)
	link := filepath.Join(e.home, ".claude.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	apply(t, e.opts(ClaudeCode, User))
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a link (%v)", link, err)
	}
	if !strings.Contains(read(t, real), testBinary) {
		t.Error("the link's target was not edited")
	}
}

// TestSetupChangedMeanwhile: a file that changes between Make and Apply
// is not overwritten.
func TestSetupChangedMeanwhile(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode, User)
	paths := writeFixtures(t, o)
	p, err := Make(o)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(paths[0], []byte(`{"numStartups": 4}`), 0o600)
	if _, err := p.Apply(time.Now()); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("Apply: %v", err)
	}
	if read(t, paths[0]) != `{"numStartups": 4}` {
		t.Error("overwritten")
	}
}

func TestIsCairnCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/opt/cairn/bin/cairn hook stop --client codex": true,
		"cairn hook pre-tool":                           true,
		"'/Users/a b/cairn' hook stop":                  true,
		"/somewhere/cairn-dev hook stop":                false,
		"cairn serve mcp":                               false,
		"echo cairn hook":                               false,
		"":                                              false,
	} {
		if got := isCairnCommand(cmd, testBinary); got != want {
			t.Errorf("isCairnCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
	if got := shellQuote("/Users/a b/it's/cairn"); got != `'/Users/a b/it'\''s/cairn'` {
		t.Errorf("shellQuote: %s", got)
	}
}

func TestDetect(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	look := func(name string) (string, error) {
		if name == "codex" {
			return "/usr/bin/codex", nil
		}
		return "", errors.New("not found")
	}
	got := Detect(home, func(string) string { return "" }, look)
	var names []string
	for _, f := range got {
		names = append(names, f.Client.String()+": "+strings.Join(f.How, ", "))
	}
	want := []string{"codex: codex on PATH (/usr/bin/codex)", "gemini-cli: " + filepath.Join(home, ".gemini") + " exists"}
	if !slices.Equal(names, want) {
		t.Errorf("Detect: %q, want %q", names, want)
	}
}
