package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/verify"
)

// The edits of the scripted model, as Claude Code's tools take them.
const (
	weakAssertion = "\tif c.Total != 250 {\n\t\tt.Fatalf(\"total %d, want 250\", c.Total)\n\t}\n"
	buggySum      = "t += it.Price\n"
	fixedSum      = "t += it.Price * it.Qty\n"
	regression    = `package cart

import "testing"

func TestAddCountsQuantity(t *testing.T) {
	var c Cart
	c.Add(Item{Price: 100, Qty: 3})
	if c.Total != 300 {
		t.Fatalf("total %d, want 300", c.Total)
	}
}
`
)

// contract is the task a repository may give its stop gate.
const contract = `objective: Cart.Add must count each item's quantity in the cart's total.
base: HEAD
scope:
  write: ["*.go"]
criteria:
  - id: regression
    text: A new regression test fails on the base and passes with the change.
    check: {regression: true}
  - id: tests
    text: The package's tests pass.
    check: {tests: "./..."}
`

func use(id, name string, input map[string]any) llmtest.Reply {
	b, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Input: string(b)}}}
}

// lastText is every text block of c's last message, and the results of
// its tool calls, joined: where Claude Code puts a hook's feedback.
func lastText(c *llmtest.Call) string {
	var parts []string
	if n := len(c.Messages); n > 0 {
		for _, b := range c.Messages[n-1].Content {
			if b.Kind == llm.Text || b.Kind == llm.ToolResult {
				parts = append(parts, b.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// An Edit of a protected path (CI configuration) is refused by cairn's
// PreToolUse hook before it runs: the file is unchanged and the result
// Claude Code carries back to the model is an error with cairn's reason.
func TestClaudeCodePreToolRefusesProtectedEdit(t *testing.T) {
	bin := clientBinary(t, claudeBinary)
	var refused llm.Block
	var s *session
	s = newSession(t,
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_read", "Read", map[string]any{"file_path": filepath.Join(s.repo, ".github/workflows/ci.yml")})
		},
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_edit", "Edit", map[string]any{"file_path": filepath.Join(s.repo, ".github/workflows/ci.yml"),
				"old_string": "go test ./...", "new_string": "true"})
		},
		func(c *llmtest.Call) llmtest.Reply {
			refused, _ = toolResult(c, "toolu_edit")
			return llmtest.Reply{Text: "The CI configuration is protected; I left it alone."}
		},
	)
	setupClaude(t, s)
	res := s.claude(t, bin, "Make CI pass.", "Read", "Edit")
	if got := readFile(t, filepath.Join(s.repo, ".github/workflows/ci.yml")); got != cart[".github/workflows/ci.yml"] {
		t.Errorf("the protected file changed:\n%s", got)
	}
	if !refused.IsError || !strings.Contains(refused.Text, ".github") || !strings.Contains(strings.ToLower(refused.Text), "protected") {
		t.Errorf("want the Edit refused with cairn's reason (protected .github/**), got %+v\n%s", refused, s.diagnose())
	}
	if res.IsError {
		t.Errorf("session: %+v", res)
	}
}

// The stop gate, with the repository's contract and with none (cairn's
// default contract): the model weakens TestAdd and says it is done — the
// stop is blocked and the model's next input carries the gate's tamper
// finding; it restores the test, fixes sum, adds a regression test and says
// done — the gate passes and the session ends with the fix in place. Then
// `cairn setup claude-code --user --remove` leaves only the foreign entries.
func TestClaudeCodeStopGate(t *testing.T) {
	bin := clientBinary(t, claudeBinary)
	for _, tc := range []struct {
		name     string
		contract string
	}{
		{"task.yaml", contract},
		{"default contract", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stopGate(t, bin, tc.contract)
		})
	}
}

func stopGate(t *testing.T, bin, contract string) {
	var s *session
	path := func(rel string) string { return filepath.Join(s.repo, rel) }
	var blocked string
	s = newSession(t,
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_read_test", "Read", map[string]any{"file_path": path("cart_test.go")})
		},
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_weaken", "Edit", map[string]any{"file_path": path("cart_test.go"), "old_string": weakAssertion, "new_string": ""})
		},
		llmtest.Say("Done: the tests pass."),
		// the stop was blocked: the gate's finding is in this input
		func(c *llmtest.Call) llmtest.Reply {
			blocked = lastText(c)
			return use("toolu_restore", "Edit", map[string]any{"file_path": path("cart_test.go"),
				"old_string": "\tc.Add(Item{Price: 250, Qty: 1})\n", "new_string": "\tc.Add(Item{Price: 250, Qty: 1})\n" + weakAssertion})
		},
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_read_code", "Read", map[string]any{"file_path": path("cart.go")})
		},
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_fix", "Edit", map[string]any{"file_path": path("cart.go"), "old_string": buggySum, "new_string": fixedSum})
		},
		func(*llmtest.Call) llmtest.Reply {
			return use("toolu_regression", "Write", map[string]any{"file_path": path("quantity_test.go"), "content": regression})
		},
		llmtest.Say("Fixed: Add counts quantities; TestAddCountsQuantity covers it."),
	)
	if contract != "" {
		writeFiles(t, s.repo, map[string]string{".cairn/task.yaml": contract})
	}
	warmGate(t, s)
	setupClaude(t, s)
	res := s.claude(t, bin, "Cart totals ignore quantities. Fix it.", "Read", "Edit", "Write")

	if !strings.Contains(blocked, "TestAdd") || !strings.Contains(strings.ToLower(blocked), "assertion") {
		t.Errorf("the blocked stop's feedback does not carry the tamper finding (fewer assertions in TestAdd):\n%s\n%s", blocked, s.diagnose())
	}
	if n := len(s.srv.Calls()); n != 8 {
		t.Errorf("%d model calls, want 8 (the first stop blocked, the second let through)\n%s", n, s.diagnose())
	}
	if got := readFile(t, path("cart.go")); !strings.Contains(got, fixedSum) {
		t.Errorf("the fix is not in place:\n%s", got)
	}
	if got := readFile(t, path("cart_test.go")); got != cart["cart_test.go"] {
		t.Errorf("TestAdd is not restored:\n%s", got)
	}
	if res.IsError || res.Result != "Fixed: Add counts quantities; TestAddCountsQuantity covers it." {
		t.Errorf("session: %+v\n%s", res, s.diagnose())
	}
	checkEvidence(t, s)

	checkRemoved(t, s)
}

// checkEvidence checks the bundles the stop hook wrote: the blocked run's
// and the passing run's, each with its evidence.json and CHANGE.md, the
// last one a pass.
func checkEvidence(t *testing.T, s *session) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(s.repo, ".cairn", "runs", "hook-*"))
	if len(runs) != 2 {
		t.Fatalf("evidence: %d bundles under .cairn/runs, want 2 (the blocked stop's and the passing one's): %v", len(runs), runs)
	}
	for _, dir := range runs {
		for _, f := range []string{"evidence.json", "CHANGE.md"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("evidence: %v", err)
			}
		}
	}
	var last struct{ Verdict string }
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(s.repo, ".cairn", "runs", "hook-"+sessionOf(t, runs)+"-2", "evidence.json"))), &last); err != nil || last.Verdict != "pass" {
		t.Errorf("the second gate run's evidence: verdict %q (%v), want pass", last.Verdict, err)
	}
}

// sessionOf is the session part of the hook's run directories
// (hook-SESSION-N).
func sessionOf(t *testing.T, runs []string) string {
	t.Helper()
	name := strings.TrimPrefix(filepath.Base(runs[0]), "hook-")
	i := strings.LastIndex(name, "-")
	if i < 0 {
		t.Fatalf("run directory %s", runs[0])
	}
	return name[:i]
}

// warmGate points the session's gate directory (evidence.DefaultDir under
// XDG_CACHE_HOME) into a root the e2e tests share, and seeds its Go build
// cache from the one a previous session left there (hard links,
// verify.SeedBuildCache): a cold cache compiles the testing packages in
// the sandbox on each of the gate's workspaces. The session's directory
// becomes the seed when there is none yet, else it is removed.
func warmGate(t *testing.T, s *session) {
	t.Helper()
	root := filepath.Join(os.TempDir(), "cairn-e2e-gate")
	seed := filepath.Join(root, "seed")
	t.Setenv("XDG_CACHE_HOME", root)
	dir, err := evidence.DefaultDir(s.repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.SeedBuildCache(dir, seed); err != nil {
		t.Logf("the gate's build cache is not seeded: %v", err)
	}
	s.env = append(s.env, "XDG_CACHE_HOME="+root)
	t.Cleanup(func() {
		if _, err := os.Stat(seed); err != nil && os.Rename(dir, seed) == nil {
			return
		}
		os.RemoveAll(dir)
	})
}
