package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine/enginetest"
)

// TestServeIndependentClients drives `cairn serve mcp` (stdio and HTTP) with
// the official MCP TypeScript SDK and `cairn serve lsp` with vscode-jsonrpc,
// from testdata/clients (installed by .ci/deps.sh).
func TestServeIndependentClients(t *testing.T) {
	clients, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(clients, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node clients missing (%v): .ci/deps.sh installs them", err)
		}
		t.Skipf("node clients not installed (%v): run bash .ci/deps.sh", err)
	}
	bin, err := exec.LookPath("cairn") // the test binary, as testscript.Main provides it
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, script, mode string }{
		{"mcp-stdio", "mcp_client.cjs", "stdio"},
		{"mcp-http", "mcp_client.cjs", "http"},
		{"lsp-stdio", "lsp_client.cjs", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := enginetest.Repo(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := []string{filepath.Join(clients, c.script)}
			if c.mode != "" {
				args = append(args, c.mode)
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir = clients
			cmd.Env = append(os.Environ(), "CAIRN="+bin, "REPO="+root)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), ": ok") {
				t.Fatalf("%s %s: %v\n%s", c.script, c.mode, err, out)
			}
			t.Logf("%s", strings.TrimSpace(string(out)))
		})
	}
}
