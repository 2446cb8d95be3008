package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
)

// userPolicyFlags are the user's layer of the policy on the command line:
// a repository's .cairn/policy.yaml only narrows it.
type userPolicyFlags struct {
	file, allowWeaker string
}

func (f *userPolicyFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.file, "policy", "", "your policy file, outside the repository (default: cairn/policy.yaml in your configuration directory, ~/.config, when it exists); the repository's .cairn/policy.yaml only narrows it")
	fs.StringVar(&f.allowWeaker, strings.TrimPrefix(policy.AllowWeakerFlag, "--"), "", "when bubblewrap cannot run here, run commands this weaker way instead: "+sandbox.Unisolated+" (plain processes with the host's network and filesystem); a repository's policy cannot ask for it")
}

func (f *userPolicyFlags) user() (policy.User, error) {
	if f.allowWeaker != "" && f.allowWeaker != sandbox.Unisolated {
		return policy.User{}, usageError("%s %q: the only weaker backend is %s", policy.AllowWeakerFlag, f.allowWeaker, sandbox.Unisolated)
	}
	return policy.User{File: f.file, AllowWeaker: f.allowWeaker}, nil
}

// printIsolation says on stderr what weakens the isolation of the
// repository's code, and what its policy asked for and did not get.
func printIsolation(w io.Writer, iso evidence.Isolation) {
	if !iso.Isolated && iso.Backend != "" {
		why := ""
		if iso.Degraded != "" {
			why = " (bubblewrap cannot run here: " + iso.Degraded + ")"
		}
		fmt.Fprintf(w, "cairn: WARNING: commands run %s%s: the repository's code runs with the host's network and filesystem, as you allowed\n", iso.Backend, why)
	}
	for _, s := range iso.Weakened {
		if iso.Isolated && strings.HasPrefix(s, "sandbox.allow_weaker:") {
			continue // allowed, not used
		}
		fmt.Fprintf(w, "cairn: your policy allows beyond the default: %s\n", s)
	}
	for _, s := range iso.Ignored {
		fmt.Fprintf(w, "cairn: ignored: the repository's policy asks for %s; only your policy can allow it\n", s)
	}
}
