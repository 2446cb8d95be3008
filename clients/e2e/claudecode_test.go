package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
)

// claudeBinary is the native Claude Code binary of the optional dependency
// (the wrapper's bin/claude.exe is a stub until its install script runs,
// which deps.sh skips).
const claudeBinary = "@anthropic-ai/claude-code-linux-x64/claude"

// cart is the fixture: a module whose Add ignores the quantity, with a test
// that passes anyway (every item in it has quantity 1). Cart.Total is
// written by Add and read by Receipt.
var cart = map[string]string{
	"go.mod":     "module example.com/cart\n\ngo 1.22\n",
	".gitignore": ".cairn/\n",
	"cart.go": `package cart

// Item is one line of a cart.
type Item struct {
	Price int // cents
	Qty   int
}

// Cart holds items and their total.
type Cart struct {
	Items []Item
	Total int
}

// Add puts an item in the cart and recomputes the total.
func (c *Cart) Add(it Item) {
	c.Items = append(c.Items, it)
	c.Total = sum(c.Items)
}

// sum adds price times quantity over the items.
func sum(items []Item) int {
	t := 0
	for _, it := range items {
		t += it.Price
	}
	return t
}
`,
	"receipt.go": `package cart

import "fmt"

// Receipt prints the cart's total.
func Receipt(c *Cart) string {
	return fmt.Sprintf("total: %d.%02d", c.Total/100, c.Total%100)
}
`,
	"cart_test.go": `package cart

import "testing"

func TestAdd(t *testing.T) {
	var c Cart
	c.Add(Item{Price: 250, Qty: 1})
	if c.Total != 250 {
		t.Fatalf("total %d, want 250", c.Total)
	}
}

func TestReceipt(t *testing.T) {
	if got := Receipt(&Cart{Total: 1234}); got != "total: 12.34" {
		t.Fatalf("got %q", got)
	}
}
`,
	".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: go test ./...\n",
}

// foreign are the entries of another tool that cairn's setup must keep.
const foreignServer, foreignHook = "other", "/usr/local/bin/other-hook --check"

// newSession makes a scratch HOME holding another MCP server and
// another hook, the cart repository indexed by cairn, and a server
// answering turns.
func newSession(t *testing.T, turns ...llmtest.Turn) *session {
	t.Helper()
	home := t.TempDir()
	env := baseEnv(t, home)
	s := &session{home: home, env: env}
	s.repo = newRepo(t, env, cart)
	writeFiles(t, home, map[string]string{
		".claude.json":          `{"mcpServers": {"` + foreignServer + `": {"type": "stdio", "command": "/usr/local/bin/other-mcp", "args": ["--stdio"], "env": {}}}}`,
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + foreignHook + `"}]}]}}`,
	})
	run(t, s.repo, env, cairnBinary(t), "index", "--repo", s.repo)
	s.srv = llmtest.New(turns...)
	t.Cleanup(s.srv.Close)
	return s
}

// setupClaude runs `cairn setup claude-code --user` in the session's
// repository: cairn's MCP server in ~/.claude.json, its hooks in
// ~/.claude/settings.json, beside the foreign ones.
func setupClaude(t *testing.T, s *session) {
	t.Helper()
	cairn := cairnBinary(t)
	run(t, s.repo, s.env, cairn, "setup", "claude-code", "--user")
	settings := readFile(t, filepath.Join(s.home, ".claude", "settings.json"))
	for _, want := range []string{foreignHook, " hook pre-tool", " hook stop", " hook session-start"} {
		if !strings.Contains(settings, want) {
			t.Fatalf("after setup, settings.json lacks %q:\n%s", want, settings)
		}
	}
}

// checkRemoved runs `cairn setup claude-code --user --remove` and checks
// that only the foreign server and hook are left.
func checkRemoved(t *testing.T, s *session) {
	t.Helper()
	run(t, s.repo, s.env, cairnBinary(t), "setup", "claude-code", "--user", "--remove")
	var claudeJSON struct{ MCPServers map[string]any }
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(s.home, ".claude.json"))), &claudeJSON); err != nil {
		t.Fatal(err)
	}
	if _, ok := claudeJSON.MCPServers[foreignServer]; !ok || len(claudeJSON.MCPServers) != 1 {
		t.Errorf("after --remove, mcpServers %v, want only %q", claudeJSON.MCPServers, foreignServer)
	}
	settings := readFile(t, filepath.Join(s.home, ".claude", "settings.json"))
	if strings.Contains(settings, "cairn") || !strings.Contains(settings, foreignHook) {
		t.Errorf("after --remove, settings.json should hold only the foreign hook:\n%s", settings)
	}
}

// toolResult returns the result of the tool call id in c's last message.
func toolResult(c *llmtest.Call, id string) (llm.Block, bool) {
	for _, b := range c.LastToolResults() {
		if b.ID == id {
			return b, true
		}
	}
	return llm.Block{}, false
}

// The model asks cairn's trace over MCP where Cart.Total is written and
// read; Claude Code starts `cairn serve mcp` from the user config, calls
// it, and carries the answer back: Add writes the total, Receipt reads it.
// The session changed nothing, so cairn's stop hook lets it end.
func TestClaudeCodeTraceOverMCP(t *testing.T) {
	bin := clientBinary(t, claudeBinary)
	var got llm.Block
	var tools []string
	s := newSession(t,
		func(c *llmtest.Call) llmtest.Reply {
			tools = c.Tools
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "toolu_trace", Name: "mcp__cairn__trace", Input: `{"target":"Cart.Total"}`}}}
		},
		func(c *llmtest.Call) llmtest.Reply {
			got, _ = toolResult(c, "toolu_trace")
			return llmtest.Reply{Text: "Add writes Cart.Total; Receipt reads it."}
		},
	)
	setupClaude(t, s)
	res := s.claude(t, bin, "Where is Cart.Total written and read?", "mcp__cairn__trace")
	if res.IsError || res.Result != "Add writes Cart.Total; Receipt reads it." {
		t.Errorf("result: %+v\n%s", res, s.diagnose())
	}
	if !contains(tools, "mcp__cairn__trace") {
		t.Fatalf("cairn's trace was not declared to the model; tools: %v\n%s", tools, s.diagnose())
	}
	checkTrace(t, got, s)
	// the session changed nothing: cairn's stop hook lets it stop (a
	// blocked stop would have asked the model a third time)
	if n := len(s.srv.Calls()); n != 2 {
		t.Errorf("a read-only session: %d model calls, want 2 (the stop let through)\n%s", n, s.diagnose())
	}
	checkRemoved(t, s)
}

// checkTrace checks the result of trace Cart.Total the client carried
// back: cairn's JSON, with the write in Cart.Add and the read in Receipt.
// (Codex puts "Wall time: …\nOutput:\n" before a tool's output.)
func checkTrace(t *testing.T, got llm.Block, s *session) {
	t.Helper()
	if got.IsError || got.Text == "" {
		t.Fatalf("trace result: %+v\n%s", got, s.diagnose())
	}
	text := got.Text
	if _, after, ok := strings.Cut(text, "\nOutput:\n"); ok {
		text = after
	}
	type site struct {
		Path string `json:"path"`
		Func struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	var out struct{ Writes, Reads []site }
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("trace result is not the tool's JSON: %v\n%s", err, got.Text)
	}
	has := func(sites []site, path, fn string) bool {
		for _, x := range sites {
			if x.Path == path && x.Func.Name == fn {
				return true
			}
		}
		return false
	}
	if !has(out.Writes, "cart.go", "Cart.Add") || !has(out.Reads, "receipt.go", "Receipt") {
		t.Errorf("trace: want the write in Cart.Add (cart.go) and the read in Receipt (receipt.go), got writes %+v reads %+v", out.Writes, out.Reads)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
