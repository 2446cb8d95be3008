package main

import (
	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/clients/hook"
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
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"pre-tool", "stop", "session-start"},
		RunE: func(cmd *cobra.Command, args []string) error {
			ev, err := hook.ParseEvent(args[0])
			if err != nil {
				return usageError("%v", err)
			}
			cl, err := hook.ParseClient(client)
			if err != nil {
				return usageError("%v", err)
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
					return usageError("--repo: %v", err)
				}
			}
			if code := hook.Run(cmd.Context(), o); code != 0 {
				return &exitError{code: code, err: errHookAnswered}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&client, "client", "claude-code", "the client whose hook protocol to speak: claude-code, codex, cursor, gemini-cli, opencode")
	f.IntVar(&maxBlocks, "max-blocks", 3, "stops blocked in a row before the agent may stop unverified")
	f.StringVar(&dir, "dir", "", "the gate's directory (default: the user cache dir, shared with cairn verify)")
	f.IntVar(&reruns, "reruns", 0, "the gate's reruns of a failing test (default 2; negative: none)")
	user.register(c)
	return c
}

// errHookAnswered marks an exit code the hook chose (Codex's refusal is
// exit 2 with the reason already on stderr): nothing more is printed.
var errHookAnswered = hookAnswered{}

type hookAnswered struct{}

func (hookAnswered) Error() string { return "" }
