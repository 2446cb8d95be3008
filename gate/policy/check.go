package policy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Effects are what a tool call declares it will do, before it runs.
type Effects struct {
	Writes  []string   `json:"writes,omitempty"`  // workspace-relative paths created or changed
	Deletes []string   `json:"deletes,omitempty"` // workspace-relative paths removed
	Run     [][]string `json:"run,omitempty"`     // argv of the commands it runs
	Network bool       `json:"network,omitempty"` // it needs the network
	Why     string     `json:"why,omitempty"`     // the caller's stated purpose, carried into a permission request
}

// Verdict is a decision's outcome.
type Verdict int

const (
	Allow Verdict = iota
	Deny
	AskPerson // a person must approve (Mode Ask, attended runs only)
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case AskPerson:
		return "ask"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// RuleUnlisted is Decision.Rule for a command no rule names: neither
// denied nor allowed, refused (Mode enforce) or asked about (Mode ask) only
// because the allowlist does not name it. A client hook leaves such a
// command to the client's own permission system.
const RuleUnlisted = "commands"

// Decision is the policy's answer to one tool call.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	// Rule names what decided: "protected .github/**", "commands.allow go test …",
	// "outside write scope", "workspace" …
	Rule string `json:"rule,omitempty"`
	// Reason is written for the model: what was refused and what it can
	// do instead.
	Reason string  `json:"reason,omitempty"`
	Intent *Intent `json:"intent,omitempty"` // with AskPerson, and kept on the Deny an unattended run turns it into
}

// Intent is what a permission request tells the person asked.
type Intent struct {
	Why      string   `json:"why"`                // the caller's stated purpose
	Affects  []string `json:"affects"`            // the paths or commands the action touches
	Narrower *Grant   `json:"narrower,omitempty"` // a smaller grant that would do, when there is one
}

// Grant is a permission a person gave during a run: exact paths to write
// and exact argv to run. Grants never reach protected paths, a deny rule or
// outside the workspace.
type Grant struct {
	Paths []string   `json:"paths,omitempty"`
	Argv  [][]string `json:"argv,omitempty"`
}

// Checker decides tool calls against a policy in one workspace. It is safe
// for concurrent use.
type Checker struct {
	p          *Policy
	root       string // the workspace, absolute, symlinks resolved
	unattended bool

	mu         sync.Mutex
	grants     Grant
	violations int
}

// NewChecker checks calls against p in the workspace at root. An
// unattended checker denies what would ask.
func NewChecker(p *Policy, root string, unattended bool) (*Checker, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("policy: workspace: %w", err)
	}
	return &Checker{p: p, root: real, unattended: unattended}, nil
}

// Grant adds what a person approved.
func (c *Checker) Grant(g Grant) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.grants.Paths = append(c.grants.Paths, g.Paths...)
	c.grants.Argv = append(c.grants.Argv, g.Argv...)
}

// Violations counts the calls refused so far (a deny, or an ask turned
// into one).
func (c *Checker) Violations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.violations
}

func (c *Checker) count(d Decision) {
	if d.Verdict == Deny {
		c.mu.Lock()
		c.violations++
		c.mu.Unlock()
	}
}

// Check decides a call by its declared effects: the first effect that is
// not allowed decides; a call whose effects are all allowed is allowed.
// Deny outranks ask: every effect is checked before an ask is returned.
func (c *Checker) Check(e Effects) Decision {
	d := c.check(e)
	if d.Verdict == AskPerson && c.unattended {
		d.Verdict = Deny
		d.Reason += " This run is unattended, so nobody can approve it: find a way within the policy, or finish and report what is needed."
	}
	c.count(d)
	return d
}

func (c *Checker) check(e Effects) Decision {
	var ask *Decision
	var rules []string
	keep := func(d Decision) (Decision, bool) {
		switch d.Verdict {
		case Allow:
			rules = append(rules, d.Rule)
		case Deny:
			return d, true
		case AskPerson:
			if ask == nil {
				ask = &d
			}
		}
		return d, false
	}
	if e.Network && !c.p.Network {
		if d, stop := keep(Decision{Verdict: Deny, Rule: "network",
			Reason: "The policy turns the network off: commands run without it. Work with what is in the workspace and the module cache."}); stop {
			return d
		}
	}
	for _, p := range e.Writes {
		if d, stop := keep(c.path(p, false, e.Why)); stop {
			return d
		}
	}
	for _, p := range e.Deletes {
		if d, stop := keep(c.path(p, true, e.Why)); stop {
			return d
		}
	}
	for _, argv := range e.Run {
		if d, stop := keep(c.command(argv, e.Why)); stop {
			return d
		}
	}
	if ask != nil {
		return *ask
	}
	if len(rules) == 0 {
		return Decision{Verdict: Allow, Rule: "no effects"}
	}
	return Decision{Verdict: Allow, Rule: strings.Join(rules, "; ")}
}

func (c *Checker) outside(what string, rule string, why string, affects []string, narrower *Grant) Decision {
	if c.p.Mode == Ask {
		return Decision{Verdict: AskPerson, Rule: rule,
			Reason: what + " A person has been asked to approve it.",
			Intent: &Intent{Why: why, Affects: affects, Narrower: narrower}}
	}
	return Decision{Verdict: Deny, Rule: rule, Reason: what,
		Intent: &Intent{Why: why, Affects: affects, Narrower: narrower}}
}

// path decides a write (or a delete) of one path. A path through a
// symlink inside the workspace is checked as given and as resolved, so a
// link cannot launder a protected or out-of-scope target.
func (c *Checker) path(p string, del bool, why string) Decision {
	rel, real, err := c.Resolve(p)
	if err != nil {
		return Decision{Verdict: Deny, Rule: "workspace", Reason: err.Error()}
	}
	verb := "written"
	if del {
		verb = "deleted"
	}
	names := []string{rel}
	if real != rel {
		names = append(names, real)
	}
	for _, n := range names {
		if g := matchAny(c.p.Protected, n); g != "" {
			return Decision{Verdict: Deny, Rule: "protected " + g,
				Reason: fmt.Sprintf("%s is protected (%s) and may not be %s. Leave it as it is; if the task cannot be done without changing it, say so in finish.", n, g, verb)}
		}
		if g := matchAny(c.p.Tests, n); del && g != "" {
			return Decision{Verdict: Deny, Rule: "tests " + g,
				Reason: fmt.Sprintf("%s is a test file (%s): tests may be added to, never deleted. Keep it; change the code under test instead.", n, g)}
		}
	}
	if c.granted(rel, nil) && c.granted(real, nil) {
		return Decision{Verdict: Allow, Rule: "grant"}
	}
	for _, n := range names {
		if matchAny(c.p.Write, n) == "" {
			return c.outside(fmt.Sprintf("%s is outside the policy's writable paths (%s).", n, strings.Join(c.p.Write, ", ")),
				"outside write", why, names, &Grant{Paths: names})
		}
		for _, also := range c.p.writeAlso {
			if matchAny(also, n) == "" {
				return c.outside(fmt.Sprintf("%s is outside the repository policy's writable paths (%s).", n, strings.Join(also, ", ")),
					"outside write", why, names, &Grant{Paths: names})
			}
		}
		if c.p.scope != nil && matchAny(c.p.scope, n) == "" {
			return c.outside(fmt.Sprintf("%s is outside the task's write scope (%s). Change files within it.", n, strings.Join(c.p.scope, ", ")),
				"outside scope", why, names, &Grant{Paths: names})
		}
	}
	return Decision{Verdict: Allow, Rule: "write " + matchAny(c.p.Write, real)}
}

// command decides one argv.
func (c *Checker) command(argv []string, why string) Decision {
	if len(argv) == 0 || argv[0] == "" {
		return Decision{Verdict: Deny, Rule: "commands", Reason: "An empty command: give argv with the program first."}
	}
	for _, r := range c.p.Commands.Deny {
		if r.MatchDeny(argv) {
			return Decision{Verdict: Deny, Rule: "commands.deny " + r.String(),
				Reason: fmt.Sprintf("%q is refused by the policy (%s).", strings.Join(argv, " "), r)}
		}
	}
	for _, r := range c.p.Commands.Allow {
		if r.Match(argv) {
			return Decision{Verdict: Allow, Rule: "commands.allow " + r.String()}
		}
	}
	if c.granted("", argv) {
		return Decision{Verdict: Allow, Rule: "grant"}
	}
	var allowed []string
	for _, r := range c.p.Commands.Allow {
		allowed = append(allowed, strings.Join(r.Argv, " "))
	}
	return c.outside(fmt.Sprintf("%q is not on the policy's command allowlist. Allowed: %s.", strings.Join(argv, " "), strings.Join(allowed, "; ")),
		RuleUnlisted, why, []string{strings.Join(argv, " ")}, &Grant{Argv: [][]string{slices.Clone(argv)}})
}

func (c *Checker) granted(rel string, argv []string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if argv != nil {
		return slices.ContainsFunc(c.grants.Argv, func(g []string) bool { return slices.Equal(g, argv) })
	}
	return slices.Contains(c.grants.Paths, rel)
}

func matchAny(globs []string, rel string) string {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return g
		}
	}
	return ""
}

// Resolve turns a path a tool was given into a clean workspace-relative
// one (rel) and the path it leads to after symlinks (real; rel when no
// link is involved), or says why it is not one: absolute paths, .. that
// climbs out, and symlinks anywhere along the path that lead out are
// refused; .git is the harness's.
func (c *Checker) Resolve(p string) (rel, real string, err error) {
	if p == "" {
		return "", "", errors.New("An empty path: give one relative to the workspace root.")
	}
	if filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p)) {
		return "", "", fmt.Errorf("%s is absolute: give the path relative to the workspace root.", p)
	}
	rel = path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "", fmt.Errorf("%s leaves the workspace: paths are relative to its root and stay inside it.", p)
	}
	if rel == "." {
		return "", "", fmt.Errorf("%s is the workspace itself, not a file in it.", p)
	}
	if isGit(rel) {
		return "", "", fmt.Errorf("%s is git's metadata: the harness does every git operation.", p)
	}
	// Resolve symlinks on the longest prefix that exists; what is below
	// it does not exist yet and will be created where the prefix leads.
	existing, rest := filepath.Join(c.root, filepath.FromSlash(rel)), ""
	for existing != c.root {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", "", fmt.Errorf("%s cannot be resolved: %v", p, err)
	}
	r, err := filepath.Rel(c.root, filepath.Join(resolved, rest))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s leads out of the workspace through a symbolic link.", p)
	}
	real = filepath.ToSlash(r)
	if real == "." || isGit(real) {
		return "", "", fmt.Errorf("%s leads to the workspace's root or git's metadata through a symbolic link.", p)
	}
	return rel, real, nil
}

func isGit(rel string) bool { return rel == ".git" || strings.HasPrefix(rel, ".git/") }
