package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookCommand: cairn hook reads the client's JSON on stdin and
// answers in its format — Claude Code's deny JSON on stdout with exit 0,
// Codex's refusal as exit 2 with only the reason on stderr — and answers
// a command line it cannot run (unknown event, client or flag) with exit 1,
// a hook error no client reads as a refusal.
func TestHookCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	edit := `{"session_id":"s","cwd":"` + repo + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + repo + `/.github/workflows/ci.yml","content":"x"}}`
	for _, tc := range []struct {
		args         []string
		stdin        string
		code         int
		stdout, errs string
	}{
		{[]string{"hook", "pre-tool"}, edit, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"cairn policy refused this Write (protected .github/**)`, ""},
		{[]string{"hook", "pre-tool", "--repo", repo}, strings.Replace(edit, ".github/workflows/ci.yml", "main.go", 1), 0, "", ""},
		{[]string{"hook", "pre-tool", "--client", "codex"}, edit, 2, "", "cairn policy refused this Write (protected .github/**)"},
		{[]string{"hook", "pre-tool"}, "{", 0, `"permissionDecision":"deny"`, "malformed hook input"},
		// a command line this cairn cannot run is a hook error (exit 1),
		// never exit 2, which Claude Code and Codex read as "block"
		{[]string{"hook", "post-tool"}, edit, 1, "", "unknown hook event"},
		{[]string{"hook", "pre-tool", "--client", "vim"}, edit, 1, "", "unknown client"},
		{[]string{"hook", "stop", "--from-the-future"}, edit, 1, "", "unknown flag"},
		{[]string{"hook"}, edit, 1, "", "hook takes one event"},
		{[]string{"hook", "stop", "extra"}, edit, 1, "", "hook takes one event"},
	} {
		var stdout, stderr bytes.Buffer
		code := runWith(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.errs) ||
			tc.stdout == "" && stdout.Len() > 0 {
			t.Errorf("%v: exit %d (want %d)\nstdout %s\nstderr %s", tc.args, code, tc.code, stdout.String(), stderr.String())
		}
		if tc.code == 2 && tc.args[len(tc.args)-1] == "codex" && strings.Contains(stderr.String(), "cairn: ") {
			t.Errorf("codex: stderr carries more than the reason: %q", stderr.String())
		}
	}
}
