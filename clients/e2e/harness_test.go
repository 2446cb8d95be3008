package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/agent/llm/llmtest"
)

// agents is where .ci/deps.sh installs testdata/agents/package-lock.json.
const agents = "../../testdata/agents/node_modules"

// clientBinary returns the absolute path of a client's native binary under
// agents, skipping the test when it is not installed — failing instead
// under make test, which installs it.
func clientBinary(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(agents, rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CAIRN_TEST_PG_REQUIRED") != "" {
			t.Fatalf("%s is not installed but make test needs it: run `bash .ci/deps.sh` (%v)", rel, err)
		}
		t.Skipf("%s is not installed (bash .ci/deps.sh installs it): %v", rel, err)
	}
	return p
}

var built struct {
	once sync.Once
	dir  string // removed by TestMain
	bin  string
	err  error
}

// cairnBinary builds cmd/cairn once per test binary.
func cairnBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "cairn-e2e-bin-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "cairn")
		out, err := exec.Command("go", "build", "-o", built.bin, "github.com/cairn-dev/cairn/cmd/cairn").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build ./cmd/cairn: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// run runs a command in dir and fails the test on an error.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// baseEnv is the environment every process of a session gets: a scratch
// HOME, the Go tool's caches of the machine (a fresh HOME would rebuild
// the standard library) and no proxy, so nothing leaves the loopback.
func baseEnv(t *testing.T, home string) []string {
	t.Helper()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return append(env, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off", "GIT_CONFIG_NOSYSTEM=1")
}

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newRepo makes a git repository of files with one commit.
func newRepo(t *testing.T, env []string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	writeFiles(t, dir, files)
	run(t, dir, env, "git", "init", "-q", "-b", "main")
	run(t, dir, env, "git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "add", "-A")
	run(t, dir, env, "git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-qm", "base")
	return dir
}

// session is one client session's surroundings: the scripted server, the
// scratch HOME and repository, and the environment.
type session struct {
	srv  *llmtest.Server
	home string
	repo string
	env  []string
}

// claudeResult is the JSON Claude Code prints at the end of a -p session
// with --output-format json.
type claudeResult struct {
	Type              string            `json:"type"`
	Subtype           string            `json:"subtype"`
	IsError           bool              `json:"is_error"`
	NumTurns          int               `json:"num_turns"`
	Result            string            `json:"result"`
	PermissionDenials []json.RawMessage `json:"permission_denials"`
}

// claude runs `claude -p prompt` in the session's repository against its
// server and returns what it printed. allowed lists the tools the session
// may use without asking (-p cannot ask: a tool not allowed is denied).
func (s *session) claude(t *testing.T, bin, prompt string, allowed ...string) claudeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"-p", prompt, "--output-format", "json", "--model", "claude-llmtest"}
	if len(allowed) > 0 {
		args = append(args, "--allowedTools", strings.Join(allowed, ","))
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = s.repo
	cmd.Env = append(append([]string(nil), s.env...),
		"ANTHROPIC_BASE_URL="+s.srv.AnthropicBaseURL(),
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"ENABLE_TOOL_SEARCH=false",
		"DISABLE_AUTOUPDATER=1",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr // stdin: /dev/null, or -p waits for it
	start := time.Now()
	err := cmd.Run()
	t.Logf("claude -p: %v, %d model calls", time.Since(start).Round(time.Millisecond), len(s.srv.Calls()))
	var res claudeResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); err != nil || jerr != nil {
		t.Fatalf("claude -p: %v (%v)\nstdout: %s\nstderr: %s\n%s", err, jerr, stdout.Bytes(), stderr.Bytes(), s.diagnose())
	}
	return res
}

// diagnose says what the server saw: every request and, per model call,
// the last message's blocks.
func (s *session) diagnose() string {
	var b strings.Builder
	b.WriteString("requests:\n")
	for _, r := range s.srv.Requests() {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	for _, c := range s.srv.Calls() {
		fmt.Fprintf(&b, "call %d (%d tools):\n", c.N, len(c.Tools))
		if n := len(c.Messages); n > 0 {
			for _, bl := range c.Messages[n-1].Content {
				text := bl.Text
				if len(text) > 600 {
					text = text[:600] + "…"
				}
				fmt.Fprintf(&b, "  %s %s %s error=%v: %s\n", bl.Kind, bl.Name, bl.ID, bl.IsError, text)
			}
		}
	}
	return b.String()
}
