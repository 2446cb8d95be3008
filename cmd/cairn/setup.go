package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/clients/setup"
)

// setupOptions are cairn setup's flags.
type setupOptions struct {
	user, project, remove, dryRun bool
}

func setupCmd(g *globals) *cobra.Command {
	var so setupOptions
	names := make([]string, 0, 5)
	for _, c := range setup.Clients() {
		names = append(names, c.String())
	}
	c := &cobra.Command{
		Use:   "setup [CLIENT]",
		Short: "write cairn's MCP server and hooks into an agent client's configuration",
		Long: `setup writes cairn's MCP server (cairn serve mcp, named "cairn") and, where the
client reads hooks from a file, cairn's hooks into the client's configuration,
merged with what is there: other servers, hooks and settings stay byte for byte.
A changed file is first copied to FILE.cairn-backup-TIMESTAMP; a second run
changes nothing. --remove takes out cairn's entries only.

Clients: ` + strings.Join(names, ", ") + `.
Without a client, setup lists the clients it finds on this machine and what it
would write for each.

--project (the default) writes the repository's files (--repo, default the
current directory); --user writes the files in your home, naming the
repository with --repo in every command.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if so.user && so.project {
				return usageError("--user and --project exclude each other")
			}
			opts, err := g.setupOptions(so)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return listClients(g.stdout, opts)
			}
			if opts.Client, err = setup.ParseClient(args[0]); err != nil {
				return usageError("%v", err)
			}
			return runSetup(g.stdout, opts, so.dryRun)
		},
	}
	f := c.Flags()
	f.BoolVar(&so.user, "user", false, "write the user's configuration (every project the client opens)")
	f.BoolVar(&so.project, "project", false, "write the repository's configuration (the default)")
	f.BoolVar(&so.remove, "remove", false, "take cairn's entries out")
	f.BoolVar(&so.dryRun, "dry-run", false, "print the changes as a unified diff and write nothing")
	return c
}

func (g *globals) setupOptions(so setupOptions) (setup.Options, error) {
	repo, err := g.repoRoot()
	if err != nil {
		return setup.Options{}, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return setup.Options{}, fmt.Errorf("setup: the home directory: %w", err)
	}
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		return setup.Options{}, fmt.Errorf("setup: the cairn binary's path: %w", err)
	}
	scope := setup.Project
	if so.user {
		scope = setup.User
	}
	return setup.Options{Scope: scope, Repo: repo, Home: home, Getenv: os.Getenv, Binary: bin, Remove: so.remove}, nil
}

func runSetup(w io.Writer, opts setup.Options, dryRun bool) error {
	plan, err := setup.Make(opts)
	if err != nil {
		return err
	}
	if dryRun {
		if d := plan.Diff(); d != "" {
			fmt.Fprint(w, d)
		}
		fmt.Fprintf(w, "cairn setup %s (%s scope): dry run, nothing written\n", opts.Client, opts.Scope)
		return nil
	}
	backups, err := plan.Apply(time.Now())
	for _, b := range backups {
		fmt.Fprintf(w, "backed up %s\n", b)
	}
	if err != nil {
		return err
	}
	for _, c := range plan.Changes {
		switch {
		case !c.Changed():
			fmt.Fprintf(w, "unchanged %s (%s)\n", c.Path, c.Role)
		case opts.Remove:
			fmt.Fprintf(w, "removed cairn from %s (%s)\n", c.Path, c.Role)
		default:
			fmt.Fprintf(w, "wrote %s (%s)\n", c.Path, c.Role)
		}
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func listClients(w io.Writer, opts setup.Options) error {
	found := setup.Detect(opts.Home, os.Getenv, exec.LookPath)
	if len(found) == 0 {
		fmt.Fprintln(w, "no agent client found (looked for claude, codex, cursor, gemini, opencode on PATH and their configuration directories)")
		return nil
	}
	for _, f := range found {
		opts.Client = f.Client
		fmt.Fprintf(w, "%s: %s\n", f.Client, strings.Join(f.How, ", "))
		plan, err := setup.Make(opts)
		if err != nil {
			fmt.Fprintf(w, "  cannot set up: %v\n", err)
			continue
		}
		verb := "would write"
		if opts.Remove {
			verb = "would remove cairn from"
		}
		for _, c := range plan.Changes {
			if c.Changed() {
				fmt.Fprintf(w, "  %s %s (%s)\n", verb, c.Path, c.Role)
			} else {
				fmt.Fprintf(w, "  up to date: %s (%s)\n", c.Path, c.Role)
			}
		}
		fmt.Fprintf(w, "  run: cairn setup %s --%s\n", f.Client, opts.Scope)
	}
	return nil
}
