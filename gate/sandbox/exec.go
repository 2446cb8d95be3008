package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Executor runs a command in a workspace. A non-zero exit, a time-out or a
// truncated output is a Result; an error means the command could not be
// run as asked (the backend is broken, the command is malformed), and no
// part of it ran unisolated.
type Executor interface {
	// Backend names the isolation: "bwrap", or a weaker mode the policy
	// allowed by name. It is recorded in every Result and in the evidence.
	Backend() string
	// Owner is the identity a workspace's files must belong to for its
	// commands to write them (nil: leave them as they are); pass it to
	// Create.
	Owner() *Owner
	Run(ctx context.Context, ws *Workspace, cmd Command) (*Result, error)
}

// Command is one program to run.
type Command struct {
	Argv  []string
	Dir   string   // relative to the workspace root; "" is the root
	Env   []string // KEY=VALUE added after the allowlist; secret-looking names are refused
	Stdin []byte
	Limit Limits // zero fields take the executor's defaults
}

// Limits bound one command. CPU, memory, processes and file size are
// rlimits set by prlimit(1) inside the sandbox, inherited by every process
// the command starts.
type Limits struct {
	Wall        time.Duration // the whole sandbox is killed at this limit
	CPU         time.Duration // RLIMIT_CPU, whole seconds
	Memory      int64         // RLIMIT_AS, bytes
	Procs       int           // RLIMIT_NPROC: processes of the sandbox's user in its namespace
	FileSize    int64         // RLIMIT_FSIZE, bytes
	OutputBytes int           // kept of each of stdout and stderr; the rest is counted
}

// DefaultLimits suit a test run of a mid-sized Go module.
var DefaultLimits = Limits{
	Wall:        10 * time.Minute,
	CPU:         20 * time.Minute,
	Memory:      8 << 30,
	Procs:       512,
	FileSize:    1 << 30,
	OutputBytes: 1 << 20,
}

func (l Limits) or(d Limits) Limits {
	pick := func(a, b int64) int64 {
		if a > 0 {
			return a
		}
		return b
	}
	return Limits{
		Wall:        time.Duration(pick(int64(l.Wall), int64(d.Wall))),
		CPU:         time.Duration(pick(int64(l.CPU), int64(d.CPU))),
		Memory:      pick(l.Memory, d.Memory),
		Procs:       int(pick(int64(l.Procs), int64(d.Procs))),
		FileSize:    pick(l.FileSize, d.FileSize),
		OutputBytes: int(pick(int64(l.OutputBytes), int64(d.OutputBytes))),
	}
}

// prlimitArgv wraps argv in prlimit(1) with the limits.
func (l Limits) prlimitArgv(prlimit string, argv []string) []string {
	cpu := max(1, int64((l.CPU+time.Second-1)/time.Second))
	out := []string{prlimit,
		"--cpu=" + strconv.FormatInt(cpu, 10),
		"--as=" + strconv.FormatInt(l.Memory, 10),
		"--nproc=" + strconv.Itoa(l.Procs),
		"--fsize=" + strconv.FormatInt(l.FileSize, 10),
		"--core=0",
		"--"}
	return append(out, argv...)
}

// Result is what one command did.
type Result struct {
	Backend     string        `json:"backend"`
	Argv        []string      `json:"argv"`
	ExitCode    int           `json:"exit_code"` // -1 when the command did not exit by itself
	Stdout      []byte        `json:"stdout"`
	Stderr      []byte        `json:"stderr"`
	StdoutBytes int64         `json:"stdout_bytes"` // produced, kept or not
	StderrBytes int64         `json:"stderr_bytes"`
	Truncated   bool          `json:"truncated"` // some output was not kept
	Duration    time.Duration `json:"duration_ns"`
	TimedOut    bool          `json:"timed_out"` // killed at the wall limit
	Canceled    bool          `json:"canceled"`  // killed because the caller's context ended
}

// OK reports a zero exit within the limits.
func (r *Result) OK() bool { return r.ExitCode == 0 && !r.TimedOut && !r.Canceled }

// capWriter keeps the first max bytes written and counts the rest.
type capWriter struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total += int64(len(p))
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// secretName reports whether an environment variable's name looks like it
// carries a credential; such a variable never enters a sandbox.
// hostEnv is the harness's own environment without secret-looking names
// (and without git's GIT_* when noGit): what the harness's own child
// processes (git, go mod download) run with, outside the sandbox. The
// sandboxed commands never see it (bwrap builds theirs from an allowlist).
func hostEnv(noGit bool) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if secretName(name) || (noGit && strings.HasPrefix(name, "GIT_")) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, suffix := range []string{"_KEY", "_TOKEN", "_SECRET", "_CREDENTIALS", "_CREDENTIAL", "_PASS", "_PASSWD", "_AUTH"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	for _, part := range []string{"PASSWORD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE_KEY"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	for _, prefix := range []string{"AWS_", "AZURE_", "ARM_CLIENT", "GOOGLE_", "GCLOUD_", "CLOUDSDK_", "GCP_", "DIGITALOCEAN_", "OCI_", "ALIBABA_", "SSH_", "GPG_", "GNUPG", "KUBECONFIG", "DOCKER_", "VAULT_", "NETRC", "NPM_CONFIG_", "PIP_INDEX_URL", "GIT_ASKPASS", "GH_", "GITHUB_", "GITLAB_"} {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// environment is the variables a sandboxed command starts with: the fixed
// allowlist first, then extra KEY=VALUE pairs, refused if secret-looking.
func environment(fixed map[string]string, extra []string) ([]string, error) {
	env := map[string]string{}
	for k, v := range fixed {
		env[k] = v
	}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
		}
		if secretName(k) {
			return nil, fmt.Errorf("environment variable %s looks like a credential and never enters the sandbox", k)
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out, nil
}
