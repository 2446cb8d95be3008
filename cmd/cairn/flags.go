package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/internal/diagram"
)

// graphFlags are --dot and --mermaid, which print a command's answer as a
// graph (internal/diagram) instead of text.
type graphFlags struct{ dot, mermaid bool }

func (f *graphFlags) add(c *cobra.Command) {
	c.Flags().BoolVar(&f.dot, "dot", false, "print the answer as a Graphviz digraph")
	c.Flags().BoolVar(&f.mermaid, "mermaid", false, "print the answer as a Mermaid flowchart")
}

func (f *graphFlags) check() error {
	if f.dot && f.mermaid {
		return usageError("--mermaid and --dot are exclusive")
	}
	return nil
}

func (f *graphFlags) drawn() bool { return f.dot || f.mermaid }

func (f *graphFlags) write(w io.Writer, d *diagram.Graph) error {
	if f.dot {
		return d.WriteDot(w)
	}
	return d.WriteMermaid(w)
}

// atLeast1 refuses a count flag given as 0 or less: the engine reads 0 as
// "the default", so without this check --depth 0 silently meant the
// default and -1 an engine error; both are usage errors, said here with
// the flag's name.
func atLeast1(c *cobra.Command, names ...string) error {
	for _, name := range names {
		fl := c.Flags().Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		if v, err := c.Flags().GetInt(name); err == nil && v < 1 {
			return usageError("--%s must be at least 1 (got %d)", name, v)
		}
		if v, err := c.Flags().GetFloat64(name); err == nil && v <= 0 {
			return usageError("--%s must be more than 0 (got %s)", name, strings.TrimSpace(fl.Value.String()))
		}
	}
	return nil
}

// notNegative refuses a count, size or duration flag given as less than 0
// (0 keeps its default): a negative --workers made a channel of negative
// size and panicked.
func notNegative(c *cobra.Command, names ...string) error {
	for _, name := range names {
		fl := c.Flags().Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		neg := false
		switch fl.Value.Type() {
		case "int":
			v, _ := c.Flags().GetInt(name)
			neg = v < 0
		case "int64":
			v, _ := c.Flags().GetInt64(name)
			neg = v < 0
		case "duration":
			v, _ := c.Flags().GetDuration(name)
			neg = v < 0
		}
		if neg {
			return usageError("--%s must not be negative (got %s; 0 keeps the default)", name, fl.Value.String())
		}
	}
	return nil
}

// group makes a command that only holds subcommands (serve, agent) refuse
// to run by itself: "cairn serve bogus" printed the help and exited 0.
func group(c *cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		if len(args) > 0 {
			return usageError("unknown command %q for %q (want one of: %s)", args[0], cmd.CommandPath(), strings.Join(names, ", "))
		}
		return usageError("%s needs a command: %s (see %s --help)", cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
	}
	return c
}
