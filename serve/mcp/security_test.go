package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
)

// secretFixture is a server over enginetest.SecretRepo.
func secretFixture(t *testing.T) *fixture {
	t.Helper()
	root := enginetest.SecretRepo(t)
	eng, err := engine.Open(context.Background(), engine.Options{Root: root, CheckEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	srv := New(Options{Engine: eng})
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &fixture{root: root, eng: eng, srv: srv, cs: cs}
}

// secretNames are the definitions that hold or use a planted secret.
var secretNames = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "connect_database",
	"SlackToken", "StripeKey", "DialDatabase", "Alert", "GOOGLE_MAPS_KEY", "SESSION_JWT", "mapsUrl"}

var secretFilePaths = []string{"config/settings.py", "server/keys.go", "server/handler.go", "web/keys.ts",
	"deploy/release.sh", ".env", "README.md"}

// askAll asks every tool every question about the secret fixture and
// returns each answer: the text and the structured content, as a client
// sees them. ok counts the calls that succeeded.
func askAll(t *testing.T, cs *sdk.ClientSession) (answers map[string]string, ok map[string]bool) {
	t.Helper()
	answers, ok = map[string]string{}, map[string]bool{}
	ask := func(tool string, args map[string]any) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		key := marshal(t, args)
		name := tool + string(key)
		if err != nil {
			answers[name] = "protocol error: " + err.Error()
			return
		}
		b := marshal(t, res)
		answers[name] = text(res) + "\n" + string(b)
		ok[name] = !res.IsError
	}
	for _, n := range secretNames {
		ask("definition", map[string]any{"symbol": n})
		ask("references", map[string]any{"symbol": n, "include_definitions": true})
		ask("callers", map[string]any{"symbol": n, "all": true, "depth": 2})
		ask("callees", map[string]any{"symbol": n, "all": true, "depth": 2})
		ask("implementations", map[string]any{"symbol": n, "all": true})
		ask("trace", map[string]any{"target": n})
		ask("impact", map[string]any{"symbol": n})
	}
	for _, target := range []string{"OPENAI_API_KEY", "DB_PASSWORD", "GITLAB_TOKEN", "database_url"} {
		ask("trace", map[string]any{"target": target})
	}
	for _, q := range []string{"aws secret access key", "slack alert token", "database url password", "google maps key",
		"openai api key", "gitlab token release", "session jwt"} {
		ask("search", map[string]any{"query": q})
	}
	for _, format := range []string{"markdown", "json"} {
		ask("build_context", map[string]any{"task": "connect to the database and post slack alerts with the keys", "format": format, "budget": 20000})
		ask("build_context", map[string]any{"task": "review the credentials", "focus": secretFilePaths, "format": format, "budget": 20000})
		ask("build_context", map[string]any{"task": "change the alert", "focus": []string{"Alert", "SlackToken", "connect_database"}, "format": format, "full_share": 1})
	}
	for _, p := range secretFilePaths {
		ask("read_span", map[string]any{"path": p})
	}
	ask("repo_map", map[string]any{})
	ask("index_status", map[string]any{})
	return answers, ok
}

// TestSecretsNeverLeave: no planted secret is in any answer of any tool.
func TestSecretsNeverLeave(t *testing.T) {
	f := secretFixture(t)
	answers, ok := askAll(t, f.cs)
	for q, a := range answers {
		for _, s := range enginetest.Secrets() {
			if strings.Contains(a, s) {
				t.Errorf("%s: the answer holds the secret %s:\n%.2000s", q, s, a)
			}
		}
	}
	// the questions reached the secrets' definitions and files
	for _, q := range []string{`definition{"symbol":"SlackToken"}`, `definition{"symbol":"AWS_SECRET_ACCESS_KEY"}`,
		`definition{"symbol":"DATABASE_URL"}`, `definition{"symbol":"connect_database"}`, `read_span{"path":".env"}`,
		`read_span{"path":"server/keys.go"}`, `trace{"target":"SlackToken"}`, `impact{"symbol":"DialDatabase"}`} {
		if !ok[q] {
			t.Errorf("%s failed: %.500s", q, answers[q])
		}
	}
	for _, q := range []string{`definition{"symbol":"SlackToken"}`, `definition{"symbol":"AWS_SECRET_ACCESS_KEY"}`,
		`definition{"symbol":"connect_database"}`, `read_span{"path":"server/keys.go"}`, `read_span{"path":".env"}`} {
		if !strings.Contains(answers[q], "[REDACTED:") {
			t.Errorf("%s shows no redaction (the secret's text is not in the answer at all?): %.800s", q, answers[q])
		}
	}
}

// TestSwappedForSymlinkNeverRead: indexed files replaced by links to a
// file outside the repository after indexing; no question reads it.
func TestSwappedForSymlinkNeverRead(t *testing.T) {
	f := secretFixture(t)
	for _, p := range []string{"server/keys.go", "config/settings.py", "web/keys.ts", ".env", "server/handler.go"} {
		enginetest.SwapOut(t, f.root, p)
	}
	answers, ok := askAll(t, f.cs)
	for q, a := range answers {
		if strings.Contains(a, enginetest.OutsideMarker) || strings.Contains(a, "root:x:0:0") {
			t.Errorf("%s: the answer holds the outside file:\n%.1500s", q, a)
		}
	}
	if ok[`read_span{"path":"server/keys.go"}`] || !strings.HasPrefix(answers[`read_span{"path":"server/keys.go"}`], "outside_repository: ") {
		t.Errorf("read_span of a swapped file: %.300s", answers[`read_span{"path":"server/keys.go"}`])
	}
	if !ok[`definition{"symbol":"SlackToken"}`] {
		t.Errorf("the index still answers definitions: %.300s", answers[`definition{"symbol":"SlackToken"}`])
	}
}

// TestHugeArgumentBoundedError: a 5 MB argument gets a short error (the
// arguments cap's, or the SDK's bounded); arguments just under the cap
// reach the engine and get its bounded errors.
func TestHugeArgumentBoundedError(t *testing.T) {
	f := secretFixture(t)
	huge := strings.Repeat("N", MaxArguments-100)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"build_context", map[string]any{"task": strings.Repeat("N", 5<<20)}},
		{"search", map[string]any{"query": strings.Repeat("N", 5<<20)}},
		{"definition", map[string]any{"symbol": strings.Repeat("N", 5<<20)}},
		{"definition", map[string]any{"symbol": huge}},
		{"references", map[string]any{"symbol": huge}},
		{"callers", map[string]any{"symbol": huge}},
		{"impact", map[string]any{"symbol": huge}},
		{"read_span", map[string]any{"path": huge}},
		{"read_span", map[string]any{"path": "../" + huge}},
		{"repo_map", map[string]any{"under": huge}},
		{"definition", map[string]any{"symbol": "Alert", "kind": huge}},
		{"search", map[string]any{"query": "x", "cursor": huge}},
		{"search", map[string]any{"query": "x", "limit": huge}}, // the SDK's schema validation quotes the value
		{strings.Repeat("N", 5<<20), map[string]any{}},          // the SDK's unknown tool quotes the name
	} {
		res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			if len(err.Error()) > 1000 {
				t.Errorf("%.40s: a protocol error of %d bytes", c.tool, len(err.Error()))
			}
			continue
		}
		b := marshal(t, res)
		if !res.IsError {
			t.Errorf("%.40s: no error for a 5 MB argument", c.tool)
		}
		if len(b) > 2000 {
			t.Errorf("%.40s: an error of %d bytes: %.300s", c.tool, len(b), b)
		}
	}
}

// TestArgumentsCapped: arguments over MaxArguments are refused, as
// invalid_argument naming the cap, before they are decoded; just under it
// they reach the tool.
func TestArgumentsCapped(t *testing.T) {
	f := secretFixture(t)
	for _, n := range []int{MaxArguments + 1, 2 * MaxArguments} {
		res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": strings.Repeat("N", n)}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.HasPrefix(text(res), "invalid_argument: ") || !strings.Contains(text(res), fmt.Sprintf("at most %d are accepted", MaxArguments)) {
			t.Errorf("search with %d bytes of arguments: %.200s, want the cap's invalid_argument", n, text(res))
		}
	}
	res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "x " + strings.Repeat("N", MaxArguments/2)}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text(res), "are accepted") {
		t.Errorf("arguments under the cap refused: %.200s", text(res))
	}
}
