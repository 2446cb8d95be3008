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
	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
)

// TestServeIndependentClients drives `cairn serve mcp` (stdio and HTTP) with
// the official MCP TypeScript SDK and `cairn serve lsp` with vscode-jsonrpc,
// from testdata/clients (installed by .ci/deps.sh).
func TestServeIndependentClients(t *testing.T) {
	serveClients(t, "")
}

// TestServeSharedStore: the same clients against `cairn serve mcp|lsp
// --store postgres://…`, reading a repository that `cairn index --store`
// put in PostgreSQL (the LSP client checks that the server re-indexes
// nothing: the shared store is written by cairn index/watch --store).
func TestServeSharedStore(t *testing.T) {
	serveClients(t, pgtest.NewDB(t))
}

func serveClients(t *testing.T, pg string) {
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
			env := append(os.Environ(), "CAIRN="+bin, "REPO="+root, "CAIRN_STORE=", "CAIRN_REPO_NAME=")
			if pg != "" {
				cache := t.TempDir()
				env = append(env, "STORE="+pg, "XDG_CACHE_HOME="+cache)
				t.Setenv("XDG_CACHE_HOME", cache)
				os.RemoveAll(filepath.Join(root, ".cairn")) // nothing to fall back on
				for _, args := range [][]string{{"migrate", "--store", pg}, {"index", "-q", "--repo", root, "--store", pg}} {
					if out, code := cli(args...); code != 0 {
						t.Fatalf("cairn %v: %s", args, out)
					}
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := []string{filepath.Join(clients, c.script)}
			if c.mode != "" {
				args = append(args, c.mode)
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir = clients
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), ": ok") {
				t.Fatalf("%s %s: %v\n%s", c.script, c.mode, err, out)
			}
			t.Logf("%s", strings.TrimSpace(string(out)))
		})
	}
}

// TestServeHTTPRefusesRemote: `cairn serve http` on a non-loopback address
// without --remote, or without a token, exits 2 before it listens.
func TestServeHTTPRefusesRemote(t *testing.T) {
	t.Setenv("CAIRN_HTTP_TOKEN", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "http", "--addr", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"serve", "http", "--addr", "0.0.0.0:0", "--remote"}, "needs a token"},
		{[]string{"serve", "http", "--addr", "0.0.0.0:0", "--remote", "--token", "short"}, "at least 16"},
	} {
		out, code := cli(c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("cairn %v: exit %d, %q; want exit 2 saying %q", c.args, code, out, c.want)
		}
	}
}
