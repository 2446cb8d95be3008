package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

// widening is a repository policy that asks for more than the default in
// every field it can, and narrows a few.
const widening = `
version: 1
mode: ask
network: true
write: ["src/**", "internal/api/**"]
protected: ["secrets/**"]
tests: []
commands:
  allow: [[curl], [make], [go, test], [go, vet, ./...]]
  deny: []
limits: {wall_s: 99999, procs: 16}
sandbox: {allow_weaker: unisolated}
`

func repoWith(t *testing.T, policy string) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cairn"), 0o755)
	if err := os.WriteFile(filepath.Join(root, File), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// noUserFile points the user's configuration at an empty directory.
func noUserFile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	return dir
}

func fields(ws []Widening) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Field)
	}
	return out
}

// TestRepositoryOnlyNarrows: a repository's policy that asks for more
// commands, the network, ask mode, fewer protected paths and deny rules,
// higher limits and the unisolated sandbox gets none of it — each is
// reported as ignored — while what it narrows (write globs, protected
// paths, a lower limit, a shorter allowlist) holds.
func TestRepositoryOnlyNarrows(t *testing.T) {
	noUserFile(t)
	p, err := Layered(repoWith(t, widening), User{})
	if err != nil {
		t.Fatal(err)
	}
	c := checker(t, p, false)
	for _, tt := range []struct {
		name string
		e    Effects
		want Verdict
	}{
		{"a command only the repository allows", Effects{Run: [][]string{{"curl", "https://example.com"}}}, Deny},
		{"another", Effects{Run: [][]string{{"make"}}}, Deny},
		{"the network", Effects{Network: true}, Deny},
		{"a command both allow", Effects{Run: [][]string{{"go", "test", "./..."}}}, Allow},
		{"the narrower of two rules", Effects{Run: [][]string{{"go", "vet", "./..."}}}, Allow},
		{"past the narrower rule", Effects{Run: [][]string{{"go", "vet", "./internal/..."}}}, Deny},
		{"a command the repository leaves out", Effects{Run: [][]string{{"go", "build", "./..."}}}, Deny},
		{"a default deny rule the repository dropped", Effects{Run: [][]string{{"go", "test", "-exec=/bin/sh", "./..."}}}, Deny},
		{"within both write globs", Effects{Writes: []string{"internal/api/api.go"}}, Allow},
		{"outside the repository's write globs", Effects{Writes: []string{"cmd/main.go"}}, Deny},
		{"a default protected path the repository dropped", Effects{Writes: []string{".github/workflows/ci.yml"}}, Deny},
		{"a path the repository protects", Effects{Writes: []string{"secrets/key"}}, Deny},
		{"a default test file the repository dropped", Effects{Deletes: []string{"internal/api/api_test.go"}}, Deny},
	} {
		// Deny, never ask: the repository cannot turn on ask mode.
		if d := c.Check(tt.e); d.Verdict != tt.want {
			t.Errorf("%s: %v (%s: %s), want %v", tt.name, d.Verdict, d.Rule, d.Reason, tt.want)
		}
	}
	// Dropping the protected paths and test globs keeps them, within the
	// write globs too.
	q, err := Layered(repoWith(t, "protected: []\ntests: []\n"), User{})
	if err != nil {
		t.Fatal(err)
	}
	c = checker(t, q, false)
	if d := c.Check(Effects{Writes: []string{".github/workflows/ci.yml"}}); d.Verdict != Deny || !strings.HasPrefix(d.Rule, "protected") {
		t.Errorf("a default protected path the repository dropped: %v (%s)", d.Verdict, d.Rule)
	}
	if d := c.Check(Effects{Deletes: []string{"internal/api/api_test.go"}}); d.Verdict != Deny || !strings.HasPrefix(d.Rule, "tests") {
		t.Errorf("deleting a default test file the repository dropped: %v (%s)", d.Verdict, d.Rule)
	}
	o := p.SandboxOptions(sandbox.Options{})
	if o.AllowWeaker != "" || o.Limits.Wall != 0 || o.Limits.Procs != 16 {
		t.Errorf("sandbox options: allow_weaker %q, wall %v, procs %d; want none, the default, 16", o.AllowWeaker, o.Limits.Wall, o.Limits.Procs)
	}
	want := []string{"mode", "protected", "tests", "commands.deny", "commands.allow", "network", "limits.wall_s", "sandbox.allow_weaker"}
	got := fields(p.Ignored)
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("ignored widenings %v lack %s", p.Ignored, f)
		}
	}
	for _, w := range p.Ignored {
		if w.From != File {
			t.Errorf("%v: from %q, want %s", w, w.From, File)
		}
		if w.Field == "commands.allow" && !strings.HasPrefix(w.Value, "curl") && !strings.HasPrefix(w.Value, "make") {
			t.Errorf("%v: a rule within the default reported as a widening", w)
		}
	}
	if len(p.Weakened) != 0 {
		t.Errorf("weakened without a user layer: %v", p.Weakened)
	}
	// Load has Default as the ceiling: the same narrowing.
	if l, err := Load(repoWith(t, widening)); err != nil || l.Network || l.Mode != Enforce || l.Sandbox.AllowWeaker != "" || len(l.Ignored) != len(p.Ignored) {
		t.Errorf("Load: %v %+v", err, l)
	}
}

// TestUserLayer: what the user's own policy file allows, a repository's
// may use (and it is reported as weakened), and a narrower repository
// policy still narrows it; the user's file cannot live in the repository.
func TestUserLayer(t *testing.T) {
	cfg := noUserFile(t)
	os.MkdirAll(filepath.Join(cfg, "cairn"), 0o755)
	user := "network: true\ncommands:\n  allow: [[curl], [go, test]]\nlimits: {wall_s: 3600}\n"
	if err := os.WriteFile(filepath.Join(cfg, "cairn", "policy.yaml"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Layered(repoWith(t, widening), User{})
	if err != nil {
		t.Fatal(err)
	}
	c := checker(t, p, false)
	if d := c.Check(Effects{Network: true, Run: [][]string{{"curl", "x"}}}); d.Verdict != Allow {
		t.Errorf("what both layers allow: %v %s", d.Verdict, d.Reason)
	}
	if d := c.Check(Effects{Run: [][]string{{"make"}}}); d.Verdict != Deny {
		t.Errorf("make, which only the repository allows: %v", d.Verdict)
	}
	if o := p.SandboxOptions(sandbox.Options{}); o.Limits.Wall != time.Hour || o.AllowWeaker != "" {
		t.Errorf("limits %v, allow_weaker %q: want the user's hour, none", o.Limits.Wall, o.AllowWeaker)
	}
	if got := fields(p.Weakened); !slices.Contains(got, "network") || !slices.Contains(got, "commands.allow") || !slices.Contains(got, "limits.wall_s") {
		t.Errorf("weakened %v", p.Weakened)
	}
	if got := fields(p.Ignored); slices.Contains(got, "network") || !slices.Contains(got, "sandbox.allow_weaker") {
		t.Errorf("ignored %v", p.Ignored)
	}
	// A repository that keeps the network off keeps it off.
	if p, err := Layered(repoWith(t, "network: false\n"), User{}); err != nil || p.Network {
		t.Errorf("a narrower repository: network %v, %v", p != nil && p.Network, err)
	}

	// The command line's weaker backend is the user's.
	p, err = Layered(repoWith(t, "version: 1\n"), User{AllowWeaker: sandbox.Unisolated})
	if err != nil || p.SandboxOptions(sandbox.Options{}).AllowWeaker != sandbox.Unisolated {
		t.Fatalf("--allow-weaker-sandbox: %v", err)
	}
	if i := slices.IndexFunc(p.Weakened, func(w Widening) bool { return w.Field == "sandbox.allow_weaker" }); i < 0 || p.Weakened[i].From != AllowWeakerFlag {
		t.Errorf("weakened %v: want the flag's allow_weaker", p.Weakened)
	}
	// …and a repository may still refuse it.
	if p, err := Layered(repoWith(t, "sandbox: {allow_weaker: ''}\n"), User{AllowWeaker: sandbox.Unisolated}); err != nil || p.Sandbox.AllowWeaker != "" {
		t.Errorf("a repository refusing the weaker backend: %v", err)
	}
	if _, err := Layered(repoWith(t, ""), User{AllowWeaker: "chroot"}); err == nil || !strings.Contains(err.Error(), AllowWeakerFlag) {
		t.Errorf("an unknown weaker backend: %v", err)
	}

	root := repoWith(t, "")
	inRepo := filepath.Join(root, "mine.yaml")
	os.WriteFile(inRepo, []byte("network: true\n"), 0o644)
	if _, err := Layered(root, User{File: inRepo}); err == nil || !strings.Contains(err.Error(), "inside the repository") {
		t.Errorf("a user file inside the repository: %v", err)
	}
	if _, err := Layered(root, User{File: filepath.Join(cfg, "missing.yaml")}); err == nil {
		t.Error("a named user file that does not exist was taken as none")
	}
}

// TestRepositoryCannotWeakenSandbox: with bubblewrap unable to start (a
// bwrap that does not exist), a repository's allow_weaker is refused with
// an error that says why and names the user's flag; the user's flag runs
// commands unisolated and says why bubblewrap could not.
func TestRepositoryCannotWeakenSandbox(t *testing.T) {
	noUserFile(t)
	root := repoWith(t, "sandbox: {allow_weaker: unisolated}\n")
	broken := sandbox.Options{Bwrap: filepath.Join(t.TempDir(), "bwrap")}
	p, err := Layered(root, User{})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := p.Select(context.Background(), broken)
	var ue *sandbox.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("the repository's allow_weaker without bubblewrap: %v, %v; want an UnavailableError", ex, err)
	}
	for _, want := range []string{"not installed", AllowWeakerFlag + " unisolated", File + " asks for allow_weaker"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	p, err = Layered(root, User{AllowWeaker: sandbox.Unisolated})
	if err != nil {
		t.Fatal(err)
	}
	ex, err = p.Select(context.Background(), broken)
	if err != nil || ex.Backend() != sandbox.Unisolated || sandbox.Degraded(ex) == nil {
		t.Fatalf("the user's flag: %v, %v", ex, err)
	}
}

func TestRuleCovers(t *testing.T) {
	r := func(exact bool, argv ...string) Rule { return Rule{Argv: argv, Exact: exact} }
	for _, tt := range []struct {
		c, r Rule
		want bool
	}{
		{r(false, "go", "test"), r(false, "go", "test", "./..."), true},
		{r(false, "go", "test"), r(false, "go"), false},
		{r(false, "go", "test", "-run*"), r(false, "go", "test", "-run=X"), true},
		{r(false, "go", "test", "-run=X"), r(false, "go", "test", "-run*"), false},
		{r(false, "go", "*"), r(false, "go", "te?t"), true},
		{r(true, "go", "test"), r(false, "go", "test"), false},
		{r(true, "go", "test"), r(true, "go", "test"), true},
		{r(false, "go", "test"), r(true, "go", "test"), true},
		{r(false, "go"), r(false, "/usr/bin/go"), false},
	} {
		if got := tt.c.covers(tt.r); got != tt.want {
			t.Errorf("%v covers %v: %v, want %v", tt.c, tt.r, got, tt.want)
		}
	}
}

// TestHooksFailLayers: a repository cannot turn the user's refuse into
// allow (ignored, reported), the user can choose allow, and a repository
// can narrow the user's allow back to refuse.
func TestHooksFailLayers(t *testing.T) {
	noUserFile(t)
	p, err := Layered(repoWith(t, "hooks: {fail: allow}\n"), User{})
	if err != nil || p.Hooks.Fail != FailRefuse || !slices.Contains(fields(p.Ignored), "hooks.fail") {
		t.Errorf("repository asks allow: fail %q, ignored %v, %v; want refuse, hooks.fail ignored", p.Hooks.Fail, p.Ignored, err)
	}
	user := filepath.Join(t.TempDir(), "policy.yaml")
	os.WriteFile(user, []byte("hooks: {fail: allow}\n"), 0o644)
	if p, err := Layered(t.TempDir(), User{File: user}); err != nil || p.Hooks.Fail != FailAllow {
		t.Errorf("the user's allow: %q, %v", p.Hooks.Fail, err)
	}
	if p, err := Layered(repoWith(t, "hooks: {fail: refuse}\n"), User{File: user}); err != nil || p.Hooks.Fail != FailRefuse {
		t.Errorf("the repository narrows the user's allow: %q, %v", p.Hooks.Fail, err)
	}
	if _, err := Parse([]byte("hooks: {fail: maybe}\n")); err == nil || !strings.Contains(err.Error(), "hooks.fail") {
		t.Errorf("a bad fail mode: %v", err)
	}
}
