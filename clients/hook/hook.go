package hook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gate/policy"
)

// Event is the hook's moment.
type Event int

const (
	PreTool      Event = iota + 1 // before a tool runs: the policy decides
	Stop                          // the agent says it is done: the gate decides
	SessionStart                  // a session begins: the brief
)

var eventNames = [...]string{"", "pre-tool", "stop", "session-start"}

func (e Event) String() string {
	if e <= 0 || int(e) >= len(eventNames) {
		return fmt.Sprintf("Event(%d)", int(e))
	}
	return eventNames[e]
}

// ParseEvent reads an event's name as the command line gives it.
func ParseEvent(s string) (Event, error) {
	for i, n := range eventNames {
		if i > 0 && n == s {
			return Event(i), nil
		}
	}
	return 0, fmt.Errorf("unknown hook event %q: want pre-tool, stop or session-start", s)
}

// Client is the agent client whose hook protocol is spoken.
type Client int

const (
	ClaudeCode Client = iota + 1
	Codex
	Cursor
	GeminiCLI
	OpenCode
)

var clientNames = [...]string{"", "claude-code", "codex", "cursor", "gemini-cli", "opencode"}

func (c Client) String() string {
	if c <= 0 || int(c) >= len(clientNames) {
		return fmt.Sprintf("Client(%d)", int(c))
	}
	return clientNames[c]
}

// ParseClient reads a client's name as the command line gives it.
func ParseClient(s string) (Client, error) {
	for i, n := range clientNames {
		if i > 0 && n == s {
			return Client(i), nil
		}
	}
	return 0, fmt.Errorf("unknown client %q: want one of %s", s, strings.Join(clientNames[1:], ", "))
}

// Options configure one hook call.
type Options struct {
	Event  Event
	Client Client
	// Repo is the repository root; "" is the git top level of the
	// input's cwd (else the process's working directory).
	Repo string
	// IndexDir is the engine's index directory; "" its default
	// (<repo>/.cairn).
	IndexDir string
	// User is the user's layer of the policy (the repository's
	// .cairn/policy.yaml only narrows it).
	User policy.User
	// MaxBlocks is how many stops in a row the stop hook blocks before it
	// lets the agent stop unverified; default 3.
	MaxBlocks int
	// GateDir is the gate's directory; "" evidence.DefaultDir.
	GateDir string
	// Reruns of a failing test in the gate (verify.Options.Reruns).
	Reruns int
	// Version is cairn's, for the evidence.
	Version string
	// BriefBytes bounds the session-start brief; default 6000 bytes
	// (about 1,500 tokens).
	BriefBytes int
	// ReindexBudget bounds the incremental re-index at session start and
	// stop; default 5s. A re-index cut short leaves the previous
	// generation, and the brief says the index is stale.
	ReindexBudget time.Duration

	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

func (o Options) withDefaults() Options {
	o.Client = cmp.Or(o.Client, ClaudeCode)
	o.MaxBlocks = cmp.Or(o.MaxBlocks, 3)
	o.BriefBytes = cmp.Or(o.BriefBytes, 6000)
	o.ReindexBudget = cmp.Or(o.ReindexBudget, 5*time.Second)
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return o
}

// Verdict is what a hook answers.
type Verdict int

const (
	Silent  Verdict = iota // allow, and say nothing: the client's own rules decide
	Deny                   // refuse the tool call (Reason to the model)
	AskUser                // the client asks its user (where it can; else Silent)
	Block                  // refuse the stop: the agent goes on (Reason to the model)
	Note                   // allow, with a message to the user (User)
	Context                // session start: Context enters the model's context
)

// Answer is a hook's decision before it is put in a client's format.
type Answer struct {
	Verdict Verdict
	Reason  string // for the model: what was refused and what to do
	User    string // for the person (a system message, stderr)
	Context string // the session-start brief
}

// Run answers one hook call: it reads the client's JSON on stdin, decides,
// writes the answer in the client's format and returns the exit code. It
// never panics: a panic, like any failure of cairn, is reported on stderr
// and answered by the policy's fail mode (hooks.fail).
func Run(ctx context.Context, o Options) (code int) {
	o = o.withDefaults()
	var in *Input
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("cairn panicked: %v\n%s", r, debug.Stack())
			code = o.write(in, o.failed(in, "", err))
		}
	}()
	in, err := readInput(o.Stdin, o.Client)
	if err != nil {
		return o.write(nil, o.failed(nil, "", err))
	}
	repo, err := o.repo(in)
	if err != nil {
		return o.write(in, o.failed(in, "", err))
	}
	var a Answer
	switch o.Event {
	case PreTool:
		a = o.preTool(in, repo)
	case Stop:
		a = o.stop(ctx, in, repo)
	case SessionStart:
		a = o.sessionStart(ctx, in, repo)
	default:
		a = o.failed(in, repo, fmt.Errorf("unknown event %v", o.Event))
	}
	return o.write(in, a)
}

// repo is the repository the call is about: Options.Repo, else the git
// top level of the input's cwd.
func (o Options) repo(in *Input) (string, error) {
	dir := o.Repo
	if dir == "" {
		dir = in.Cwd
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	if o.Repo == "" {
		dir = topLevel(dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("repository %s is not a directory", abs)
	}
	return abs, nil
}

// topLevel is the nearest directory at or above dir with a .git (a
// directory, or a worktree's file): found by stat, not by running git, as
// pre-tool runs on every tool call. dir itself when there is none.
func topLevel(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return abs
		}
	}
}

// failed is the answer when cairn could not decide: the failure on
// stderr, and the policy's fail mode (hooks.fail; refuse when the policy
// itself cannot be read). With fail: allow, a pre-tool call whose input
// was read is still checked against the built-in default policy, so a
// path it protects stays refused.
func (o Options) failed(in *Input, repo string, err error) Answer {
	// the layered policy's mode; the user's alone when the repository's
	// file is what failed; refuse when neither can be read
	mode := policy.Default().Hooks.Fail
	if dir := cmp.Or(repo, o.Repo); dir != "" {
		if p, perr := policy.Layered(dir, o.User); perr == nil {
			mode = p.Hooks.Fail
		} else if u, uerr := policy.UserLayer(dir, o.User); uerr == nil {
			mode = u.Hooks.Fail
		}
	}
	msg := fmt.Sprintf("cairn hook %s: %v", o.Event, err)
	var ie *InputError
	if errors.As(err, &ie) {
		msg = fmt.Sprintf("cairn hook %s: %v", o.Event, ie)
	}
	switch o.Event {
	case PreTool:
		if mode == policy.FailRefuse {
			return Answer{Verdict: Deny, User: msg,
				Reason: fmt.Sprintf("cairn could not check this action, and its policy refuses what it cannot check (hooks.fail: refuse): %s. Tell the user; do not try to work around the check.", firstLine(err.Error()))}
		}
		if in != nil && repo != "" {
			if a := o.check(in, repo, policy.Default()); a.Verdict == Deny {
				a.User = msg
				return a
			}
		}
		return Answer{Verdict: Note, User: msg + " (allowed: hooks.fail is allow)"}
	case Stop:
		if mode == policy.FailRefuse && in != nil && repo != "" {
			return o.refuseStop(in, repo, fmt.Sprintf("cairn could not run the verification gate: %s", firstLine(err.Error())), msg)
		}
		return Answer{Verdict: Note, User: msg + " — the change is UNVERIFIED."}
	}
	return Answer{Verdict: Note, User: msg}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// write puts the answer in the client's format and returns the exit code.
func (o Options) write(in *Input, a Answer) int {
	out, stderr, code := encode(o.Client, o.Event, in, a)
	if stderr != "" {
		fmt.Fprintln(o.Stderr, stderr)
	}
	if len(out) > 0 {
		o.Stdout.Write(out)
	}
	return code
}
