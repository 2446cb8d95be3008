package enginetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The planted secrets of SecretRepo, each of a kind the redactor knows.
// They are assembled from pieces so that no file of cairn's own holds a
// credential-shaped literal.
var (
	mixed        = "q8Zr3N0vT1xY7pLkWm2Hs9Df4Gb6Jc5Ae0Uo8RtKi"
	AWSKeyID     = "AKIA" + "Q3EGUSPJXDH7Z2KL"
	AWSSecret    = mixed[:40]
	DBPassword   = "S3cr3t" + "Passw0rdZ9"
	GitHubToken  = "ghp_" + mixed[:36]
	SlackToken   = "xoxb-" + "1234567890-" + mixed[3:15]
	StripeKey    = "sk_" + "live_" + mixed[5:29]
	GoogleKey    = "AIza" + mixed[:35]
	JWT          = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + mixed[7:27]
	OpenAIKey    = "sk-" + "proj-" + mixed[2:26]
	EnvPassword  = "hunter2" + "hunter2x"
	GitLabToken  = "glpat-" + mixed[9:29]
	DialPassword = "Pw9x" + "Q2mK7zL4"
)

// Secrets lists every planted secret (the text that must never appear in
// an answer).
func Secrets() []string {
	return []string{AWSKeyID, AWSSecret, DBPassword, GitHubToken, SlackToken, StripeKey, GoogleKey, JWT,
		OpenAIKey, EnvPassword, GitLabToken, DialPassword}
}

// SecretFiles is a repository with secrets in signatures, docs, function
// bodies, configuration and a .env file.
func SecretFiles() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/vault\n\ngo 1.22\n",
		"config/settings.py": `"""Settings of the vault service."""

AWS_ACCESS_KEY_ID = "` + AWSKeyID + `"
AWS_SECRET_ACCESS_KEY = "` + AWSSecret + `"
DATABASE_URL = "postgres://admin:` + DBPassword + `@db.internal:5432/prod"


def connect_database():
    """Connect with the deploy token ` + GitHubToken + `."""
    return open_pool(DATABASE_URL)


def open_pool(url):
    return url
`,
		"server/keys.go": `package server

// SlackToken posts alerts; the old one was ` + SlackToken + `.
const SlackToken = "` + SlackToken + `"

// StripeKey charges cards.
var StripeKey = "` + StripeKey + `"

// DialDatabase opens the application database.
func DialDatabase() string {
	return "postgres://svc:` + DialPassword + `@db:5432/app"
}

// Alert posts a message with SlackToken.
func Alert(msg string) string {
	return SlackToken + msg + DialDatabase()
}
`,
		"server/handler.go": `package server

// Handle serves a request and alerts.
func Handle(path string) string {
	return Alert(path)
}
`,
		"server/handler_test.go": `package server

import "testing"

func TestHandle(t *testing.T) {
	if Handle("x") == "" {
		t.Fatal("empty")
	}
}
`,
		"web/keys.ts": `// GOOGLE_MAPS_KEY loads maps.
export const GOOGLE_MAPS_KEY = "` + GoogleKey + `";

/** SESSION_JWT signs requests. */
export const SESSION_JWT = "` + JWT + `";

export function mapsUrl(q: string): string {
  return "https://maps.example.com/?key=" + GOOGLE_MAPS_KEY + "&q=" + q;
}
`,
		"deploy/release.sh": `#!/bin/sh
# release pushes the build
GITLAB_TOKEN=` + GitLabToken + `
curl -H "PRIVATE-TOKEN: $GITLAB_TOKEN" https://gitlab.example.com/api
`,
		".env":      "OPENAI_API_KEY=" + OpenAIKey + "\nDB_PASSWORD=" + EnvPassword + "\n",
		"README.md": "# vault\n\nThe vault service keeps `DATABASE_URL` and the Slack alert token.\n",
	}
}

// SecretRepo writes SecretFiles into a new git repository, commits and
// indexes it; it returns the root.
func SecretRepo(t testing.TB) string {
	t.Helper()
	return repoOf(t, SecretFiles())
}

// OutsideMarker is on every line of the file SwapOut links to.
const OutsideMarker = "OUTSIDE-THE-REPOSITORY-7f3a"

// SwapOut replaces the indexed file rel with a symlink to a file outside
// the repository (an /etc/passwd of its own, every line marked with
// OutsideMarker and long enough to cover any span of rel).
func SwapOut(t testing.TB, root, rel string) {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "passwd")
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("root:x:0:0:" + OutsideMarker + ":/root:/bin/sh\n")
	}
	if err := os.WriteFile(outside, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.Remove(abs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, abs); err != nil {
		t.Fatal(err)
	}
}
