// Package sandbox is the agent's disposable workspace and its isolated
// execution.
//
// # Workspaces
//
// A Workspace is a detached git worktree of the base commit under a run
// directory (RUN/work; per-run caches beside it in RUN/cache). The harness,
// never the model, does every git operation on it, and always with hooks,
// fsmonitor and signing off and a fixed identity, since the tree holds
// model-written files: Changed and Diff compare the base with the worktree
// as it is (untracked files included) through a throwaway index, so looking
// changes nothing; Snapshot commits the worktree on its detached HEAD (the
// run's edits as commits); Revert puts a file or directory back as the base
// has it; Remove deletes the worktree and its registration.
//
// # Executors
//
// An Executor runs argv in a workspace and returns a Result: exit code,
// stdout and stderr kept up to a cap (and the bytes produced counted),
// duration, whether the wall limit or the caller killed it, and the backend
// that ran it. An error means the command could not be run as asked — never
// that it ran with less isolation.
//
// The bwrap backend (bubblewrap) gives each command:
//
//   - a root of its own, read-only: the system directories (/usr, /etc with
//     shadow files, sudoers and ssh host keys masked, the /bin and /lib
//     symlinks), the Go toolchain and the host's module cache bound
//     read-only; the per-run cache and the workspace bound writable; .git
//     and the CI configuration of the common services re-bound read-only
//     inside the workspace (DefaultProtected); nothing else of the host —
//     and whatever of the host home's credentials (.ssh, .aws, …) a bind
//     would bring along masked, while a bind that would expose the home
//     itself is refused;
//   - a private /tmp and an empty HOME on it, fresh /proc and /dev;
//   - new network, pid, ipc and uts namespaces: only a loopback of its own
//     exists, so nothing on the host (its 127.0.0.1 included) or beyond is
//     reachable;
//   - an environment built from an allowlist, not filtered from the host's:
//     PATH, HOME, TMPDIR, LANG, USER and the Go variables (GOMODCACHE the
//     read-only cache, GOCACHE per run, GOFLAGS=-mod=mod -buildvcs=false,
//     GOPROXY=off, GOTOOLCHAIN=local), plus the host variables the options
//     name; a name that looks like a credential (*_KEY, *_TOKEN, *_SECRET,
//     *PASSWORD*, AWS_*, cloud and ssh-agent variables …) is refused
//     wherever it is asked for;
//   - limits: the wall time (the whole process group is killed, bwrap's
//     --die-with-parent takes the pid namespace and every process in it
//     along), and CPU seconds, address space, processes and file size as
//     rlimits set by prlimit(1) inside, inherited by every process;
//     output beyond the cap is counted, not kept.
//
// Users. A process limit only binds a non-root user, and root would own the
// host's root-owned files. When the harness is root, bwrap therefore runs
// without a user namespace (it resolves the binds with root's access), and
// the command drops to Options.Owner (nobody by default) through setpriv(1)
// with no capabilities, no new privileges and no supplementary groups; the
// workspace and the run's cache are handed to that user (Create's owner).
// When the harness is not root, bwrap makes an unprivileged user namespace
// and the command runs as the harness's user. Commands never run as root.
//
// A command reports on a private descriptor that setup succeeded just
// before it starts, so a failure of bwrap itself is an error, not a Result
// with exit code 1.
//
// # When bubblewrap cannot run
//
// Select runs a trivial command under bubblewrap once. When that fails it
// returns an *UnavailableError with bwrap's own message, the likely cause
// the host shows (bubblewrap missing; kernel.unprivileged_userns_clone=0;
// kernel.apparmor_restrict_unprivileged_userns=1; user.max_user_namespaces=0;
// root without CAP_SYS_ADMIN) and what the user can allow — unless
// Options.AllowWeaker names the weaker backend (Unisolated): plain processes
// with the same environment allowlist and limits but no isolation. Only the
// user sets AllowWeaker, with cairn's --allow-weaker-sandbox or in the
// user's own policy file; a repository's policy cannot (policy.Layered
// ignores it and says so). There is no silent fallback: Degraded says why
// bubblewrap could not run, the callers print it and record it (the agent's
// event log, the evidence's isolation), and the backend's name is in every
// Result.
//
// # Dependencies
//
// PrepareGo runs go mod download in the workspace outside the sandbox,
// with the host's network and module cache, before any command runs;
// inside, the tests then run with GOPROXY=off against the read-only cache.
// PrepareNode installs one npm package's node_modules the same way, from
// its lockfile only (npm ci --ignore-scripts, cached per lockfile, copied
// into the workspace): no install script of a dependency runs on the host,
// and the runners inside need no network.
package sandbox
