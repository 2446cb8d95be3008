package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/clients/hook"
	"github.com/cairn-dev/cairn/engine"
)

func hookCmd(g *globals) *cobra.Command {
	var client string
	var maxBlocks, reruns int
	var dir string
	var user userPolicyFlags
	c := &cobra.Command{
		Use:   "hook pre-tool|stop|session-start [--client CLIENT]",
		Short: "answer an agent client's hook: the policy before a tool call, the verification gate at a stop, a brief at session start",
		Long: `hook is what an agent client runs at its hook points (cairn setup writes
them): it reads the client's hook JSON on stdin and answers in the client's
format (clients/hook/doc.go lists them).

  pre-tool       before an edit or a shell command: refuses what the layered
                 policy denies (protected paths, deleting tests, denied
                 commands, writes outside the write globs or the task's
                 scope); leaves the rest to the client's own permissions
  stop           when the agent says it is done: runs the gate on the
                 worktree's change (.cairn/task.yaml, or the default
                 contract: the tests impact selects pass, no tamper, scope)
                 and blocks the stop with the gate's reasons, at most
                 --max-blocks times in a row; evidence in .cairn/runs/hook-*
  session-start  a short brief: index freshness, how the session is
                 checked, cairn's tools, the repository's test commands
                 quoted as material

--client: claude-code (default), codex, cursor, gemini-cli, opencode. The
hook never fails the client: a failure of cairn is reported on stderr and
answered by the policy's hooks.fail (refuse, the default, or allow).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return hookUsage("hook takes one event (pre-tool, stop or session-start), got %d arguments", len(args))
			}
			return nil
		},
		ValidArgs: []string{"pre-tool", "stop", "session-start"},
		RunE: func(cmd *cobra.Command, args []string) error {
			ev, err := hook.ParseEvent(args[0])
			if err != nil {
				return hookUsage("%v", err)
			}
			cl, err := hook.ParseClient(client)
			if err != nil {
				return hookUsage("%v", err)
			}
			u, err := user.user()
			if err != nil {
				return err
			}
			o := hook.Options{Event: ev, Client: cl, IndexDir: g.indexDir, User: u, MaxBlocks: maxBlocks,
				GateDir: dir, Reruns: reruns, Version: version,
				Stdin: cmd.InOrStdin(), Stdout: g.stdout, Stderr: g.stderr}
			if cmd.Flags().Changed("repo") {
				if o.Repo, err = g.repoRoot(); err != nil {
					return hookUsage("--repo: %v", err)
				}
			}
			if code := hook.Run(cmd.Context(), o); code != 0 {
				return &exitError{code: code, err: errHookAnswered}
			}
			return nil
		},
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return hookUsage("%v", err) })
	f := c.Flags()
	f.StringVar(&client, "client", "claude-code", "the client whose hook protocol to speak: claude-code, codex, cursor, gemini-cli, opencode")
	f.IntVar(&maxBlocks, "max-blocks", 3, "stops blocked in a row before the agent may stop unverified")
	f.StringVar(&dir, "dir", "", "the gate's directory (default: the user cache dir, shared with cairn verify)")
	f.IntVar(&reruns, "reruns", 0, "the gate's reruns of a failing test (default 2; negative: none)")
	user.register(c)
	return c
}

// hookUsage is a hook command line cairn cannot run (an event, client or
// flag this cairn does not know: a client's settings written by another
// version). It exits 1, which every client reports as a hook error and
// does not read as a decision — exit 2 is Claude Code's and Codex's
// "block", and a stop blocked by a broken command line would be blocked
// forever, a tool call refused for a typo in the settings. The action goes
// ahead with the error shown; the decisions themselves (and cairn's own
// failures, answered by the policy's hooks.fail) are unaffected.
func hookUsage(format string, args ...any) error {
	return &exitError{code: 1, err: errors.New(engine.Sprintf("hook: "+format+" (nothing was decided: fix the hook's command line in the client's settings, cairn setup CLIENT writes it)", args...))}
}

// errHookAnswered marks an exit code the hook chose (Codex's refusal is
// exit 2 with the reason already on stderr): nothing more is printed.
var errHookAnswered = hookAnswered{}

type hookAnswered struct{}

func (hookAnswered) Error() string { return "" }
