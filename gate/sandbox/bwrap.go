package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure the executors. Zero values take the defaults noted.
type Options struct {
	Bwrap   string // the bwrap binary; default "bwrap" from PATH
	Prlimit string // prlimit(1), at the same path inside the sandbox; default /usr/bin/prlimit
	Setpriv string // setpriv(1), likewise; default /usr/bin/setpriv

	// Owner is the identity sandboxed commands run as and workspace files
	// belong to; default nobody (65534:65534) when the harness is root,
	// nil (the harness's own identity) otherwise.
	Owner *Owner

	HostHome   string   // the host user's home, never exposed; default os.UserHomeDir
	GoRoot     string   // bound read-only, its bin first in PATH (GoToolchain finds it)
	GoModCache string   // the host's module cache, bound read-only
	ReadOnly   []string // more host directories bound read-only at the same path
	PassEnv    []string // host variables copied by name (LANG, TZ …); secret-looking names are refused
	Env        []string // KEY=VALUE fixed for every command; secret-looking names are refused

	// Protected are workspace-relative paths re-bound read-only inside
	// the workspace when they exist; default DefaultProtected.
	Protected []string
	Limits    Limits // defaults for every command; zero fields take DefaultLimits

	// AllowWeaker names the one weaker backend Select may use when bwrap
	// cannot run; "" allows none. The only one is Unisolated.
	AllowWeaker string
}

// DefaultProtected are the paths a sandboxed command may read but not
// write: git's metadata and the CI configuration of the common services.
var DefaultProtected = []string{
	".git", ".github", ".gitlab-ci.yml", ".gitlab", ".circleci", ".travis.yml", ".buildkite",
	"azure-pipelines.yml", ".azure-pipelines", "Jenkinsfile", ".drone.yml", "bitbucket-pipelines.yml",
	".woodpecker", ".woodpecker.yml", "appveyor.yml", ".appveyor.yml", ".cirrus.yml", ".ci",
}

// homeSecrets are paths under the host home masked wherever a bind would
// otherwise expose them.
var homeSecrets = []string{
	".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".kube", ".docker", ".gnupg",
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".m2/settings.xml", ".config/hub", ".terraform.d",
}

// etcSecrets are masked in the read-only /etc.
var etcSecrets = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private"}

// systemDirs are bound read-only (or recreated as the symlinks they are).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// Backend names.
const (
	BackendBwrap = "bwrap"
	// Unisolated runs commands as plain processes in the workspace with
	// the same environment allowlist and limits but no isolation of the
	// filesystem, network or processes. Only an explicit policy choice
	// (Options.AllowWeaker) selects it.
	Unisolated = "unisolated"
)

// UnavailableError says why the bubblewrap backend cannot run here: bwrap's
// own message, what the host's settings suggest is the cause, and what the
// user can allow instead.
type UnavailableError struct {
	Backend string
	Err     error
	// Cause is what the host's settings suggest (bubblewrap not installed,
	// unprivileged user namespaces disabled or restricted by AppArmor);
	// "" when nothing stands out.
	Cause string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("sandbox backend %s cannot run here: %s. Nothing runs without isolation unless you allow it yourself: "+
		"--allow-weaker-sandbox %s (or sandbox: {allow_weaker: %s} in your own policy, ~/.config/cairn/policy.yaml) runs the commands "+
		"as plain processes with the host's network and filesystem; a repository's policy cannot allow it", e.Backend, e.Reason(), Unisolated, Unisolated)
}

// Reason is bwrap's failure and its likely cause, without the remedy.
func (e *UnavailableError) Reason() string {
	if e.Cause == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "; " + e.Cause
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Select returns the bubblewrap executor when it can run here (it runs a
// trivial command once to find out); otherwise the weaker backend that
// opts.AllowWeaker names, or an *UnavailableError. It never falls back
// silently: the backend is in every Result.
func Select(ctx context.Context, opts Options) (Executor, error) {
	b, err := NewBwrap(opts)
	if err == nil {
		err = b.Probe(ctx)
	}
	if err == nil {
		return b, nil
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		return nil, err
	}
	switch opts.AllowWeaker {
	case "":
		return nil, err
	case Unisolated:
		p := newProcess(opts)
		p.why = ue
		return p, nil
	}
	return nil, fmt.Errorf("%w; and the allowed weaker backend %q is not one (known: %s)", err, opts.AllowWeaker, Unisolated)
}

// Bwrap runs commands under bubblewrap. See doc.go for what is isolated.
type Bwrap struct {
	opts      Options
	bin       string
	probeOnce sync.Once
	probeErr  error
}

// NewBwrap checks the options and finds bwrap; Probe tells whether it runs.
func NewBwrap(opts Options) (*Bwrap, error) {
	opts = fill(opts)
	if _, err := environment(nil, opts.Env); err != nil {
		return nil, err
	}
	for _, name := range opts.PassEnv {
		if secretName(name) {
			return nil, fmt.Errorf("sandbox: host variable %s looks like a credential and is never passed in", name)
		}
	}
	if os.Geteuid() == 0 && (opts.Owner == nil || opts.Owner.UID == 0 || opts.Owner.GID == 0) {
		return nil, errors.New("sandbox: commands never run as root; give Owner a non-root uid and gid")
	}
	bin, err := exec.LookPath(opts.Bwrap)
	if err != nil {
		return nil, &UnavailableError{Backend: BackendBwrap, Err: err,
			Cause: "bubblewrap is not installed, or not on PATH (the package is bubblewrap)"}
	}
	return &Bwrap{opts: opts, bin: bin}, nil
}

func fill(opts Options) Options {
	if opts.Bwrap == "" {
		opts.Bwrap = "bwrap"
	}
	if opts.Prlimit == "" {
		opts.Prlimit = "/usr/bin/prlimit"
	}
	if opts.Setpriv == "" {
		opts.Setpriv = "/usr/bin/setpriv"
	}
	if opts.Owner == nil && os.Geteuid() == 0 {
		opts.Owner = &Owner{UID: 65534, GID: 65534}
	}
	if opts.HostHome == "" {
		opts.HostHome, _ = os.UserHomeDir()
	}
	if opts.Protected == nil {
		opts.Protected = DefaultProtected
	}
	opts.Limits = opts.Limits.or(DefaultLimits)
	return opts
}

func (b *Bwrap) Backend() string { return BackendBwrap }

// Owner is the identity workspace files must belong to (nil: as they are).
func (b *Bwrap) Owner() *Owner { return b.opts.Owner }

// Probe runs a trivial command under bubblewrap once and remembers the
// answer: nil, or an *UnavailableError carrying bwrap's own message.
func (b *Bwrap) Probe(ctx context.Context) error {
	b.probeOnce.Do(func() {
		for _, tool := range []string{b.opts.Prlimit, b.opts.Setpriv} {
			if _, err := os.Stat(tool); err != nil {
				b.probeErr = &UnavailableError{Backend: BackendBwrap, Err: err}
				return
			}
		}
		args := append(append(b.systemArgs(), "--"), b.chain(Limits{Procs: 16}.or(DefaultLimits), []string{"true"})...)
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, b.bin, args...)
		cmd.SysProcAttr = b.sysProcAttr()
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		if out, err := cmd.CombinedOutput(); err != nil {
			cause := ""
			switch {
			case !b.privileged():
				cause = userNamespaceCause("/proc/sys")
			case strings.Contains(string(out), "Operation not permitted"):
				cause = "as root, bwrap makes its namespaces without a user namespace and needs CAP_SYS_ADMIN, which this process (a container's?) lacks"
			}
			b.probeErr = &UnavailableError{Backend: BackendBwrap, Err: fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out))), Cause: cause}
		}
	})
	return b.probeErr
}

// userNamespaceCause names the host setting that keeps an unprivileged
// bwrap from making its user namespace, read under procSys (/proc/sys):
// Debian's and Ubuntu's switch, Ubuntu's AppArmor restriction, or no user
// namespaces at all; "" when none is set.
func userNamespaceCause(procSys string) string {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(procSys, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	switch {
	case read("kernel/unprivileged_userns_clone") == "0":
		return "unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone=0 (sysctl -w kernel.unprivileged_userns_clone=1 allows them)"
	case read("kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "AppArmor restricts unprivileged user namespaces: kernel.apparmor_restrict_unprivileged_userns=1 (an AppArmor profile for bwrap with the userns permission, or the sysctl set to 0, allows them)"
	case read("user/max_user_namespaces") == "0":
		return "user namespaces are disabled: user.max_user_namespaces=0"
	}
	return ""
}

// Degraded is why bubblewrap could not run when ex is the weaker backend
// Select chose instead; nil for any other executor.
func Degraded(ex Executor) *UnavailableError {
	if p, ok := ex.(*process); ok {
		return p.why
	}
	return nil
}

func (b *Bwrap) sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// privileged reports whether bwrap runs as root: then it makes no user
// namespace (binds are resolved with root's access, so a module cache under
// a 0700 /root can be bound) and the command drops to Owner through
// setpriv; otherwise bwrap makes an unprivileged user namespace and the
// command runs as the harness's own user.
func (b *Bwrap) privileged() bool { return os.Geteuid() == 0 }

// systemArgs are the namespaces and the read-only system: no network but
// a loopback of its own, fresh /proc and /dev, a private /tmp and HOME.
func (b *Bwrap) systemArgs() []string {
	var args []string
	if b.privileged() {
		// Only what setpriv needs to drop to Owner; it drops these too.
		args = []string{"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
			"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"}
	} else {
		args = []string{"--unshare-all", "--cap-drop", "ALL"}
	}
	args = append(args, "--die-with-parent", "--new-session")
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				args = append(args, "--symlink", target, d)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
		}
	}
	for _, p := range etcSecrets {
		args = append(args, mask(p)...)
	}
	// /tmp and HOME are the sandbox's alone: open to its user, who
	// is not the root that creates them.
	return append(args, "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp", "--perms", "0777", "--dir", sandboxHome)
}

// startedScript reports, on fd 4, that the sandbox was set up and the
// limits applied, then runs the command: without that byte, a failure is
// bwrap's, not the command's.
const startedScript = `printf 1 >&4; exec 4>&-; exec "$0" "$@"`

// chain is what runs inside: drop to Owner (when privileged), set the
// limits, report the start, run argv.
func (b *Bwrap) chain(lim Limits, argv []string) []string {
	var out []string
	if b.privileged() {
		o := b.opts.Owner
		out = []string{b.opts.Setpriv, fmt.Sprintf("--reuid=%d", o.UID), fmt.Sprintf("--regid=%d", o.GID),
			"--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"}
	}
	return append(out, lim.prlimitArgv(b.opts.Prlimit, append([]string{"/bin/sh", "-c", startedScript}, argv...))...)
}

// openParents gives 0755 to the directories bwrap creates on its root as
// the binds' parents (not to those inside a bind or the system dirs).
func openParents(srcs []string) []string {
	var args []string
	seen := map[string]bool{}
	for _, src := range srcs {
		for d := filepath.Dir(src); d != "/" && d != "."; d = filepath.Dir(d) {
			inside := false
			for _, o := range append(srcs, systemDirs...) {
				if within(d, o) {
					inside = true
				}
			}
			if !inside && !seen[d] && d != "/tmp" { // /tmp keeps its 1777
				seen[d] = true
				args = append(args, "--chmod", "0755", d)
			}
		}
	}
	return args
}

// sandboxHome is HOME inside: on the private /tmp, empty at every command.
const sandboxHome = "/tmp/home"

// mask hides a path that exists: an empty tmpfs over a directory, /dev/null
// over anything else.
func mask(p string) []string {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return nil
	case fi.IsDir():
		return []string{"--tmpfs", p}
	}
	return []string{"--ro-bind", "/dev/null", p}
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// args are the full bwrap arguments for one command in ws.
func (b *Bwrap) args(ws *Workspace, cache, workDir string) ([]string, error) {
	args := b.systemArgs()
	type bind struct {
		flag, src string
	}
	var binds []bind
	if r := b.opts.GoRoot; r != "" && !within(r, "/usr") {
		binds = append(binds, bind{"--ro-bind", r})
	}
	if m := b.opts.GoModCache; m != "" {
		if _, err := os.Stat(m); err == nil {
			binds = append(binds, bind{"--ro-bind", m})
		}
	}
	for _, d := range b.opts.ReadOnly {
		binds = append(binds, bind{"--ro-bind", d})
	}
	binds = append(binds, bind{"--bind", cache}, bind{"--bind", ws.Dir})
	home := b.opts.HostHome
	for _, bd := range binds {
		if !filepath.IsAbs(bd.src) {
			return nil, fmt.Errorf("sandbox: bind %q is not an absolute path", bd.src)
		}
		if home != "" && home != "/" && within(home, bd.src) {
			return nil, fmt.Errorf("sandbox: binding %s would expose the host home %s", bd.src, home)
		}
		args = append(args, bd.flag, bd.src, bd.src)
	}
	// Secrets of the host home that a bind would expose (a workspace
	// or a cache below the home) are masked over the binds.
	if home != "" && home != "/" {
		for _, s := range homeSecrets {
			p := filepath.Join(home, s)
			for _, bd := range binds {
				if within(p, bd.src) {
					args = append(args, mask(p)...)
					break
				}
			}
		}
	}
	for _, p := range b.opts.Protected {
		full := filepath.Join(ws.Dir, filepath.FromSlash(p))
		if !within(full, ws.Dir) || full == ws.Dir {
			return nil, fmt.Errorf("sandbox: protected path %q is not inside the workspace", p)
		}
		if _, err := os.Lstat(full); err == nil {
			args = append(args, "--ro-bind", full, full)
		}
	}
	// bwrap creates a bind's missing parents on its root with the modes of
	// the host's (a 0700 /root, a 0700 temp dir): open them to the
	// sandbox's user, who must reach the binds.
	var srcs []string
	for _, bd := range binds {
		srcs = append(srcs, bd.src)
	}
	args = append(args, openParents(srcs)...)
	// The root is bwrap's own tmpfs: made read-only last, so no write
	// outside the binds above and the private /tmp lands anywhere.
	return append(args, "--remount-ro", "/", "--chdir", workDir), nil
}

func (b *Bwrap) environment(ws *Workspace, cache string, extra []string) ([]string, error) {
	fixed := baseEnv(b.opts, sandboxHome, cache)
	return environment(fixed, append(slicesClone(b.opts.Env), extra...))
}

// baseEnv is the allowlist: nothing of the host's environment but the
// names PassEnv lists.
func baseEnv(opts Options, home, cache string) map[string]string {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if opts.GoRoot != "" {
		path = filepath.Join(opts.GoRoot, "bin") + ":" + path
	}
	env := map[string]string{
		"PATH":        path,
		"HOME":        home,
		"TMPDIR":      "/tmp",
		"LANG":        "C.UTF-8",
		"USER":        "sandbox",
		"GOCACHE":     filepath.Join(cache, "go-build"),
		"GOPATH":      filepath.Join(home, "go"),
		"GOFLAGS":     "-mod=mod -buildvcs=false",
		"GOPROXY":     "off",
		"GOTOOLCHAIN": "local",
		"GOTELEMETRY": "off",
		"GOENV":       "off",
	}
	if opts.GoModCache != "" {
		env["GOMODCACHE"] = opts.GoModCache
	}
	for _, name := range opts.PassEnv {
		if v, ok := os.LookupEnv(name); ok && !secretName(name) {
			env[name] = v
		}
	}
	return env
}

// ReproducibleEnv is the part of every sandboxed command's environment
// that decides what the command computes, as NAME=VALUE, sorted: what a
// person must set to rerun a check outside the sandbox (the toolchain's
// variables and the locale; paths of the sandbox, the caches and HOME,
// are left out).
func ReproducibleEnv() []string {
	var out []string
	for k, v := range baseEnv(Options{}, sandboxHome, "/cache") {
		switch k {
		case "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GOTELEMETRY", "GOENV", "LANG":
			out = append(out, k+"="+v)
		}
	}
	slices.Sort(out)
	return out
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// Run runs one command in the workspace under bubblewrap.
func (b *Bwrap) Run(ctx context.Context, ws *Workspace, c Command) (*Result, error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return nil, errors.New("sandbox: empty argv")
	}
	workDir := ws.Dir
	if c.Dir != "" && c.Dir != "." {
		rel, err := cleanRel(c.Dir)
		if err != nil {
			return nil, fmt.Errorf("sandbox: dir %q: %w", c.Dir, err)
		}
		workDir = filepath.Join(ws.Dir, filepath.FromSlash(rel))
	}
	if err := b.Probe(ctx); err != nil {
		return nil, err
	}
	cache, err := ws.MkdirRun("cache")
	if err != nil {
		return nil, fmt.Errorf("sandbox: per-run cache: %w", err)
	}
	args, err := b.args(ws, cache, workDir)
	if err != nil {
		return nil, err
	}
	env, err := b.environment(ws, cache, c.Env)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	lim := c.Limit.or(b.opts.Limits)
	args = append(args, "--json-status-fd", "3", "--")
	args = append(args, b.chain(lim, c.Argv)...)
	cmd := exec.Command(b.bin, args...)
	cmd.Env = env
	cmd.SysProcAttr = b.sysProcAttr()
	startedR, startedW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer startedR.Close()
	res, status, err := runKillable(ctx, cmd, c.Stdin, lim, true, startedW)
	if err != nil {
		return nil, err
	}
	res.Backend, res.Argv = BackendBwrap, slicesClone(c.Argv)
	started := make([]byte, 1)
	// The command is gone; a byte, if it started, is already in the pipe.
	_ = startedR.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := startedR.Read(started)
	switch {
	case n == 0 && !res.TimedOut && !res.Canceled:
		// bwrap (or setpriv, prlimit) failed before the command started.
		return nil, fmt.Errorf("sandbox: bwrap could not start %q: %s", c.Argv[0], strings.TrimSpace(string(res.Stderr)))
	case status.exited:
		res.ExitCode = status.exitCode
	}
	return res, nil
}

// bwrapStatus is what bwrap wrote on its --json-status-fd.
type bwrapStatus struct {
	childPID int
	exited   bool
	exitCode int
}

func readStatus(r io.Reader) bwrapStatus {
	var st bwrapStatus
	dec := json.NewDecoder(r)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return st
		}
		if v, ok := m["child-pid"].(float64); ok {
			st.childPID = int(v)
		}
		if v, ok := m["exit-code"].(float64); ok {
			st.exited, st.exitCode = true, int(v)
		}
	}
}

// runKillable starts cmd in its own process group, feeds stdin, keeps
// capped output, and kills the whole group at the wall limit or when ctx
// ends. With status, fd 3 of the child is a pipe whose JSON lines it reads,
// and extra follow it from fd 4.
func runKillable(ctx context.Context, cmd *exec.Cmd, stdin []byte, lim Limits, status bool, extra ...*os.File) (*Result, bwrapStatus, error) {
	stdout, stderr := &capWriter{max: lim.OutputBytes}, &capWriter{max: lim.OutputBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var statusR *os.File
	if status {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, bwrapStatus{}, err
		}
		statusR = r
		defer r.Close()
		cmd.ExtraFiles = append([]*os.File{w}, extra...)
		defer w.Close()
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, bwrapStatus{}, fmt.Errorf("sandbox: start: %w", err)
	}
	stChan := make(chan bwrapStatus, 1)
	for _, f := range cmd.ExtraFiles {
		f.Close() // the child has them; their readers see EOF when it ends
	}
	if status {
		go func() { stChan <- readStatus(statusR) }()
	} else {
		stChan <- bwrapStatus{}
	}
	res := &Result{ExitCode: -1}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	var once sync.Once
	kill := func() { once.Do(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }) }
	timer := time.NewTimer(lim.Wall)
	defer timer.Stop()
	var mu sync.Mutex
	go func() {
		select {
		case <-timer.C:
			mu.Lock()
			res.TimedOut = true
			mu.Unlock()
			kill()
		case <-ctx.Done():
			mu.Lock()
			res.Canceled = true
			mu.Unlock()
			kill()
		case <-done:
		}
	}()
	werr := cmd.Wait()
	close(done)
	// Whatever is left of the group goes with the command (the sandbox's
	// own processes die with its pid namespace).
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	res.Duration = time.Since(start)
	var st bwrapStatus
	select {
	case st = <-stChan:
	case <-time.After(5 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	var ee *exec.ExitError
	switch {
	case werr == nil:
		res.ExitCode = 0
	case errors.As(werr, &ee) && ee.Exited():
		res.ExitCode = ee.ExitCode()
	case errors.As(werr, &ee), errors.Is(werr, exec.ErrWaitDelay):
		// killed by a signal: ExitCode stays -1
	default:
		return nil, st, fmt.Errorf("sandbox: wait: %w", werr)
	}
	if res.TimedOut || res.Canceled {
		res.ExitCode = -1
		st.exited = false
	}
	res.Stdout, res.Stderr = stdout.buf, stderr.buf
	res.StdoutBytes, res.StderrBytes = stdout.total, stderr.total
	res.Truncated = stdout.total > int64(len(stdout.buf)) || stderr.total > int64(len(stderr.buf))
	return res, st, nil
}
