package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
)

// codexBinary is the native Codex CLI of the optional dependency.
const codexBinary = "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

// codexProvider points Codex at the scripted server through a custom
// provider on the Responses wire (OPENAI_BASE_URL is not honoured by
// 0.171.0, and the built-in provider first tries a WebSocket) and turns its
// analytics off; `cairn setup codex --user` adds cairn's MCP server to the
// same file, its tools approved (codex exec's approval policy is "never":
// an MCP call that needs approval fails). The hooks setup writes are not
// run: codex exec skips hooks nobody has trusted in the TUI.
func codexProvider(base string) string {
	return fmt.Sprintf(`model = "gpt-llmtest"
model_provider = "llmtest"

[model_providers.llmtest]
name = "llmtest"
base_url = %q
wire_api = "responses"
env_key = "LLMTEST_API_KEY"

[analytics]
enabled = false
`, base)
}

// The same trace through Codex: it sends cairn's tools to the model as the
// namespace mcp__cairn, the scripted model calls trace in it, and the
// function_call_output Codex sends back is cairn's answer.
func TestCodexTraceOverMCP(t *testing.T) {
	bin := clientBinary(t, codexBinary)
	var got llm.Block
	var tools []string
	s := newSession(t, // Codex reads its config from CODEX_HOME, not the foreign Claude entries
		func(c *llmtest.Call) llmtest.Reply {
			tools = c.Tools
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_trace", Name: "mcp__cairn__trace", Input: `{"target":"Cart.Total"}`}}}
		},
		func(c *llmtest.Call) llmtest.Reply {
			got, _ = toolResult(c, "call_trace")
			return llmtest.Reply{Text: "Add writes Cart.Total; Receipt reads it."}
		},
	)
	codexHome := filepath.Join(s.home, ".codex")
	writeFiles(t, codexHome, map[string]string{"config.toml": codexProvider(s.srv.OpenAIBaseURL())})
	env := append(append([]string(nil), s.env...), "CODEX_HOME="+codexHome, "LLMTEST_API_KEY=test")
	run(t, s.repo, env, cairnBinary(t), "setup", "codex", "--user")

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--disable", "plugins", "Where is Cart.Total written and read?")
	cmd.Dir = s.repo
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr // stdin: /dev/null
	start := time.Now()
	err := cmd.Run()
	t.Logf("codex exec: %v, %d model calls", time.Since(start).Round(time.Millisecond), len(s.srv.Calls()))
	if err != nil {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s\n%s", err, stdout.Bytes(), stderr.Bytes(), s.diagnose())
	}
	if !contains(tools, "mcp__cairn__trace") {
		t.Fatalf("cairn's trace was not declared to the model; tools: %v\n%s", tools, s.diagnose())
	}
	if !bytes.Contains(stdout.Bytes(), []byte("Add writes Cart.Total; Receipt reads it.")) {
		t.Errorf("the final answer is not in codex's output:\n%s", stdout.Bytes())
	}
	checkTrace(t, got, s)
}
