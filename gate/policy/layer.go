package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// User is the user's layer of the policy: the ceiling that a repository's
// policy file may narrow and never widen. It lives outside the repository.
type User struct {
	// File is the user's policy file, in the format of a repository's;
	// "": UserFile, when it exists. It must lie outside the repository.
	File string
	// AllowWeaker is the weaker sandbox backend the user allows on the
	// command line (--allow-weaker-sandbox), over the file's.
	AllowWeaker string
}

// AllowWeakerFlag is the command-line flag that sets User.AllowWeaker;
// error messages name it.
const AllowWeakerFlag = "--allow-weaker-sandbox"

// UserFile is where the user's policy lives when User.File does not say:
// cairn/policy.yaml under the user's configuration directory
// ($XDG_CONFIG_HOME, else ~/.config, on Linux).
func UserFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "cairn", "policy.yaml"), nil
}

// A Widening is one thing a policy layer asks for beyond the layer above
// it: in Policy.Weakened, what the user's layer allows beyond Default (in
// force); in Policy.Ignored, what the repository's file asked for beyond
// the user's layer (not granted).
type Widening struct {
	Field string `json:"field"` // "network", "commands.allow", "sandbox.allow_weaker" …
	Value string `json:"value"` // what was asked for
	From  string `json:"from"`  // the file or flag that asked
}

func (w Widening) String() string { return fmt.Sprintf("%s: %s (%s)", w.Field, w.Value, w.From) }

// Strings are the widenings as text, for the evidence and the terminal.
func Strings(ws []Widening) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}

// Layered is the policy for the repository at root: the user's layer (the
// file, or Default without one, and the command line's AllowWeaker) is the
// ceiling, and the repository's File only narrows it (see narrow). What the
// user's layer allows beyond Default is in Weakened; what the repository's
// file asked for beyond the ceiling, and did not get, in Ignored.
func Layered(root string, u User) (*Policy, error) {
	ceiling, err := userPolicy(root, u)
	if err != nil {
		return nil, err
	}
	return layer(root, ceiling)
}

// UserLayer is the user's layer alone, the ceiling Layered narrows: what
// a caller falls back on when the repository's file cannot be read (a
// client hook's fail mode).
func UserLayer(root string, u User) (*Policy, error) {
	return userPolicy(root, u)
}

// layer narrows the ceiling by the repository's policy file.
func layer(root string, ceiling *Policy) (*Policy, error) {
	data, err := os.ReadFile(filepath.Join(root, File))
	if errors.Is(err, os.ErrNotExist) {
		return ceiling, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	// Decoded over the ceiling: a key the file leaves out is the
	// ceiling's, so only what it sets can narrow (or try to widen).
	repo, err := parseOver(ceiling.clone(), data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", File, err)
	}
	p := narrow(ceiling, repo)
	p.Ignored = widenings(ceiling, repo, File)
	return p, nil
}

// userPolicy is the ceiling: the user's file over Default (or Default),
// with the command line's weaker backend.
func userPolicy(root string, u User) (*Policy, error) {
	p := Default()
	file, explicit := u.File, u.File != ""
	if !explicit {
		var err error
		if file, err = UserFile(); err != nil {
			file = ""
		}
	}
	if file != "" {
		data, err := os.ReadFile(file)
		switch {
		case errors.Is(err, os.ErrNotExist) && !explicit:
		case err != nil:
			return nil, fmt.Errorf("read the user's policy: %w", err)
		default:
			if inside(file, root) {
				return nil, fmt.Errorf("the user's policy %s is inside the repository %s: the repository's policy is %s, and it only narrows the user's", file, root, File)
			}
			if p, err = Parse(data); err != nil {
				return nil, fmt.Errorf("the user's policy %s: %w", file, err)
			}
			p.Weakened = widenings(Default(), p, file)
		}
	}
	switch u.AllowWeaker {
	case "":
	case sandbox.Unisolated:
		if p.Sandbox.AllowWeaker != u.AllowWeaker {
			p.Sandbox.AllowWeaker = u.AllowWeaker
			p.Weakened = append(p.Weakened, Widening{"sandbox.allow_weaker", u.AllowWeaker, AllowWeakerFlag})
		}
	default:
		return nil, fmt.Errorf("%s %q: the only weaker backend is %q", AllowWeakerFlag, u.AllowWeaker, sandbox.Unisolated)
	}
	return p, nil
}

// inside reports whether file is within the directory root, symlinks
// resolved as far as they exist.
func inside(file, root string) bool {
	real := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return r
		}
		return abs
	}
	rel, err := filepath.Rel(real(root), real(file))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (p *Policy) clone() *Policy {
	n := *p
	n.Write, n.Protected, n.Tests = slices.Clone(p.Write), slices.Clone(p.Protected), slices.Clone(p.Tests)
	n.Commands.Allow, n.Commands.Deny = slices.Clone(p.Commands.Allow), slices.Clone(p.Commands.Deny)
	n.scope, n.writeAlso = slices.Clone(p.scope), slices.Clone(p.writeAlso)
	n.Weakened, n.Ignored = slices.Clone(p.Weakened), slices.Clone(p.Ignored)
	return &n
}

// narrow is the ceiling narrowed by a lower layer (decoded over it):
//
//   - mode: enforce if either says so;
//   - write: a path must match both layers' globs;
//   - protected, tests and commands.deny: both layers' entries;
//   - commands.allow: the rules of one layer that a rule of the other
//     covers (everything the rule admits, the other admits too), so a
//     command runs only where both allow it;
//   - network: on only if both turn it on;
//   - limits: the lower of the two (zero: the sandbox's default);
//   - sandbox.allow_weaker: the ceiling's, or none if the lower layer
//     says none;
//   - hooks.fail: refuse if either says so.
func narrow(ceiling, lower *Policy) *Policy {
	p := ceiling.clone()
	if lower.Mode == Enforce {
		p.Mode = Enforce
	}
	if !slices.Equal(lower.Write, ceiling.Write) {
		p.writeAlso = append(p.writeAlso, slices.Clone(lower.Write))
	}
	p.Protected = union(ceiling.Protected, lower.Protected)
	p.Tests = union(ceiling.Tests, lower.Tests)
	p.Commands.Deny = ruleUnion(ceiling.Commands.Deny, lower.Commands.Deny)
	p.Commands.Allow = nil
	for _, pair := range [][2][]Rule{{lower.Commands.Allow, ceiling.Commands.Allow}, {ceiling.Commands.Allow, lower.Commands.Allow}} {
		for _, r := range pair[0] {
			if coveredBy(r, pair[1]) && !slices.ContainsFunc(p.Commands.Allow, func(x Rule) bool { return x.equal(r) }) {
				p.Commands.Allow = append(p.Commands.Allow, r)
			}
		}
	}
	p.Network = ceiling.Network && lower.Network
	p.Limits = Limits{
		WallS:    lowerLimit(ceiling.Limits.WallS, lower.Limits.WallS, sandbox.DefaultLimits.Wall.Seconds()),
		CPUS:     lowerLimit(ceiling.Limits.CPUS, lower.Limits.CPUS, sandbox.DefaultLimits.CPU.Seconds()),
		MemoryMB: lowerLimit(ceiling.Limits.MemoryMB, lower.Limits.MemoryMB, float64(sandbox.DefaultLimits.Memory>>20)),
		Procs:    lowerLimit(ceiling.Limits.Procs, lower.Limits.Procs, float64(sandbox.DefaultLimits.Procs)),
		OutputKB: lowerLimit(ceiling.Limits.OutputKB, lower.Limits.OutputKB, float64(sandbox.DefaultLimits.OutputBytes>>10)),
	}
	if lower.Sandbox.AllowWeaker == "" {
		p.Sandbox.AllowWeaker = ""
	}
	if lower.Hooks.Fail == FailRefuse {
		p.Hooks.Fail = FailRefuse
	}
	return p
}

// widenings are what the lower layer (decoded over the upper one) asks
// for beyond it; narrow grants none of them.
func widenings(upper, lower *Policy, from string) []Widening {
	var out []Widening
	add := func(field, format string, args ...any) {
		out = append(out, Widening{Field: field, Value: fmt.Sprintf(format, args...), From: from})
	}
	if lower.Mode == Ask && upper.Mode == Enforce {
		add("mode", "ask")
	}
	for _, l := range []struct {
		field        string
		upper, lower []string
	}{{"protected", upper.Protected, lower.Protected}, {"tests", upper.Tests, lower.Tests}} {
		for _, g := range l.upper {
			if !slices.Contains(l.lower, g) {
				add(l.field, "leaves out %s", g)
			}
		}
	}
	for _, r := range upper.Commands.Deny {
		if !slices.ContainsFunc(lower.Commands.Deny, r.equal) {
			add("commands.deny", "leaves out %s", r)
		}
	}
	for _, r := range lower.Commands.Allow {
		if !coveredBy(r, upper.Commands.Allow) {
			add("commands.allow", "%s", r)
		}
	}
	if lower.Network && !upper.Network {
		add("network", "true")
	}
	for _, l := range []struct {
		field        string
		upper, lower int
		def          float64
	}{
		{"limits.wall_s", upper.Limits.WallS, lower.Limits.WallS, sandbox.DefaultLimits.Wall.Seconds()},
		{"limits.cpu_s", upper.Limits.CPUS, lower.Limits.CPUS, sandbox.DefaultLimits.CPU.Seconds()},
		{"limits.memory_mb", upper.Limits.MemoryMB, lower.Limits.MemoryMB, float64(sandbox.DefaultLimits.Memory >> 20)},
		{"limits.procs", upper.Limits.Procs, lower.Limits.Procs, float64(sandbox.DefaultLimits.Procs)},
		{"limits.output_kb", upper.Limits.OutputKB, lower.Limits.OutputKB, float64(sandbox.DefaultLimits.OutputBytes >> 10)},
	} {
		eff := float64(l.upper)
		if l.upper == 0 {
			eff = l.def
		}
		if float64(l.lower) > eff {
			add(l.field, "%d", l.lower)
		}
	}
	if w := lower.Sandbox.AllowWeaker; w != "" && w != upper.Sandbox.AllowWeaker {
		add("sandbox.allow_weaker", "%s", w)
	}
	if lower.Hooks.Fail == FailAllow && upper.Hooks.Fail == FailRefuse {
		add("hooks.fail", "allow")
	}
	return out
}

// lowerLimit is the lower of two limits, zero being the sandbox's default
// def: upper when lower asks for more (or nothing).
func lowerLimit(upper, lower int, def float64) int {
	eff := float64(upper)
	if upper == 0 {
		eff = def
	}
	if lower == 0 || float64(lower) >= eff {
		return upper
	}
	return lower
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func ruleUnion(a, b []Rule) []Rule {
	out := slices.Clone(a)
	for _, r := range b {
		if !slices.ContainsFunc(out, r.equal) {
			out = append(out, r)
		}
	}
	return out
}

func (r Rule) equal(o Rule) bool { return r.Exact == o.Exact && slices.Equal(r.Argv, o.Argv) }

// coveredBy reports whether some rule of rules admits every argv r admits.
func coveredBy(r Rule, rules []Rule) bool {
	return slices.ContainsFunc(rules, func(c Rule) bool { return c.covers(r) })
}

// covers reports whether every argv that r admits (as an allow rule), c
// admits too: c is a prefix of r position by position, each of c's
// arguments matching r's (a pattern in r only under the same pattern or
// '*'), and c is exact only where r is exactly as long.
func (c Rule) covers(r Rule) bool {
	if len(c.Argv) == 0 || len(c.Argv) > len(r.Argv) || c.Exact && (!r.Exact || len(r.Argv) != len(c.Argv)) {
		return false
	}
	for i, pat := range c.Argv {
		arg := r.Argv[i]
		switch {
		case pat == arg:
		case i > 0 && pat == "*":
		case i > 0 && !strings.ContainsAny(arg, "*?") && matchArg(i, pat, arg):
		default:
			return false
		}
	}
	return true
}

// Select returns the executor the policy allows (sandbox.Select with the
// policy's limits and weaker backend). When bubblewrap cannot run and
// nothing weaker is allowed, the error also names a weaker backend the
// repository's policy asked for and did not get.
func (p *Policy) Select(ctx context.Context, o sandbox.Options) (sandbox.Executor, error) {
	ex, err := sandbox.Select(ctx, p.SandboxOptions(o))
	var ue *sandbox.UnavailableError
	if err != nil && errors.As(err, &ue) {
		for _, w := range p.Ignored {
			if w.Field == "sandbox.allow_weaker" {
				return nil, fmt.Errorf("%w (%s asks for allow_weaker: %s, which only the user can allow)", err, w.From, w.Value)
			}
		}
	}
	return ex, err
}
