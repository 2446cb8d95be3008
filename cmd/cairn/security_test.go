package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine/enginetest"
)

// cliNames are the definitions of the secret fixture that hold or use a
// planted secret.
var cliNames = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "connect_database",
	"SlackToken", "StripeKey", "DialDatabase", "Alert", "GOOGLE_MAPS_KEY", "SESSION_JWT", "mapsUrl"}

var cliFiles = []string{"config/settings.py", "server/keys.go", "server/handler.go", "web/keys.ts", "deploy/release.sh", ".env", "README.md"}

// askCLI runs every query command in-process over the repository at root,
// in text and JSON, and returns each command's stdout and stderr and exit
// code.
func askCLI(t *testing.T, root string) (answers map[string]string, codes map[string]int) {
	t.Helper()
	answers, codes = map[string]string{}, map[string]int{}
	ask := func(args ...string) {
		for _, json := range []bool{false, true} {
			full := append([]string{"--repo", root}, args...)
			if json {
				full = append(full, "--json")
			}
			var out, errb bytes.Buffer
			code := run(full, &out, &errb)
			key := fmt.Sprint(args, json)
			answers[key], codes[key] = out.String()+"\n"+errb.String(), code
		}
	}
	for _, n := range cliNames {
		ask("def", n)
		ask("refs", n, "--definitions")
		ask("callers", n, "--depth", "2")
		ask("callees", n, "--depth", "2")
		ask("implementations", n)
		ask("trace", n)
		ask("impact", n)
	}
	for _, target := range []string{"OPENAI_API_KEY", "DB_PASSWORD", "GITLAB_TOKEN", "database_url"} {
		ask("trace", target)
	}
	for _, f := range cliFiles {
		ask("symbols", "--file", f)
	}
	ask("symbols")
	for _, q := range []string{"aws secret access key", "slack alert token", "database url password", "google maps key",
		"openai api key", "gitlab token release", "session jwt"} {
		ask("search", q)
	}
	ask("context", "connect to the database and post slack alerts with the keys", "--budget", "20000")
	focus := []string{"context", "review the credentials", "--budget", "20000"}
	for _, f := range append(cliFiles, "Alert", "SlackToken", "connect_database") {
		focus = append(focus, "--focus", f)
	}
	ask(focus...)
	ask("map")
	ask("status")
	return answers, codes
}

// TestCLISecretsNeverLeave: no planted secret is in any command's output.
func TestCLISecretsNeverLeave(t *testing.T) {
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_STORE", "")
	root := enginetest.SecretRepo(t)
	answers, codes := askCLI(t, root)
	for q, a := range answers {
		for _, s := range enginetest.Secrets() {
			if strings.Contains(a, s) {
				t.Errorf("%s: the output holds the secret %s:\n%.1500s", q, s, a)
			}
		}
	}
	for _, q := range []string{"[def SlackToken] false", "[def SlackToken] true", "[def AWS_SECRET_ACCESS_KEY] true",
		"[def connect_database] true", "[symbols --file server/keys.go] true", "[symbols --file config/settings.py] true"} {
		if codes[q] != 0 || !strings.Contains(answers[q], "[REDACTED:") {
			t.Errorf("%s (exit %d): no redacted signature or doc (the question missed the secret?):\n%.800s", q, codes[q], answers[q])
		}
	}
	for _, q := range []string{"[trace SlackToken] true", "[impact DialDatabase] true", "[search slack alert token] true"} {
		if codes[q] != 0 {
			t.Errorf("%s failed (exit %d): %.500s", q, codes[q], answers[q])
		}
	}
}

// TestCLISwappedForSymlinkNeverRead: indexed files replaced by links to a
// file outside the repository after indexing are never read.
func TestCLISwappedForSymlinkNeverRead(t *testing.T) {
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_STORE", "")
	root := enginetest.SecretRepo(t)
	for _, p := range []string{"server/keys.go", "config/settings.py", "web/keys.ts", ".env", "server/handler.go"} {
		enginetest.SwapOut(t, root, p)
	}
	answers, codes := askCLI(t, root)
	for q, a := range answers {
		if strings.Contains(a, enginetest.OutsideMarker) || strings.Contains(a, "root:x:0:0") {
			t.Errorf("%s: the output holds the outside file:\n%.1500s", q, a)
		}
	}
	if codes["[def SlackToken] true"] != 0 {
		t.Errorf("the index still answers: %.300s", answers["[def SlackToken] true"])
	}
}

// TestCLIHugeArgumentBoundedError: a 5 MB argument gets a short error.
func TestCLIHugeArgumentBoundedError(t *testing.T) {
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_STORE", "")
	root := enginetest.SecretRepo(t)
	huge := strings.Repeat("N", 5<<20)
	for _, args := range [][]string{
		{"def", huge}, {"refs", huge}, {"callers", huge}, {"impact", huge}, {"symbols", "--kind", huge},
		{"symbols", "--file", "../" + huge}, {"def", huge, "--json"},
		{huge},
	} {
		var out, errb bytes.Buffer
		start := time.Now()
		code := run(append([]string{"--repo", root}, args...), &out, &errb)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%.20s: %v to refuse", args, d)
		}
		if code == 0 {
			t.Errorf("%.20s: exit 0 for a 5 MB argument", args)
		}
		if n := out.Len() + errb.Len(); n > 2000 { // with --json, the answer and the stderr line both quote a bounded part
			t.Errorf("%.20s: %d bytes of output: %.300s", args, n, errb.String())
		}
	}
}
