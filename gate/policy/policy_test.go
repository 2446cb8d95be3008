package policy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
)

// workspace is a directory with a few files and symlinks: one leading out
// of it, one inside to a protected file, one inside to an ordinary one.
func workspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"internal/api/api.go", "internal/api/api_test.go", ".github/workflows/ci.yml", "go.sum", "cmd/main.go"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	links := map[string]string{
		"internal/out":    outside,
		"internal/etc":    "/etc",
		"internal/ci":     "../.github/workflows/ci.yml",
		"internal/alias":  "api",
		"internal/tocmd":  "../cmd",
		"internal/gitdir": "../.git",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func checker(t *testing.T, p *Policy, unattended bool) *Checker {
	t.Helper()
	c, err := NewChecker(p, workspace(t), unattended)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPaths(t *testing.T) {
	contract := task.Scope{Write: []string{"internal/**"}, Protected: []string{"internal/legacy/**"}}
	c := checker(t, Default().ForContract(contract), false)
	tests := []struct {
		name    string
		eff     Effects
		verdict Verdict
		rule    string
	}{
		{"write in scope", Effects{Writes: []string{"internal/api/api.go"}}, Allow, "write **"},
		{"new file in scope", Effects{Writes: []string{"internal/api/new/file.go"}}, Allow, "write **"},
		{"add to a test", Effects{Writes: []string{"internal/api/api_test.go"}}, Allow, "write **"},
		{"CI config", Effects{Writes: []string{".github/workflows/ci.yml"}}, Deny, "protected .github/**"},
		{"lockfile", Effects{Writes: []string{"go.sum"}}, Deny, "protected **/go.sum"},
		{"contract's protected", Effects{Writes: []string{"internal/legacy/x.go"}}, Deny, "protected internal/legacy/**"},
		{"delete a test", Effects{Deletes: []string{"internal/api/api_test.go"}}, Deny, "tests **/*_test.go"},
		{"delete a fixture", Effects{Deletes: []string{"internal/api/testdata/golden.json"}}, Deny, "tests **/testdata/**"},
		{"delete code", Effects{Deletes: []string{"internal/api/api.go"}}, Allow, "write **"},
		{"outside contract scope", Effects{Writes: []string{"cmd/main.go"}}, Deny, "outside scope"},
		{"dotdot", Effects{Writes: []string{"../escape.go"}}, Deny, "workspace"},
		{"dotdot inside", Effects{Writes: []string{"internal/../../escape.go"}}, Deny, "workspace"},
		{"absolute outside", Effects{Writes: []string{"/etc/passwd"}}, Deny, "workspace"},
		{"absolute", Effects{Writes: []string{"/internal/api/api.go"}}, Deny, "workspace"},
		{"symlink out", Effects{Writes: []string{"internal/out/x.go"}}, Deny, "workspace"},
		{"symlink to /etc", Effects{Writes: []string{"internal/etc/passwd"}}, Deny, "workspace"},
		{"symlink to protected", Effects{Writes: []string{"internal/ci"}}, Deny, "protected .github/**"},
		{"symlink out of scope", Effects{Writes: []string{"internal/tocmd/main.go"}}, Deny, "outside scope"},
		{"symlink to .git", Effects{Writes: []string{"internal/gitdir/config"}}, Deny, "workspace"},
		{"symlink inside", Effects{Writes: []string{"internal/alias/api.go"}}, Allow, "write **"},
		{".git", Effects{Writes: []string{".git/hooks/pre-commit"}}, Deny, "workspace"},
		{"empty", Effects{Writes: []string{""}}, Deny, "workspace"},
		{"network", Effects{Network: true}, Deny, "network"},
		{"one bad effect of many", Effects{Writes: []string{"internal/a.go", "go.sum"}, Run: [][]string{{"go", "test", "./..."}}}, Deny, "protected **/go.sum"},
		{"nothing", Effects{}, Allow, "no effects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := c.Check(tt.eff)
			if d.Verdict != tt.verdict || d.Rule != tt.rule {
				t.Errorf("%v by %q (%s), want %v by %q", d.Verdict, d.Rule, d.Reason, tt.verdict, tt.rule)
			}
			if d.Verdict == Deny && d.Reason == "" {
				t.Error("a denial without a reason")
			}
		})
	}
}

func TestCommands(t *testing.T) {
	c := checker(t, Default(), false)
	tests := []struct {
		argv    []string
		verdict Verdict
	}{
		{[]string{"go", "test", "./..."}, Allow},
		{[]string{"go", "test", "-run", "TestX", "./internal/api/"}, Allow},
		{[]string{"go", "vet", "./..."}, Allow},
		{[]string{"curl", "https://example.com"}, Deny},
		{[]string{"wget", "x"}, Deny},
		{[]string{"go"}, Deny},
		{[]string{"go", "run", "."}, Deny},
		{[]string{"/tmp/go", "test"}, Deny},
		{[]string{"sh", "-c", "go test ./..."}, Deny},
		{[]string{"go", "test", "-exec=/bin/sh", "./..."}, Deny},
		{[]string{"go", "test", "-toolexec", "x", "./..."}, Deny},
		{[]string{"go", "test", "./...", "--exec=/bin/sh"}, Deny},
		{[]string{"go", "vet", "-vettool=/tmp/x", "./..."}, Deny},
		{[]string{}, Deny},
	}
	for _, tt := range tests {
		d := c.Check(Effects{Run: [][]string{tt.argv}})
		if d.Verdict != tt.verdict {
			t.Errorf("%q: %v (%s), want %v", tt.argv, d.Verdict, d.Reason, tt.verdict)
		}
	}
	if got, want := c.Violations(), 11; got != want {
		t.Errorf("violations %d, want %d", got, want)
	}
}

func TestRuleMatch(t *testing.T) {
	tests := []struct {
		rule Rule
		argv []string
		want bool
	}{
		{Rule{Argv: []string{"go", "test"}}, []string{"go", "test", "./..."}, true},
		{Rule{Argv: []string{"go", "test"}, Exact: true}, []string{"go", "test", "./..."}, false},
		{Rule{Argv: []string{"go", "test", "./..."}, Exact: true}, []string{"go", "test", "./..."}, true},
		{Rule{Argv: []string{"go", "test", "-run=*"}}, []string{"go", "test", "-run=TestA"}, true},
		{Rule{Argv: []string{"go", "test", "-run=*"}}, []string{"go", "test", "-count=1"}, false},
		{Rule{Argv: []string{"go", "test", "./internal/*"}}, []string{"go", "test", "./internal/api/..."}, true},
		{Rule{Argv: []string{"go", "test", "-run=Test?"}}, []string{"go", "test", "-run=TestAB"}, false},
		{Rule{Argv: []string{"g*"}}, []string{"go"}, false}, // argv[0] only as written
		{Rule{}, []string{"go"}, false},
	}
	for _, tt := range tests {
		if got := tt.rule.Match(tt.argv); got != tt.want {
			t.Errorf("%v matches %q: %v, want %v", tt.rule, tt.argv, got, tt.want)
		}
	}
}

// TestAsk: in ask mode an action outside the allowlist is a request with
// its intent and a narrower grant; unattended it is denied; a grant lets
// exactly what it names through, never a protected path.
func TestAsk(t *testing.T) {
	p := Default().ForContract(task.Scope{Write: []string{"internal/**"}})
	p.Mode = Ask
	attended := checker(t, p, false)
	d := attended.Check(Effects{Run: [][]string{{"make", "generate"}}, Why: "regenerate the mocks"})
	want := &Intent{Why: "regenerate the mocks", Affects: []string{"make generate"}, Narrower: &Grant{Argv: [][]string{{"make", "generate"}}}}
	if d.Verdict != AskPerson || attended.Violations() != 0 {
		t.Errorf("attended: %v, %d violations", d.Verdict, attended.Violations())
	}
	if diff := cmp.Diff(want, d.Intent); diff != "" {
		t.Errorf("intent (-want +got)\n%s", diff)
	}
	// A deny among the effects outranks the ask.
	if d := attended.Check(Effects{Run: [][]string{{"make", "generate"}}, Writes: []string{"go.sum"}}); d.Verdict != Deny {
		t.Errorf("ask and protected: %v", d.Verdict)
	}

	unattended := checker(t, p, true)
	d = unattended.Check(Effects{Writes: []string{"cmd/main.go"}})
	if d.Verdict != Deny || !strings.Contains(d.Reason, "unattended") || d.Intent == nil || unattended.Violations() != 1 {
		t.Errorf("unattended: %v %q %v, %d violations", d.Verdict, d.Reason, d.Intent, unattended.Violations())
	}

	attended.Grant(Grant{Paths: []string{"cmd/main.go", "go.sum"}, Argv: [][]string{{"make", "generate"}}})
	for _, tt := range []struct {
		eff  Effects
		want Verdict
	}{
		{Effects{Writes: []string{"cmd/main.go"}}, Allow},
		{Effects{Run: [][]string{{"make", "generate"}}}, Allow},
		{Effects{Run: [][]string{{"make", "generate", "all"}}}, AskPerson},
		{Effects{Writes: []string{"cmd/other.go"}}, AskPerson},
		{Effects{Writes: []string{"go.sum"}}, Deny},
	} {
		if d := attended.Check(tt.eff); d.Verdict != tt.want {
			t.Errorf("after the grant, %+v: %v, want %v", tt.eff, d.Verdict, tt.want)
		}
	}
}

// writeTool is a tool that declares the file it writes.
type writeTool struct{ ran []string }

func (w *writeTool) Name() string { return "create" }

func (w *writeTool) Effects(input json.RawMessage) (Effects, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return Effects{}, err
	}
	return Effects{Writes: []string{in.Path}}, nil
}

func (w *writeTool) Run(ctx context.Context, input json.RawMessage) (Result, error) {
	w.ran = append(w.ran, string(input))
	return TextResult("written", false), nil
}

// TestGuard: the decorator checks before running, refuses with the reason
// as a tool error, audits every decision in call order, and stops on an
// audit failure without running the tool.
func TestGuard(t *testing.T) {
	inner := &writeTool{}
	c := checker(t, Default().ForContract(task.Scope{Write: []string{"internal/**"}}), true)
	var events []Event
	audit := AuditorFunc(func(ctx context.Context, e Event) error {
		events = append(events, e)
		return nil
	})
	tool := Guard(inner, c, audit)
	if tool.Name() != "create" {
		t.Errorf("name %q", tool.Name())
	}
	calls := []string{
		`{"path": "internal/api/new.go"}`,
		`{"path": ".github/workflows/ci.yml"}`,
		`{"path": "../../etc/cron.d/x"}`,
		`{"path": 7}`,
		`{"path": "internal/api/other.go"}`,
	}
	var results []Result
	for _, in := range calls {
		r, err := tool.Run(context.Background(), json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	if diff := cmp.Diff([]string{calls[0], calls[4]}, inner.ran); diff != "" {
		t.Errorf("ran (-want +got)\n%s", diff)
	}
	var got []string
	for i, e := range events {
		got = append(got, e.Decision.Verdict.String()+" "+e.Decision.Rule)
		if string(e.Input) != calls[i] || e.Tool != "create" {
			t.Errorf("event %d is for %s %s", i, e.Tool, e.Input)
		}
	}
	want := []string{"allow write **", "deny protected .github/**", "deny workspace", "deny input", "allow write **"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audited (-want +got)\n%s", diff)
	}
	for i, r := range results {
		if r.IsError != (i > 0 && i < 4) {
			t.Errorf("call %d: IsError %v: %s", i, r.IsError, r.Content)
		}
	}
	if !strings.Contains(string(results[1].Content), "protected") {
		t.Errorf("refusal without its reason: %s", results[1].Content)
	}
	if c.Violations() != 2 {
		t.Errorf("violations %d, want 2 (malformed input is not one)", c.Violations())
	}

	broken := Guard(inner, c, AuditorFunc(func(context.Context, Event) error { return errors.New("disk full") }))
	if _, err := broken.Run(context.Background(), json.RawMessage(calls[0])); err == nil || len(inner.ran) != 2 {
		t.Errorf("audit failure: err %v, ran %d", err, len(inner.ran))
	}
}

func TestGuardAsks(t *testing.T) {
	p := Default()
	p.Mode = Ask
	p.Write = []string{"internal/**"}
	inner := &writeTool{}
	c := checker(t, p, false)
	tool := Guard(inner, c, AuditorFunc(func(context.Context, Event) error { return nil }))
	_, err := tool.Run(context.Background(), json.RawMessage(`{"path": "cmd/main.go"}`))
	var pr *PermissionRequest
	if !errors.As(err, &pr) || pr.Decision.Intent == nil || len(inner.ran) != 0 {
		t.Fatalf("err %v, ran %d", err, len(inner.ran))
	}
	c.Grant(*pr.Decision.Intent.Narrower)
	if r, err := tool.Run(context.Background(), json.RawMessage(`{"path": "cmd/main.go"}`)); err != nil || r.IsError || len(inner.ran) != 1 {
		t.Errorf("after approval: %v %v", r, err)
	}
}

func TestParse(t *testing.T) {
	p, err := Parse([]byte(`
version: 1
mode: ask
write: ["src/**"]
commands:
  allow:
    - [make, test]
    - {argv: [go, test, ./...], exact: true}
limits: {wall_s: 60, procs: 64}
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != Ask || p.Write[0] != "src/**" || len(p.Commands.Allow) != 2 || !p.Commands.Allow[1].Exact || p.Limits.SandboxLimits().Procs != 64 {
		t.Errorf("parsed %+v", p)
	}
	if o := p.SandboxOptions(sandbox.Options{GoRoot: "/go"}); o.Limits.Wall != time.Minute || o.GoRoot != "/go" || o.AllowWeaker != "" {
		t.Errorf("sandbox options %+v", o)
	}
	if len(p.Protected) == 0 || len(p.Commands.Deny) == 0 {
		t.Error("keys the file leaves out lost their defaults")
	}
	for _, tt := range []struct{ in, want string }{
		{"writable: [a]", "field writable not found"},
		{"version: 2", "version: 2; this cairn reads version 1"},
		{"mode: yolo", `mode: "yolo": want enforce or ask`},
		{"protected: ['/abs']", `protected[0]: "/abs" is not a glob`},
		{"write: ['a/[b']", `write[0]: "a/[b" is not a glob`},
		{"commands: {allow: [[]]}", "commands.allow[0]: an empty argv"},
		{"commands: {allow: [{argv: [x], exact: true, extra: 1}]}", "field extra not found"},
		{"commands: {deny: [['g*', x]]}", "commands.deny[0][0]"},
		{"limits: {procs: -1}", "limits: must be ≥ 0"},
		{"sandbox: {allow_weaker: chroot}", `sandbox.allow_weaker: "chroot"`},
	} {
		if _, err := Parse([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tt.in, err, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	p, err := Load(root)
	if err != nil || p.Mode != Enforce {
		t.Fatalf("no file: %v %v", p, err)
	}
	os.MkdirAll(filepath.Join(root, ".cairn"), 0o755)
	os.WriteFile(filepath.Join(root, File), []byte("network: maybe\n"), 0o644)
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), File) {
		t.Errorf("bad file: %v", err)
	}
}
