package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine/enginetest"
)

// startClientAt is startClient over the repository at root.
func startClientAt(t *testing.T, root string) *client {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	cl := &client{t: t, c: newConn(cr, cw), msgs: make(chan *message, 100), done: make(chan error, 1), root: root}
	go func() { cl.done <- Serve(context.Background(), sr, sw, Options{Debounce: 20 * time.Millisecond}) }()
	go func() {
		for {
			m, err := cl.c.read()
			if err != nil {
				close(cl.msgs)
				return
			}
			cl.msgs <- m
		}
	}()
	cl.call("initialize", map[string]any{"rootUri": cl.uri(""), "capabilities": map[string]any{}}, nil)
	cl.c.notify("initialized", map[string]any{})
	t.Cleanup(func() {
		cl.call("shutdown", nil, nil)
		cl.c.notify("exit", nil)
		select {
		case <-cl.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not exit")
		}
	})
	return cl
}

// secretSymbols: definitions holding or using planted secrets, by file.
var secretSymbols = map[string][]string{
	"config/settings.py": {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "connect_database", "open_pool"},
	"server/keys.go":     {"SlackToken", "StripeKey", "DialDatabase", "Alert"},
	"server/handler.go":  {"Handle"},
	"web/keys.ts":        {"GOOGLE_MAPS_KEY", "SESSION_JWT", "mapsUrl"},
}

// place is where name is first written as a word in rel (0-based line
// and column; the fixture is ASCII, so bytes are UTF-16 units).
func place(t *testing.T, rel, name string) (int, int) {
	t.Helper()
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	for i, l := range strings.Split(enginetest.SecretFiles()[rel], "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "//") || strings.HasPrefix(strings.TrimSpace(l), "/**") {
			continue // the doc comment above, not the definition
		}
		if loc := re.FindStringIndex(l); loc != nil {
			return i, loc[0]
		}
	}
	t.Fatalf("%s not in %s", name, rel)
	return 0, 0
}

// askAllLSP asks every LSP question about the secret fixture; it returns
// each raw response (result or error) and whether it succeeded.
func askAllLSP(t *testing.T, cl *client) (answers map[string]string, ok map[string]bool) {
	answers, ok = map[string]string{}, map[string]bool{}
	ask := func(name, method string, params any) json.RawMessage {
		var raw json.RawMessage
		if err := cl.call(method, params, &raw); err != nil {
			b, err := json.Marshal(err)
			if err != nil {
				t.Fatal(err)
			}
			answers[name] = string(b)
			return nil
		}
		answers[name], ok[name] = string(raw), true
		return raw
	}
	doc := func(rel string) map[string]any { return map[string]any{"uri": cl.uri(rel)} }
	for _, rel := range []string{"config/settings.py", "server/keys.go", "server/handler.go", "web/keys.ts", "deploy/release.sh", ".env", "README.md"} {
		ask("documentSymbol "+rel, "textDocument/documentSymbol", map[string]any{"textDocument": doc(rel)})
	}
	for rel, names := range secretSymbols {
		for _, n := range names {
			line, col := place(t, rel, n)
			at := map[string]any{"textDocument": doc(rel), "position": map[string]any{"line": line, "character": col + 1}}
			q := fmt.Sprintf("%s %s", rel, n)
			ask("hover "+q, "textDocument/hover", at)
			ask("definition "+q, "textDocument/definition", at)
			ask("implementation "+q, "textDocument/implementation", at)
			ask("references "+q, "textDocument/references", map[string]any{"textDocument": doc(rel), "position": at["position"],
				"context": map[string]any{"includeDeclaration": true}})
			items := ask("prepareCallHierarchy "+q, "textDocument/prepareCallHierarchy", at)
			var its []map[string]any
			json.Unmarshal(items, &its)
			for _, it := range its {
				ask("incomingCalls "+q, "callHierarchy/incomingCalls", map[string]any{"item": it})
				ask("outgoingCalls "+q, "callHierarchy/outgoingCalls", map[string]any{"item": it})
			}
			ask("workspaceSymbol "+n, "workspace/symbol", map[string]any{"query": n})
		}
	}
	return answers, ok
}

// TestLSPSecretsNeverLeave: hover, symbols, navigation and call hierarchy
// never show a planted secret.
func TestLSPSecretsNeverLeave(t *testing.T) {
	cl := startClientAt(t, enginetest.SecretRepo(t))
	answers, ok := askAllLSP(t, cl)
	for q, a := range answers {
		for _, s := range enginetest.Secrets() {
			if strings.Contains(a, s) {
				t.Errorf("%s: the answer holds the secret %s:\n%.1500s", q, s, a)
			}
		}
	}
	for _, q := range []string{"hover server/keys.go SlackToken", "hover config/settings.py AWS_SECRET_ACCESS_KEY",
		"hover config/settings.py connect_database", "documentSymbol server/keys.go", "documentSymbol config/settings.py",
		"prepareCallHierarchy server/keys.go SlackToken"} {
		if !ok[q] || !strings.Contains(answers[q], "[REDACTED:") {
			t.Errorf("%s: no redacted signature or doc (the question missed the secret?): %.800s", q, answers[q])
		}
	}
}

// TestLSPSwappedForSymlinkNeverRead: indexed files replaced by links out
// of the repository after indexing are never read.
func TestLSPSwappedForSymlinkNeverRead(t *testing.T) {
	root := enginetest.SecretRepo(t)
	cl := startClientAt(t, root)
	for rel := range secretSymbols {
		enginetest.SwapOut(t, root, rel)
	}
	answers, ok := askAllLSP(t, cl)
	for q, a := range answers {
		if strings.Contains(a, enginetest.OutsideMarker) || strings.Contains(a, "root:x:0:0") {
			t.Errorf("%s: the answer holds the outside file:\n%.1500s", q, a)
		}
	}
	if ok["hover server/keys.go SlackToken"] {
		t.Errorf("hover in a file swapped for a link out: %s", answers["hover server/keys.go SlackToken"])
	}
	if !ok["workspaceSymbol SlackToken"] {
		t.Errorf("the index still answers: %s", answers["workspaceSymbol SlackToken"])
	}
}

// TestLSPHugeArgumentBoundedError: a 5 MB argument gets a short error.
func TestLSPHugeArgumentBoundedError(t *testing.T) {
	cl := startClientAt(t, enginetest.SecretRepo(t))
	huge := strings.Repeat("N", 5<<20)
	for _, c := range []struct {
		method string
		params any
	}{
		{"textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": cl.uri(huge)}, "position": map[string]any{"line": 0, "character": 0}}},
		{"textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": cl.uri("../" + huge)}}},
		{"textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": "file:///" + huge}, "position": map[string]any{"line": 0, "character": 0}}},
		{huge, map[string]any{}},
	} {
		err := cl.call(c.method, c.params, nil)
		if err == nil {
			t.Errorf("%.40s: no error for a 5 MB argument", c.method)
			continue
		}
		b, jerr := json.Marshal(err)
		if jerr != nil {
			t.Fatal(jerr)
		}
		if len(b) > 1000 {
			t.Errorf("%.40s: an error of %d bytes", c.method, len(b))
		}
	}
}
