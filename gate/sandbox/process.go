package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// process is the Unisolated backend: the command runs as a plain process
// of the harness's user in the workspace, with the environment allowlist,
// a temporary HOME and the rlimits, killed as a process group at the wall
// limit — and nothing else. The filesystem, the network and the host's
// processes are all reachable. Only Options.AllowWeaker selects it.
type process struct {
	opts Options
	why  *UnavailableError // why Select chose it (Degraded)
}

func newProcess(opts Options) *process {
	opts = fill(opts)
	opts.Owner = nil // files stay the harness's: there is no other user
	return &process{opts: opts}
}

func (p *process) Backend() string { return Unisolated }

func (p *process) Owner() *Owner { return nil }

func (p *process) Run(ctx context.Context, ws *Workspace, c Command) (*Result, error) {
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
	cache, err := ws.MkdirRun("cache")
	if err != nil {
		return nil, fmt.Errorf("sandbox: per-run cache: %w", err)
	}
	home, err := os.MkdirTemp(ws.RunDir, "home-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: temporary home: %w", err)
	}
	defer os.RemoveAll(home)
	env, err := environment(baseEnv(p.opts, home, cache), append(slicesClone(p.opts.Env), c.Env...))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	lim := c.Limit.or(p.opts.Limits)
	argv := lim.prlimitArgv(p.opts.Prlimit, c.Argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = workDir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	res, _, err := runKillable(ctx, cmd, c.Stdin, lim, false)
	if err != nil {
		return nil, err
	}
	res.Backend, res.Argv = Unisolated, slicesClone(c.Argv)
	return res, nil
}
