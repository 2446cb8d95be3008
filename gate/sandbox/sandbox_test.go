package sandbox

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// reachableDir is a temporary directory, removed with the test. Its mode is
// 0700, as go test's are: the sandbox's user could not reach it, and needs
// not (bwrap gets its binds as descriptors).
func reachableDir(t *testing.T, parent string) string {
	t.Helper()
	d, err := os.MkdirTemp(parent, "cairn-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fixture is a repository with a commit, a workspace of it and a bwrap
// executor, all under root.
type fixture struct {
	root, repo, base string
	ws               *Workspace
	ex               Executor
}

func newFixture(t *testing.T, root string, opts Options) *fixture {
	t.Helper()
	f := &fixture{root: root, repo: filepath.Join(root, "repo")}
	if err := os.MkdirAll(filepath.Join(f.repo, ".github/workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.22\n",
		"m.go":                     "package m\n\nfunc Answer() int { return 42 }\n",
		"m_test.go":                "package m\n\nimport \"testing\"\n\nfunc TestAnswer(t *testing.T) {\n\tif Answer() != 42 {\n\t\tt.Fatal(Answer())\n\t}\n}\n",
		".github/workflows/ci.yml": "on: push\n",
		"doc/readme.txt":           "hello\n",
	} {
		p := filepath.Join(f.repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, f.repo, "git", "init", "-q")
	run(t, f.repo, "git", "add", ".")
	run(t, f.repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	f.base = run(t, f.repo, "git", "rev-parse", "HEAD")
	if opts.HostHome == "" {
		opts.HostHome = filepath.Join(root, "home")
	}
	ex, err := Select(context.Background(), opts)
	if err != nil {
		t.Fatalf("bubblewrap must run for these tests (the CI installs it): %v", err)
	}
	f.ex = ex
	ws, err := Create(context.Background(), f.repo, "HEAD", filepath.Join(root, "runs", "r1"), ex.Owner())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Remove(context.Background()) })
	f.ws = ws
	return f
}

func (f *fixture) sh(t *testing.T, script string, lim Limits) *Result {
	t.Helper()
	res, err := f.ex.Run(context.Background(), f.ws, Command{Argv: []string{"bash", "-c", script}, Limit: lim})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != BackendBwrap {
		t.Fatalf("backend %q", res.Backend)
	}
	return res
}

func TestRunsInWorkspace(t *testing.T) {
	f := newFixture(t, reachableDir(t, ""), Options{})
	res := f.sh(t, "pwd; cat m.go | head -1; echo out-of-band >&2; exit 3", Limits{})
	if res.ExitCode != 3 || string(res.Stdout) != f.ws.Dir+"\npackage m\n" || string(res.Stderr) != "out-of-band\n" {
		t.Errorf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestNoNetwork: a port the test listens on at the host's 127.0.0.1 cannot
// be reached from inside, and nothing arrives at it.
func TestNoNetwork(t *testing.T) {
	f := newFixture(t, reachableDir(t, ""), Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	res := f.sh(t, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo connected; ls /sys/class/net 2>/dev/null || cat /proc/net/dev", Limits{})
	if bytes.Contains(res.Stdout, []byte("connected")) || accepted.Load() != 0 {
		t.Errorf("connected to the host's loopback from inside: %q, %d accepted", res.Stdout, accepted.Load())
	}
	// The host's own client reaches it, so the port was open.
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestWritesConfined: inside, the workspace is writable; the system, the
// repository outside the workspace, .git and CI configuration are not, and
// /tmp is private.
func TestWritesConfined(t *testing.T) {
	f := newFixture(t, reachableDir(t, "/var/tmp"), Options{})
	hostTmp := filepath.Join("/tmp", "cairn-sandbox-escape-"+strconv.Itoa(os.Getpid())) // the host's /tmp, whatever TMPDIR says
	defer os.Remove(hostTmp)
	for _, target := range []string{
		"/usr/cairn-escape",
		"/etc/cairn-escape",
		filepath.Join(f.repo, "escape.txt"),
		filepath.Join(f.root, "escape.txt"),
		filepath.Join(f.ws.Dir, ".git"),
		filepath.Join(f.ws.Dir, ".github/workflows/ci.yml"),
		filepath.Join(f.ws.Dir, ".github/workflows/new.yml"),
		"../escape.txt",
	} {
		res := f.sh(t, "echo x > '"+target+"'", Limits{})
		if res.ExitCode == 0 {
			t.Errorf("write to %s succeeded inside", target)
		}
	}
	for _, p := range []string{filepath.Join(f.repo, "escape.txt"), filepath.Join(f.root, "escape.txt"), filepath.Join(f.ws.RunDir, "escape.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws.Dir, ".github/workflows/ci.yml")); string(b) != "on: push\n" {
		t.Errorf("CI config changed: %q", b)
	}
	res := f.sh(t, "echo x > "+hostTmp+" && echo ok > new.txt && mkdir -p a/b && echo y > a/b/c.txt", Limits{})
	if !res.OK() {
		t.Fatalf("writes inside the workspace: %d %s", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(hostTmp); err == nil {
		t.Errorf("a write to the sandbox's /tmp reached the host's")
	}
	if b, err := os.ReadFile(filepath.Join(f.ws.Dir, "a/b/c.txt")); err != nil || string(b) != "y\n" {
		t.Errorf("workspace write: %q %v", b, err)
	}
}

// TestSecretsAbsent: the host's credentials do not enter; the environment
// is the allowlist.
func TestSecretsAbsent(t *testing.T) {
	secrets := map[string]string{
		"FOO_API_KEY":           "sk-foo",
		"GITHUB_TOKEN":          "ghp_x",
		"AWS_SECRET_ACCESS_KEY": "aws-x",
		"AWS_ACCESS_KEY_ID":     "AKIA",
		"DB_PASSWORD":           "hunter2",
		"MY_SECRET":             "my-secret-value",
		"SSH_AUTH_SOCK":         "/tmp/agent.sock",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "en_US.UTF-8")
	f := newFixture(t, reachableDir(t, ""), Options{PassEnv: []string{"LANG"}})
	res := f.sh(t, "env", Limits{})
	env := string(res.Stdout)
	for k, v := range secrets {
		if strings.Contains(env, k) || strings.Contains(env, v) {
			t.Errorf("%s is visible inside", k)
		}
	}
	for _, want := range []string{"HOME=/tmp/home\n", "GOPROXY=off\n", "LANG=en_US.UTF-8\n", "GOFLAGS=-mod=mod -buildvcs=false\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %q:\n%s", want, env)
		}
	}
	if _, err := f.ex.Run(context.Background(), f.ws, Command{Argv: []string{"true"}, Env: []string{"OPENAI_API_KEY=x"}}); err == nil {
		t.Error("a command's own secret-looking variable was let in")
	}
	if _, err := NewBwrap(Options{PassEnv: []string{"GITHUB_TOKEN"}}); err == nil {
		t.Error("passing GITHUB_TOKEN through was accepted")
	}
}

// TestHostHomeUnreadable: the host's ~/.ssh stays unreadable even with the
// repository, the run and the module cache inside that home.
func TestHostHomeUnreadable(t *testing.T) {
	// Not below /tmp, which is private anyway; and as open as a careless
	// home can be (0755 down to a world-readable key), so that only
	// what is bound, not the file modes, keeps the key out.
	root := reachableDir(t, "/var/tmp")
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	for _, d := range []string{".ssh", "go/pkg/mod"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.WriteFile(key, []byte("-----BEGIN FAKE KEY-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, home, Options{HostHome: home, GoModCache: filepath.Join(home, "go/pkg/mod")})
	res := f.sh(t, "cat "+key+"; ls -a "+filepath.Join(home, ".ssh")+"; ls -a /root/.ssh; cat ~/.ssh/id_rsa", Limits{})
	if bytes.Contains(res.Stdout, []byte("FAKE KEY")) || bytes.Contains(res.Stdout, []byte("id_rsa")) {
		t.Errorf("the host home's key is readable inside:\n%s", res.Stdout)
	}
	// Binding the home itself (or a parent) is refused.
	ex, err := NewBwrap(Options{HostHome: home, ReadOnly: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Run(context.Background(), f.ws, Command{Argv: []string{"true"}}); err == nil || !strings.Contains(err.Error(), "would expose the host home") {
		t.Errorf("binding a parent of the home: %v", err)
	}
}

// gone reports whether no process on the host has marker in its argv.
func gone(t *testing.T, marker string) bool {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(b, []byte(marker)) {
			return false
		}
	}
	return true
}

// TestWallLimit: a command that sleeps forever (and a child it started in
// the background) is killed at the wall limit, reported as timed out, and
// leaves no process behind.
func TestWallLimit(t *testing.T) {
	f := newFixture(t, reachableDir(t, ""), Options{})
	const marker = "86399.123"
	start := time.Now()
	res := f.sh(t, "(setsid sleep "+marker+" &); sleep "+marker, Limits{Wall: time.Second})
	if !res.TimedOut || res.ExitCode != -1 || res.OK() {
		t.Errorf("timed out %v, exit %d", res.TimedOut, res.ExitCode)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %v to kill at a 1 s limit", d)
	}
	deadline := time.Now().Add(3 * time.Second)
	for !gone(t, marker) {
		if time.Now().After(deadline) {
			t.Fatalf("a sleep %s is still running after the limit", marker)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestForkBombBounded: the process limit stops a fork bomb, and the wall
// limit ends it without strays.
func TestForkBombBounded(t *testing.T) {
	f := newFixture(t, reachableDir(t, ""), Options{})
	res := f.sh(t, "exec -a cairn-bomb bash -c 'b() { b | b & }; b; sleep 60'", Limits{Procs: 32, Wall: 3 * time.Second, OutputBytes: 4096})
	if res.OK() {
		t.Errorf("the fork bomb ended well: %+v", res)
	}
	if !bytes.Contains(res.Stderr, []byte("Resource temporarily unavailable")) {
		t.Errorf("no fork failed at the process limit; stderr %q", res.Stderr)
	}
	time.Sleep(200 * time.Millisecond)
	if !gone(t, "cairn-bomb") {
		t.Error("fork bomb processes outlived the sandbox")
	}
}

// TestOutputCapped: huge output is cut at the cap and counted.
func TestOutputCapped(t *testing.T) {
	f := newFixture(t, reachableDir(t, ""), Options{})
	res := f.sh(t, "head -c 50000000 /dev/zero; echo done >&2", Limits{OutputBytes: 64 << 10})
	if !res.OK() || len(res.Stdout) != 64<<10 || res.StdoutBytes != 50000000 || !res.Truncated || string(res.Stderr) != "done\n" {
		t.Errorf("exit %d, kept %d of %d, truncated %v, stderr %q", res.ExitCode, len(res.Stdout), res.StdoutBytes, res.Truncated, res.Stderr)
	}
}

// TestUnavailable: without bwrap the executor refuses, saying why, unless
// the policy names the weaker backend.
func TestUnavailable(t *testing.T) {
	opts := Options{Bwrap: "/nonexistent/bwrap"}
	_, err := Select(context.Background(), opts)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Backend != BackendBwrap || !strings.Contains(err.Error(), "/nonexistent/bwrap") {
		t.Errorf("Select without bwrap: %v, want an UnavailableError naming it", err)
	}
	// It says why and what the user can allow.
	for _, want := range []string{"not installed", "--allow-weaker-sandbox unisolated", "a repository's policy cannot"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	opts.AllowWeaker = "chroot"
	if _, err := Select(context.Background(), opts); err == nil {
		t.Error("an unknown weaker backend was accepted")
	}
	opts.AllowWeaker = Unisolated
	ex, err := Select(context.Background(), opts)
	if err != nil || ex.Backend() != Unisolated {
		t.Fatalf("Select with AllowWeaker: %v, %v", ex, err)
	}
	if why := Degraded(ex); why == nil || !strings.Contains(why.Error(), "/nonexistent/bwrap") {
		t.Errorf("Degraded: %v, want why bwrap could not run", why)
	}
	root := reachableDir(t, "")
	repo := filepath.Join(root, "repo")
	os.MkdirAll(repo, 0o755)
	run(t, repo, "git", "init", "-q")
	run(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "base")
	ws, err := Create(context.Background(), repo, "HEAD", filepath.Join(root, "run"), ex.Owner())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove(context.Background())
	t.Setenv("FOO_API_KEY", "sk-foo")
	res, err := ex.Run(context.Background(), ws, Command{Argv: []string{"sh", "-c", "pwd; env"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != Unisolated || !bytes.HasPrefix(res.Stdout, []byte(ws.Dir+"\n")) || bytes.Contains(res.Stdout, []byte("FOO_API_KEY")) {
		t.Errorf("unisolated run: backend %s\n%s", res.Backend, res.Stdout)
	}
}

// TestUserNamespaceCause: the host settings that stop an unprivileged
// bwrap are named, the first that is set.
func TestUserNamespaceCause(t *testing.T) {
	for _, tt := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"kernel/unprivileged_userns_clone": "1\n", "user/max_user_namespaces": "63000\n"}, ""},
		{map[string]string{"kernel/unprivileged_userns_clone": "0\n"}, "kernel.unprivileged_userns_clone=0"},
		{map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1\n", "user/max_user_namespaces": "63000\n"}, "kernel.apparmor_restrict_unprivileged_userns=1"},
		{map[string]string{"user/max_user_namespaces": "0\n"}, "user.max_user_namespaces=0"},
	} {
		dir := t.TempDir()
		for name, v := range tt.files {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
			os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644)
		}
		got := userNamespaceCause(dir)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.files, got, tt.want)
		}
	}
}

// TestCPUAndMemoryLimits: a busy loop is stopped at its CPU seconds, well
// before its wall limit; an allocation past the address-space limit fails.
func TestCPUAndMemoryLimits(t *testing.T) {
	f := newFixture(t, reachableDir(t, ""), Options{})
	res := f.sh(t, "while :; do :; done", Limits{CPU: time.Second, Wall: 20 * time.Second})
	if res.TimedOut || res.OK() || res.Duration > 10*time.Second {
		t.Errorf("busy loop: exit %d, timed out %v, after %v", res.ExitCode, res.TimedOut, res.Duration)
	}
	res = f.sh(t, `x=$(head -c 300000000 /dev/zero | tr '\0' a); echo ${#x}`, Limits{Memory: 128 << 20})
	if res.OK() || strings.Contains(string(res.Stdout), "300000000") {
		t.Errorf("300 MB in a 128 MiB address space: exit %d, %q", res.ExitCode, res.Stdout)
	}
}

// TestUnprivileged runs the isolation tests again as an ordinary user when
// the suite runs as root, so both of bwrap's setups are proven: without
// root, bwrap makes a user namespace and the command runs as that user,
// and it is the read-only root, not file modes, that stops stray writes.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: the other tests cover this setup")
	}
	if os.Getenv("CAIRN_SANDBOX_UNPRIVILEGED") != "" {
		t.Skip("the child run")
	}
	dir, err := os.MkdirTemp("", "cairn-sandbox-user-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		bin, "-test.short", "-test.count=1",
		"-test.run=^(TestRunsInWorkspace|TestNoNetwork|TestWritesConfined|TestSecretsAbsent|TestHostHomeUnreadable|TestWallLimit|TestOutputCapped|TestForkBombBounded|TestWorkspaceGit)$")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "CAIRN_SANDBOX_UNPRIVILEGED=1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("PASS")) {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// TestHarnessKilled: when the harness itself is killed (kill -9 mid-run),
// the sandboxed command dies with it; nothing is left running.
func TestHarnessKilled(t *testing.T) {
	if os.Getenv("CAIRN_SANDBOX_HELPER") != "" {
		t.Skip("the helper run")
	}
	const marker = "86398.321"
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperSleep$", "-test.count=1")
	tmp := t.TempDir() // the killed helper cannot clean up after itself
	helper.Env = append(os.Environ(), "CAIRN_SANDBOX_HELPER="+marker, "TMPDIR="+tmp)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the sleep itself, not only bwrap: killed during its setup,
	// bwrap dies of a broken status pipe and proves nothing.
	deadline := time.Now().Add(30 * time.Second)
	for !sleeping(marker) {
		if time.Now().After(deadline) {
			helper.Process.Kill()
			helper.Wait()
			t.Fatal("the helper's sandboxed sleep never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for !gone(t, marker) {
		if time.Now().After(deadline) {
			t.Fatal("the sandboxed sleep outlived its killed harness")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sleeping reports whether a "sleep marker" process runs.
func sleeping(marker string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && string(b) == "sleep\x00"+marker+"\x00" {
			return true
		}
	}
	return false
}

// TestHelperSleep is TestHarnessKilled's harness: it sleeps in a sandbox
// until it is killed.
func TestHelperSleep(t *testing.T) {
	marker := os.Getenv("CAIRN_SANDBOX_HELPER")
	if marker == "" {
		t.Skip("run by TestHarnessKilled")
	}
	f := newFixture(t, reachableDir(t, ""), Options{})
	f.sh(t, "sleep "+marker, Limits{Wall: time.Minute})
}
