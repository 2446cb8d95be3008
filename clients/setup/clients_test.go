package setup

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-dev/cairn/internal/must"
)

// The written files checked by the clients themselves (Claude Code and
// Codex, installed from testdata/agents by .ci/deps.sh) and against the
// published JSON Schemas in testdata/clients/schemas (SOURCES.md there).

func testdata(parts ...string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(append([]string{filepath.Dir(file), "..", "..", "testdata"}, parts...)...)
}

// agentBinary is a client's native binary from testdata/agents: missing,
// it fails the test under `make test` (CAIRN_TEST_PG_REQUIRED set) and
// skips it elsewhere.
func agentBinary(t *testing.T, rel string) string {
	t.Helper()
	p := testdata("agents", "node_modules", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CAIRN_TEST_PG_REQUIRED") != "" {
			t.Fatalf("%s is missing (%v): .ci/deps.sh installs testdata/agents", rel, err)
		}
		t.Skipf("%s is not installed (%v): run bash .ci/deps.sh", rel, err)
	}
	return p
}

func runAgent(t *testing.T, dir string, env []string, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", filepath.Base(bin), args, err, out, stderr.String())
	}
	return string(out)
}

// TestSetupClaudeCodeReads: claude mcp get reads the server setup wrote,
// in the user scope (~/.claude.json, merged with another server) and the
// project scope (.mcp.json).
func TestSetupClaudeCodeReads(t *testing.T) {
	claude := agentBinary(t, "@anthropic-ai/claude-code-linux-x64/claude")
	for _, s := range []Scope{User, Project} {
		t.Run(s.String(), func(t *testing.T) {
			e := newEnv(t)
			o := e.opts(ClaudeCode, s)
			writeFixtures(t, o)
			apply(t, o)
			env := []string{"HOME=" + e.home, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CONFIG_DIR="}
			out := runAgent(t, e.repo, env, claude, "mcp", "get", ServerName)
			repo := "."
			scope := "Project config"
			if s == User {
				repo, scope = e.repo, "User config"
			}
			for _, want := range []string{"Scope: " + scope, "Type: stdio", "Command: " + testBinary, "Args: serve mcp --repo " + repo} {
				if !strings.Contains(out, want) {
					t.Errorf("claude mcp get cairn lacks %q:\n%s", want, out)
				}
			}
			if out := runAgent(t, e.repo, env, claude, "mcp", "get", "other"); !strings.Contains(out, "Command: other-server") {
				t.Errorf("claude mcp get other:\n%s", out)
			}
		})
	}
}

// TestSetupCodexReads: codex mcp get reads [mcp_servers.cairn] from the
// config.toml setup merged into (user scope, CODEX_HOME), and from a
// trusted project's .codex/config.toml.
func TestSetupCodexReads(t *testing.T) {
	codex := agentBinary(t, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
	for _, s := range []Scope{User, Project} {
		t.Run(s.String(), func(t *testing.T) {
			e := newEnv(t)
			o := e.opts(Codex, s)
			writeFixtures(t, o)
			apply(t, o)
			codexHome := filepath.Join(e.home, ".codex")
			repo := "."
			if s == User {
				repo = e.repo
			} else {
				// Codex reads a project's .codex/ only when it is trusted.
				os.MkdirAll(codexHome, 0o755)
				trust := "[projects." + strconvQuote(e.repo) + "]\ntrust_level = \"trusted\"\n"
				os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(trust), 0o600)
				exec.Command("git", "init", "-q", e.repo).Run()
			}
			env := []string{"HOME=" + e.home, "CODEX_HOME=" + codexHome}
			var got struct {
				Name      string `json:"name"`
				Enabled   bool   `json:"enabled"`
				Transport struct {
					Type    string   `json:"type"`
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"transport"`
			}
			out := runAgent(t, e.repo, env, codex, "mcp", "get", ServerName, "--json")
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("codex mcp get --json: %v\n%s", err, out)
			}
			want := []string{"serve", "mcp", "--repo", repo}
			if got.Name != ServerName || !got.Enabled || got.Transport.Type != "stdio" || got.Transport.Command != testBinary || strings.Join(got.Transport.Args, " ") != strings.Join(want, " ") {
				t.Errorf("codex mcp get cairn: %+v, want command %s args %v", got, testBinary, want)
			}
			if out := runAgent(t, e.repo, env, codex, "mcp", "get", "other", "--json"); !strings.Contains(out, `"other-server"`) {
				t.Errorf("codex mcp get other:\n%s", out)
			}
		})
	}
}

func strconvQuote(s string) string {
	return string(must.JSON(s))
}

func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(testdata("clients", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSetupSchemas: Gemini CLI's settings.json and Codex's hooks.json, as
// setup writes them new and merged, validate against the published
// schemas (Gemini CLI's own, SchemaStore's codex-hooks).
func TestSetupSchemas(t *testing.T) {
	for _, tc := range []struct {
		client Client
		index  int
		schema string
	}{
		{GeminiCLI, 0, "gemini-cli-settings.schema.json"},
		{Codex, 1, "codex-hooks.schema.json"},
	} {
		schema := compileSchema(t, tc.schema)
		// the schema bites: an event's hooks as an object, not a list
		bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"hooks": {"Stop": {"hooks": []}}}`))
		if schema.Validate(bad) == nil {
			t.Errorf("%s accepts hooks.Stop as an object", tc.schema)
		}
		for _, s := range []Scope{Project, User} {
			for _, merged := range []bool{false, true} {
				e := newEnv(t)
				o := e.opts(tc.client, s)
				if merged {
					writeFixtures(t, o)
				}
				p, _ := apply(t, o)
				path := p.Changes[tc.index].Path
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(mustStandard(t, path)))
				if err != nil {
					t.Fatal(err)
				}
				if err := schema.Validate(inst); err != nil {
					t.Errorf("%v %v merged=%v: %s does not validate against %s: %v", tc.client, s, merged, path, tc.schema, err)
				}
			}
		}
	}
}

func mustStandard(t *testing.T, path string) string {
	b, err := json.Marshal(standard(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
