package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
)

// Client is an agent client cairn sets itself up in.
type Client int

const (
	ClaudeCode Client = iota + 1
	Codex
	Cursor
	GeminiCLI
	OpenCode
)

var clientNames = [...]string{ClaudeCode: "claude-code", Codex: "codex", Cursor: "cursor", GeminiCLI: "gemini-cli", OpenCode: "opencode"}

func (c Client) String() string {
	if c > 0 && int(c) < len(clientNames) {
		return clientNames[c]
	}
	return fmt.Sprintf("Client(%d)", int(c))
}

// Clients lists every client setup knows, in a fixed order.
func Clients() []Client { return []Client{ClaudeCode, Codex, Cursor, GeminiCLI, OpenCode} }

// ParseClient reads a client's name as String writes it.
func ParseClient(s string) (Client, error) {
	for _, c := range Clients() {
		if c.String() == s {
			return c, nil
		}
	}
	names := make([]string, 0, len(clientNames))
	for _, c := range Clients() {
		names = append(names, c.String())
	}
	return 0, fmt.Errorf("unknown client %q (one of %s)", s, strings.Join(names, ", "))
}

// Scope says whose configuration is written: the user's (every project the
// client opens, in the user's home) or one project's (files in the
// repository, usually committed).
type Scope int

const (
	Project Scope = iota + 1
	User
)

func (s Scope) String() string {
	switch s {
	case Project:
		return "project"
	case User:
		return "user"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Options say what to set up and where.
type Options struct {
	Client Client
	Scope  Scope
	// Repo is the repository's absolute root: the project scope's files
	// are under it, and the user scope's commands name it (--repo).
	Repo string
	// Home is the user's home directory.
	Home string
	// Getenv reads the variables that move a client's files
	// (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME); nil reads none.
	Getenv func(string) string
	// Binary is the absolute path of the cairn the clients run.
	Binary string
	// Remove takes cairn's entries out instead of writing them.
	Remove bool
}

func (o Options) env(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

// A Change is one file's content before and after.
type Change struct {
	Path string
	// Role says what cairn keeps in the file ("MCP server", "hooks").
	Role string
	// Old is the file's content, nil when it does not exist; New is what
	// it becomes, equal to Old when nothing changes.
	Old, New []byte
	// User is true for a file in the user's home (written 0600 when new).
	User bool
}

// Changed says whether the file is to be written.
func (c Change) Changed() bool { return !bytes.Equal(c.Old, c.New) || (c.Old == nil) != (c.New == nil) }

// Diff is the change as a unified diff ("" when nothing changes).
func (c Change) Diff() string {
	if !c.Changed() {
		return ""
	}
	from := c.Path
	if c.Old == nil {
		from = "/dev/null"
	}
	return udiff.Unified(from, c.Path, string(c.Old), string(c.New))
}

// Plan is what setting up one client in one scope changes.
type Plan struct {
	Client  Client
	Scope   Scope
	Changes []Change
	// Notes are what the user must still do or know (trusting hooks,
	// hooks the client cannot take from a file).
	Notes []string
}

// Changed says whether any file is to be written.
func (p *Plan) Changed() bool {
	for _, c := range p.Changes {
		if c.Changed() {
			return true
		}
	}
	return false
}

// Diff is every change as one unified diff.
func (p *Plan) Diff() string {
	var b strings.Builder
	for _, c := range p.Changes {
		b.WriteString(c.Diff())
	}
	return b.String()
}

// A ConfigError is an existing configuration file setup cannot read or
// cannot merge into; nothing is written when one is returned.
type ConfigError struct {
	Path         string
	Line, Column int // 1-based; 0 when the position is unknown
	Msg          string
}

func (e *ConfigError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// lineColumn converts a byte offset of src to a 1-based line and column
// (in bytes).
func lineColumn(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	col = 1 + off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return line, col
}

func configError(path string, src []byte, off int, format string, args ...any) *ConfigError {
	e := &ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)}
	if off >= 0 {
		e.Line, e.Column = lineColumn(src, off)
	}
	return e
}

// Make plans setting up (or, with opts.Remove, taking out) cairn in one
// client: it reads the client's files and computes their new content,
// and writes nothing.
func Make(opts Options) (*Plan, error) {
	if !filepath.IsAbs(opts.Repo) || !filepath.IsAbs(opts.Binary) || !filepath.IsAbs(opts.Home) {
		return nil, fmt.Errorf("setup: repository, binary and home must be absolute paths (%q, %q, %q)", opts.Repo, opts.Binary, opts.Home)
	}
	prof, ok := profiles[opts.Client]
	if !ok {
		return nil, fmt.Errorf("setup: unknown client %v", opts.Client)
	}
	if opts.Scope != User && opts.Scope != Project {
		return nil, fmt.Errorf("setup: unknown scope %v", opts.Scope)
	}
	p := &Plan{Client: opts.Client, Scope: opts.Scope}
	for _, f := range prof.files(opts) {
		old, err := readConfig(f.path)
		if err != nil {
			return nil, err
		}
		c := Change{Path: f.path, Role: f.role, Old: old, User: opts.Scope == User}
		if c.New, err = f.apply(old, opts); err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, c)
	}
	if !opts.Remove {
		p.Notes = prof.notes(opts)
	}
	return p, nil
}

// maxConfig bounds the size of a configuration file setup reads:
// ~/.claude.json holds per-project history and grows, but not this far.
const maxConfig = 64 << 20

func readConfig(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, &ConfigError{Path: path, Msg: "is a directory, not a configuration file"}
	}
	if st.Size() > maxConfig {
		return nil, &ConfigError{Path: path, Msg: fmt.Sprintf("is %d bytes, more than setup reads (%d)", st.Size(), maxConfig)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// Apply writes the plan's changed files. Before it changes an existing
// file it copies it to FILE.cairn-backup-TIMESTAMP (returned in backups).
// A file that changed on disk since Make read it is not overwritten: the
// client may have rewritten it meanwhile (Claude Code rewrites
// ~/.claude.json while it runs), and Apply fails asking for a re-run.
func (p *Plan) Apply(now time.Time) (backups []string, err error) {
	for _, c := range p.Changes {
		if !c.Changed() {
			continue
		}
		cur, err := readConfig(c.Path)
		if err != nil {
			return backups, err
		}
		if !bytes.Equal(cur, c.Old) || (cur == nil) != (c.Old == nil) {
			return backups, fmt.Errorf("%s changed while cairn setup ran; nothing written to it, run cairn setup again", c.Path)
		}
		target, err := resolve(c.Path)
		if err != nil {
			return backups, err
		}
		mode := os.FileMode(0o644)
		if c.User {
			mode = 0o600
		}
		if c.Old != nil {
			st, err := os.Stat(target)
			if err != nil {
				return backups, fmt.Errorf("stat %s: %w", c.Path, err)
			}
			mode = st.Mode().Perm()
			b, err := backup(target, c.Old, mode, now)
			if err != nil {
				return backups, err
			}
			backups = append(backups, b)
		}
		if err := writeAtomic(target, c.New, mode); err != nil {
			return backups, err
		}
	}
	return backups, nil
}

// resolve follows a symbolic link to the file it names, so that a
// configuration kept elsewhere (a dotfiles checkout) is edited in place
// rather than replaced by a regular file.
func resolve(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return path, nil
	}
	t, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return t, nil
}

func backup(path string, content []byte, mode os.FileMode, now time.Time) (string, error) {
	base := path + ".cairn-backup-" + now.UTC().Format("20060102T150405Z")
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, os.ErrExist) {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
}

// writeAtomic writes content aside in the same directory, syncs it and
// renames it over path.
func writeAtomic(path string, content []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".cairn-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
