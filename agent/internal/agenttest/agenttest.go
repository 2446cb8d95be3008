// Package agenttest holds what the agent packages' tests share: copying a
// fixture into a repository, running git there, and the real bubblewrap
// executor (one per test process). It is for tests only.
package agenttest

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/eval/evaltest"
	"github.com/cairn-dev/cairn/gate/sandbox"
)

// CopyTree copies the files under from to to (evaltest.CopyTree).
func CopyTree(t testing.TB, from, to string) {
	t.Helper()
	evaltest.CopyTree(t, from, to)
}

// Git runs git in dir with a fixed identity and date (so every copy of a
// fixture gets the same commits) and trusts directories owned by the
// sandbox's user; it returns the trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "safe.directory=*"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

var (
	once     sync.Once
	executor sandbox.Executor
	execErr  error
)

// Executor is the bubblewrap executor with the host's Go toolchain bound
// in; a test fails (never skips) when it cannot run: make test installs
// bubblewrap.
func Executor(t testing.TB) sandbox.Executor {
	t.Helper()
	once.Do(func() {
		goroot, modcache, err := sandbox.GoToolchain(context.Background())
		if err != nil {
			execErr = err
			return
		}
		executor, execErr = sandbox.Select(context.Background(), sandbox.Options{GoRoot: goroot, GoModCache: modcache})
	})
	if execErr != nil {
		t.Fatalf("bubblewrap and go must run for these tests (make test installs bubblewrap): %v", execErr)
	}
	return executor
}
