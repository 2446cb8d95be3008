package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Input is one hook call as every client's shape normalises to it.
type Input struct {
	Event     string // the client's event name, as it sent it (PreToolUse, beforeShellExecution …)
	SessionID string
	Cwd       string
	// Tool is the tool's name as the client calls it; ToolInput its
	// arguments (a JSON object).
	Tool      string
	ToolInput map[string]any
	// StopHookActive: the client stops again after a stop hook blocked
	// (Claude Code, Codex); LoopCount is Cursor's count of such follow-ups.
	StopHookActive bool
	LoopCount      int
	Source         string // session start: startup, resume, clear, compact
}

// MaxInput bounds what a hook reads from stdin: a Write of a large file
// carries its content, and nothing larger is a hook call.
const MaxInput = 8 << 20

// InputError is input the hook cannot read: not JSON, too large, fields
// of the wrong type. The policy's fail mode decides what happens then.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "malformed hook input: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// raw is the union of the clients' fields (Claude Code, Codex and Gemini
// CLI share snake_case names; Cursor's conversation_id, workspace_roots
// and top-level command; cairn's own OpenCode plugin sends tool/args).
type raw struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	ConversationID string          `json:"conversation_id"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Command        *string         `json:"command"`
	FilePath       string          `json:"file_path"`
	StopHookActive bool            `json:"stop_hook_active"`
	LoopCount      int             `json:"loop_count"`
	Source         string          `json:"source"`
	Trigger        string          `json:"trigger"`
	// cairn's OpenCode plugin
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Directory string          `json:"directory"`
}

// readInput reads and decodes one hook call.
func readInput(r io.Reader, c Client) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, &InputError{fmt.Errorf("read stdin: %w", err)}
	}
	if len(data) > MaxInput {
		return nil, &InputError{fmt.Errorf("more than %d bytes on stdin", MaxInput)}
	}
	return decodeInput(data, c)
}

func decodeInput(data []byte, c Client) (*Input, error) {
	var r raw
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &InputError{fmt.Errorf("want one JSON object: %w", err)}
	}
	in := &Input{Event: r.HookEventName, SessionID: r.SessionID, Cwd: r.Cwd, Tool: r.ToolName,
		StopHookActive: r.StopHookActive, LoopCount: r.LoopCount, Source: r.Source}
	if in.Source == "" {
		in.Source = r.Trigger
	}
	if in.SessionID == "" {
		in.SessionID = r.ConversationID
	}
	if in.Cwd == "" && len(r.WorkspaceRoots) > 0 {
		in.Cwd = r.WorkspaceRoots[0]
	}
	if in.Cwd == "" {
		in.Cwd = r.Directory
	}
	if in.Tool == "" {
		in.Tool = r.Tool
	}
	args := r.ToolInput
	if len(args) == 0 {
		args = r.Args
	}
	if err := decodeToolInput(args, in); err != nil {
		return nil, err
	}
	switch {
	case c == Cursor && r.HookEventName == "beforeShellExecution" && r.Command != nil:
		in.Tool, in.ToolInput = "Shell", map[string]any{"command": *r.Command}
	case c == Cursor && r.HookEventName == "beforeReadFile":
		in.Tool = "" // a read: nothing to check
	case c == Cursor && in.Tool == "" && r.FilePath != "":
		in.Tool, in.ToolInput = "Write", map[string]any{"file_path": r.FilePath}
	}
	return in, nil
}

// decodeToolInput reads a tool's arguments: a JSON object, or (Cursor's
// beforeMCPExecution) a string holding one.
func decodeToolInput(args json.RawMessage, in *Input) error {
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = json.RawMessage(s)
	}
	if err := json.Unmarshal(args, &in.ToolInput); err != nil {
		return &InputError{fmt.Errorf("tool_input: want a JSON object: %w", err)}
	}
	return nil
}

// toolKind is what a tool does, by its name in any client.
type toolKind int

const (
	toolOther  toolKind = iota // reads, searches, MCP tools: nothing to check
	toolShell                  // runs a shell command line
	toolWrite                  // writes one file
	toolDelete                 // deletes one file
	toolPatch                  // applies a patch (Codex's apply_patch)
)

// toolKinds names the tools by lower-cased name: Claude Code (Edit, Write,
// MultiEdit, NotebookEdit, Bash), Codex (Bash, apply_patch, and Edit/Write
// aliases), Cursor (Shell, Write, Edit, StrReplace, Delete), Gemini CLI
// (write_file, replace, run_shell_command), OpenCode (bash, edit, write,
// patch).
var toolKinds = map[string]toolKind{
	"bash": toolShell, "shell": toolShell, "run_shell_command": toolShell, "exec_command": toolShell, "local_shell": toolShell,
	"edit": toolWrite, "write": toolWrite, "multiedit": toolWrite, "notebookedit": toolWrite, "write_file": toolWrite,
	"replace": toolWrite, "strreplace": toolWrite, "str_replace": toolWrite, "edit_file": toolWrite, "create_file": toolWrite,
	"delete": toolDelete, "delete_file": toolDelete,
	"apply_patch": toolPatch, "patch": toolPatch,
}

func kindOf(tool string) toolKind { return toolKinds[strings.ToLower(tool)] }

// pathKeys are the argument names a file tool's path goes by.
var pathKeys = []string{"file_path", "notebook_path", "filePath", "path", "absolute_path", "target_file"}

// toolPath is the file a write or delete tool names.
func toolPath(in *Input) (string, error) {
	for _, k := range pathKeys {
		if v, ok := in.ToolInput[k]; ok {
			s, ok := v.(string)
			if !ok || s == "" {
				return "", &InputError{fmt.Errorf("tool_input.%s: want a path", k)}
			}
			return s, nil
		}
	}
	return "", &InputError{errors.New("tool_input names no file (file_path)")}
}

// toolCommand is the command line a shell tool runs (a string, or an
// argv array as Codex's exec tools send it).
func toolCommand(in *Input) (string, error) {
	for _, k := range []string{"command", "cmd"} {
		switch v := in.ToolInput[k].(type) {
		case string:
			return v, nil
		case []any:
			var parts []string
			for _, p := range v {
				s, ok := p.(string)
				if !ok {
					return "", &InputError{fmt.Errorf("tool_input.%s: want strings", k)}
				}
				parts = append(parts, shellQuote(s))
			}
			return strings.Join(parts, " "), nil
		}
	}
	return "", &InputError{errors.New("tool_input has no command")}
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// patchFile finds the files of an apply_patch envelope: *** Add File:,
// *** Update File:, *** Delete File: and *** Move to: lines.
var patchFile = regexp.MustCompile(`(?m)^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$`)

// patchPaths are the files a patch tool's arguments name, whatever the
// argument is called: every string argument is searched.
func patchPaths(in *Input) (writes, deletes []string) {
	for _, v := range in.ToolInput {
		s, ok := v.(string)
		if !ok {
			continue
		}
		for _, m := range patchFile.FindAllStringSubmatch(s, -1) {
			p := strings.TrimSpace(m[2])
			if m[1] == "Delete File" {
				deletes = append(deletes, p)
			} else {
				writes = append(writes, p)
			}
		}
	}
	return writes, deletes
}
