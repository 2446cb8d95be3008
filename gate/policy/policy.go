package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// File is where a repository keeps its policy, relative to its root.
const File = ".cairn/policy.yaml"

// Version is the policy file's format version.
//
//	1  write, protected, tests, commands {allow, deny}, network, mode, limits, sandbox;
//	   later hooks {fail} (a file without it reads as before: fail refuse)
const Version = 1

// The file format (every key optional; a missing key takes Default's value):
//
//	version: 1
//	mode: enforce | ask          # outside the allowlist: refuse, or ask a person
//	write: [GLOB…]               # where a change may write
//	protected: [GLOB…]           # never written or deleted (CI config, lockfiles)
//	tests: [GLOB…]               # test files: may be added to, never deleted
//	commands:
//	  allow: [RULE…]             # RULE: [ARG…] (an argv prefix) or {argv: [ARG…], exact: true}
//	  deny:  [RULE…]             # checked first
//	network: false
//	limits: {wall_s: N, cpu_s: N, memory_mb: N, procs: N, output_kb: N}
//	sandbox: {allow_weaker: unisolated}   # the one weaker backend allowed when bwrap cannot run (the user's file only)
//	hooks: {fail: refuse | allow}         # a client hook that cannot decide (cairn failed, input malformed) refuses, or allows
//
// An ARG matches one argument: exactly, or as a simple pattern when it has
// '*' (any run of characters, '/' included) or '?' (one character); argv[0]
// matches only as written ("go" is not "/tmp/go"). An allow rule is a
// prefix of the argv, position by position; in a deny rule the last ARG
// may match any argument after the prefix (see Rule.MatchDeny). Decoding
// is strict: unknown keys are errors.

// Policy is what every tool call is checked against. It lives outside the
// model: nothing a model writes (the repository's own instructions
// included) widens it, and the repository's policy file only narrows the
// user's (Layered).
type Policy struct {
	Version   int      `yaml:"version"`
	Mode      Mode     `yaml:"mode"`
	Write     []string `yaml:"write"`
	Protected []string `yaml:"protected"`
	Tests     []string `yaml:"tests"`
	Commands  Commands `yaml:"commands"`
	Network   bool     `yaml:"network"`
	Limits    Limits   `yaml:"limits"`
	Sandbox   Sandbox  `yaml:"sandbox"`
	Hooks     Hooks    `yaml:"hooks"`

	// Where the layers differ (Layered): what the user's layer allows
	// beyond Default, in force; what the repository's file asked for beyond
	// the user's layer, not granted.
	Weakened []Widening `yaml:"-"`
	Ignored  []Widening `yaml:"-"`

	// writeAlso are the write globs of the narrower layers: a write must
	// match one glob of every set as well as Write.
	writeAlso [][]string
	// scope is a contract's write scope, intersected with Write
	// (ForContract); nil when there is no contract.
	scope []string
}

// Mode says what happens to an action outside the allowlist.
type Mode string

const (
	Enforce Mode = "enforce" // refused
	Ask     Mode = "ask"     // a permission request to a person; refused when unattended
)

// Commands are the argv rules.
type Commands struct {
	Allow []Rule `yaml:"allow"`
	Deny  []Rule `yaml:"deny"`
}

// Rule matches an argv: its Argv is a prefix of the command's (the whole
// of it when Exact), element by element.
type Rule struct {
	Argv  []string `yaml:"argv"`
	Exact bool     `yaml:"exact"`
}

// UnmarshalYAML reads a rule as a plain list (a prefix) or a mapping.
func (r *Rule) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		return n.Decode(&r.Argv)
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a command rule is a list of arguments or {argv: […], exact: true}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "argv" && k != "exact" {
			return fmt.Errorf("line %d: field %s not found in a command rule (known: argv, exact)", n.Content[i].Line, k)
		}
	}
	type plain Rule // without this method
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = Rule(p)
	return nil
}

func (r Rule) String() string {
	s := strings.Join(r.Argv, " ")
	if r.Exact {
		return s + " (exactly)"
	}
	return s + " …"
}

// Match reports whether argv matches the rule as an allow rule: the
// rule's arguments are a prefix of argv, position by position.
func (r Rule) Match(argv []string) bool {
	if len(r.Argv) == 0 || len(argv) < len(r.Argv) || (r.Exact && len(argv) != len(r.Argv)) {
		return false
	}
	for i, pat := range r.Argv {
		if !matchArg(i, pat, argv[i]) {
			return false
		}
	}
	return true
}

// MatchDeny reports whether argv matches the rule as a deny rule: all but
// the last of the rule's arguments are a prefix of argv, and the last one
// matches any argument after that prefix ("go test -*exec*" catches
// "go test ./... --exec=sh"); an exact deny rule matches as Match does.
func (r Rule) MatchDeny(argv []string) bool {
	if r.Exact || len(r.Argv) < 2 {
		return r.Match(argv)
	}
	n := len(r.Argv) - 1
	if !(Rule{Argv: r.Argv[:n]}).Match(argv) {
		return false
	}
	for _, a := range argv[n:] {
		if matchArg(n, r.Argv[n], a) {
			return true
		}
	}
	return false
}

// matchArg matches one argument: argv[0] only exactly, the others with '*'
// for any run of characters ('/' included) and '?' for one.
func matchArg(pos int, pat, arg string) bool {
	if pos == 0 || !strings.ContainsAny(pat, "*?") {
		return pat == arg
	}
	return wildcard(pat, arg)
}

func wildcard(pat, s string) bool {
	// Iterative matching with one backtrack point: the last '*'.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == s[i]):
			p++
			i++
		case p < len(pat) && pat[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p, mark = star+1, mark+1
			i = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// Limits bound every command; zero takes the sandbox's default.
type Limits struct {
	WallS    int `yaml:"wall_s"`
	CPUS     int `yaml:"cpu_s"`
	MemoryMB int `yaml:"memory_mb"`
	Procs    int `yaml:"procs"`
	OutputKB int `yaml:"output_kb"`
}

// Sandbox is the policy's say over isolation.
type Sandbox struct {
	AllowWeaker string `yaml:"allow_weaker"`
}

// Hooks is the policy's say over the client hooks (clients/hook).
type Hooks struct {
	// Fail is what a hook does when cairn cannot decide — the client's
	// input is malformed, the policy or the gate failed, cairn panicked:
	// FailRefuse (the default) refuses the action or the stop, FailAllow
	// lets it happen. Either way the failure is reported on stderr, and a
	// path the built-in default protects stays refused when the input can
	// be read.
	Fail FailMode `yaml:"fail"`
}

// FailMode is Hooks.Fail.
type FailMode string

const (
	FailRefuse FailMode = "refuse"
	FailAllow  FailMode = "allow"
)

// SandboxLimits converts the limits for the executor.
func (l Limits) SandboxLimits() sandbox.Limits {
	return sandbox.Limits{
		Wall:        time.Duration(l.WallS) * time.Second,
		CPU:         time.Duration(l.CPUS) * time.Second,
		Memory:      int64(l.MemoryMB) << 20,
		Procs:       l.Procs,
		OutputBytes: l.OutputKB << 10,
	}
}

// SandboxOptions applies the policy's limits and its choice of a weaker
// backend (only ever the user's: Layered ignores a repository's) to the
// executor's options. The sandbox has no network whatever the policy says:
// Network admits tools that declare it (a fetch the harness runs outside),
// not commands inside.
func (p *Policy) SandboxOptions(o sandbox.Options) sandbox.Options {
	o.Limits = p.Limits.SandboxLimits()
	o.AllowWeaker = p.Sandbox.AllowWeaker
	return o
}

// Default is the policy of a repository without a policy file.
func Default() *Policy {
	return &Policy{
		Version: Version,
		Mode:    Enforce,
		Write:   []string{"**"},
		Protected: []string{
			".git/**", ".cairn/**",
			// CI configuration
			".github/**", ".gitlab-ci.yml", ".gitlab/**", ".circleci/**", ".travis.yml", ".buildkite/**",
			"azure-pipelines.yml", "Jenkinsfile", ".drone.yml", "bitbucket-pipelines.yml", ".ci/**",
			// lockfiles
			"**/go.sum", "**/package-lock.json", "**/yarn.lock", "**/pnpm-lock.yaml", "**/Cargo.lock",
			"**/poetry.lock", "**/Pipfile.lock", "**/uv.lock", "**/Gemfile.lock", "**/composer.lock",
		},
		Tests: []string{
			"**/*_test.go", "**/testdata/**",
			"**/test_*.py", "**/*_test.py", "**/conftest.py", "**/tests/**",
			"**/*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs}", "**/__tests__/**",
		},
		Commands: Commands{
			Allow: []Rule{
				{Argv: []string{"go", "test"}}, {Argv: []string{"go", "vet"}}, {Argv: []string{"go", "build"}},
				{Argv: []string{"go", "list"}}, {Argv: []string{"go", "version"}}, {Argv: []string{"go", "env"}},
				{Argv: []string{"gofmt", "-l"}}, {Argv: []string{"gofmt", "-d"}},
				{Argv: []string{"pytest"}}, {Argv: []string{"python", "-m", "pytest"}}, {Argv: []string{"python3", "-m", "pytest"}},
				{Argv: []string{"npm", "test"}}, {Argv: []string{"npx", "jest"}}, {Argv: []string{"npx", "vitest"}},
				{Argv: []string{"node", "--test"}},
				{Argv: []string{"ls"}}, {Argv: []string{"cat"}}, {Argv: []string{"head"}}, {Argv: []string{"tail"}},
				{Argv: []string{"wc"}}, {Argv: []string{"grep"}}, {Argv: []string{"rg"}}, {Argv: []string{"diff"}},
			},
			Deny: []Rule{
				// -exec, -toolexec and -vettool run any program on the go command's behalf.
				{Argv: []string{"go", "test", "-*exec*"}}, {Argv: []string{"go", "build", "-*exec*"}},
				{Argv: []string{"go", "vet", "-*exec*"}}, {Argv: []string{"go", "vet", "-*vettool*"}},
			},
		},
		Hooks: Hooks{Fail: FailRefuse},
	}
}

// Load is the repository's policy file (File under root) narrowing
// Default, without a user's layer: Layered(root, User{}) with Default as
// the ceiling. Without a file, Default.
func Load(root string) (*Policy, error) {
	return layer(root, Default())
}

// Parse decodes a policy file over Default: a key the file sets replaces
// the default's value as a whole (a file's protected list is the whole
// protected list). This is how the user's file is read; a repository's
// only narrows it (Layered).
func Parse(data []byte) (*Policy, error) {
	return parseOver(Default(), data)
}

func parseOver(p *Policy, data []byte) (*Policy, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Policy) validate() error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if p.Version != Version {
		fail("version", "%d; this cairn reads version %d", p.Version, Version)
	}
	if p.Mode != Enforce && p.Mode != Ask {
		fail("mode", "%q: want enforce or ask", p.Mode)
	}
	for _, g := range []struct {
		field string
		globs []string
	}{{"write", p.Write}, {"protected", p.Protected}, {"tests", p.Tests}} {
		for i, glob := range g.globs {
			if glob == "" || strings.HasPrefix(glob, "/") || !doublestar.ValidatePattern(glob) {
				fail(fmt.Sprintf("%s[%d]", g.field, i), "%q is not a glob relative to the repository root", glob)
			}
		}
	}
	for _, rs := range []struct {
		field string
		rules []Rule
	}{{"commands.allow", p.Commands.Allow}, {"commands.deny", p.Commands.Deny}} {
		for i, r := range rs.rules {
			if len(r.Argv) == 0 || r.Argv[0] == "" {
				fail(fmt.Sprintf("%s[%d]", rs.field, i), "an empty argv matches nothing; give the program first")
			}
			if len(r.Argv) > 0 && strings.ContainsAny(r.Argv[0], "*?") {
				fail(fmt.Sprintf("%s[%d][0]", rs.field, i), "%q: the program is matched exactly, without patterns", r.Argv[0])
			}
		}
	}
	l := p.Limits
	if l.WallS < 0 || l.CPUS < 0 || l.MemoryMB < 0 || l.Procs < 0 || l.OutputKB < 0 {
		fail("limits", "must be ≥ 0 (0: the sandbox's default)")
	}
	if w := p.Sandbox.AllowWeaker; w != "" && w != sandbox.Unisolated {
		fail("sandbox.allow_weaker", "%q: the only weaker backend is %q", w, sandbox.Unisolated)
	}
	if f := p.Hooks.Fail; f != FailRefuse && f != FailAllow {
		fail("hooks.fail", "%q: want refuse or allow", f)
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid policy: %w", errors.Join(errs...))
	}
	return nil
}

// ForContract is the policy narrowed by a task contract: a write must match
// the policy's write globs and the contract's scope.write (when it has
// one); the contract's protected globs are added to the policy's. A
// contract never widens the policy.
func (p *Policy) ForContract(s task.Scope) *Policy {
	n := *p
	n.Protected = append(slices.Clone(p.Protected), s.Protected...)
	if len(s.Write) > 0 {
		n.scope = slices.Clone(s.Write)
	}
	return &n
}
