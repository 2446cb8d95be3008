package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

// Profiles: which tools a server lists, and how it describes them. Every
// listed tool costs a client's model its name, description and input
// schema on every turn, so `cairn serve mcp` lists the lean profile by
// default: the tools an agent uses to find, follow and read code, each
// with its short description. `--tools all` lists every tool with its
// full description; `--tools a,b,c` lists those, with full descriptions.
// bench/serve/TOOLS.md (TestToolSizes) gives the cost per tool in tokens.

// Lean is the default profile of `cairn serve mcp`.
//
// Clients such as Claude Code read files and grep themselves, so
// read_span is left out; callers covers the common direction of callees.
var Lean = []string{"search", "definition", "references", "callers", "trace", "impact", "build_context"}

// Profile is a selection of tools.
type Profile struct {
	// Names are the tools listed, in catalogue order; nil is all.
	Names []string
	// Short describes them with their short descriptions.
	Short bool
}

// Has says whether the profile lists tool.
func (p Profile) Has(tool string) bool { return p.Names == nil || slices.Contains(p.Names, tool) }

// ParseProfile reads a --tools value: "" or "lean" is the lean profile,
// "all" every tool, otherwise a comma-separated list of tool names (an
// unknown name is an error naming the tools). extra are tools the caller
// serves itself (verify_change): accepted in a list, and part of the lean
// profile.
func ParseProfile(spec string, extra ...string) (Profile, error) {
	switch strings.TrimSpace(spec) {
	case "", "lean":
		return Profile{Names: append(slices.Clone(Lean), extra...), Short: true}, nil
	case "all":
		return Profile{}, nil
	}
	known := slices.Clone(extra)
	for _, t := range all {
		known = append(known, t.Info().Name)
	}
	var p Profile
	for n := range strings.SplitSeq(spec, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(known, n) {
			return Profile{}, fmt.Errorf("no tool %q: the tools are %s (or lean, all)", n, strings.Join(known, ", "))
		}
		p.Names = append(p.Names, n)
	}
	if len(p.Names) == 0 {
		return Profile{}, fmt.Errorf("--tools lists no tool")
	}
	return p, nil
}

// Size is a tool's cost to a model: the tokens (cl100k_base) of its name,
// description and input schema's JSON, with its full and its short
// description.
type Size struct {
	Name        string
	Full, Short int
}

// Sizes measures every tool.
func Sizes() ([]Size, error) {
	tok, err := contextpack.NewTokenizer("cl100k_base")
	if err != nil {
		return nil, err
	}
	var out []Size
	for _, t := range all {
		i := t.Info()
		in, err := json.Marshal(i.Input)
		if err != nil {
			return nil, err
		}
		n := tok.Count(i.Name) + tok.Count(string(in))
		out = append(out, Size{Name: i.Name, Full: n + tok.Count(i.Description), Short: n + tok.Count(i.Describe(true))})
	}
	return out, nil
}

// SizeTable renders Sizes as a Markdown table with the totals of the
// lean profile and of all tools.
func SizeTable(sizes []Size) string {
	var b strings.Builder
	b.WriteString("| tool | lean | tokens (full description) | tokens (short description) |\n|---|---|---:|---:|\n")
	var full, leanShort int
	for _, s := range sizes {
		in := ""
		if slices.Contains(Lean, s.Name) {
			in = "yes"
			leanShort += s.Short
		}
		full += s.Full
		fmt.Fprintf(&b, "| %s | %s | %d | %d |\n", s.Name, in, s.Full, s.Short)
	}
	fmt.Fprintf(&b, "\nDefault (lean) profile: %d tools, %d tokens. All tools (`--tools all`): %d tools, %d tokens.\n",
		len(Lean), leanShort, len(sizes), full)
	return b.String()
}
