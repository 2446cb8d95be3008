package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupCommand: cairn setup --dry-run prints a diff and writes
// nothing; a run writes and a second one changes nothing; a malformed
// file fails naming file, line and column; without a client it lists the
// clients found.
func TestSetupCommand(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PATH", t.TempDir())

	out, code := cli("setup", "claude-code", "--repo", repo, "--dry-run")
	if code != 0 || !strings.Contains(out, "+++ "+filepath.Join(repo, ".mcp.json")) || !strings.Contains(out, `+    "cairn": {`) || !strings.Contains(out, "dry run, nothing written") {
		t.Fatalf("dry run (%d):\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".mcp.json")); err == nil {
		t.Fatal("--dry-run wrote .mcp.json")
	}

	out, code = cli("setup", "codex", "--user", "--repo", repo)
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(home, ".codex", "config.toml")) || !strings.Contains(out, "/hooks") {
		t.Fatalf("setup codex --user (%d):\n%s", code, out)
	}
	out, code = cli("setup", "codex", "--user", "--repo", repo)
	if code != 0 || strings.Contains(out, "wrote") || strings.Contains(out, "backed up") {
		t.Fatalf("second run (%d):\n%s", code, out)
	}

	out, code = cli("setup", "--repo", repo)
	if code != 0 || !strings.Contains(out, "codex: "+filepath.Join(home, ".codex")+" exists") || !strings.Contains(out, "run: cairn setup codex --project") {
		t.Fatalf("setup without a client (%d):\n%s", code, out)
	}

	bad := filepath.Join(repo, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("{\n  \"ui\": {\n}\n"), 0o644)
	out, code = cli("setup", "gemini-cli", "--repo", repo)
	if code == 0 || !strings.Contains(out, bad+":4:1: not valid JSON") {
		t.Fatalf("malformed settings (%d):\n%s", code, out)
	}
	if b, _ := os.ReadFile(bad); string(b) != "{\n  \"ui\": {\n}\n" {
		t.Error("the malformed file changed")
	}

	if out, code := cli("setup", "vim", "--repo", repo); code != 2 || !strings.Contains(out, "unknown client") {
		t.Errorf("unknown client (%d):\n%s", code, out)
	}
	if out, code := cli("setup", "codex", "--user", "--project", "--repo", repo); code != 2 {
		t.Errorf("--user --project (%d):\n%s", code, out)
	}
}
