package redact

import (
	"strings"
	"testing"
)

// tokens are built from pieces, so no file of the repository holds a
// credential-shaped literal.
func rep(s string, n int) string { return strings.Repeat(s, n)[:n] }

const mixed = "q8Zr3N0vT1xY7pLkWm2Hs9Df4Gb6Jc5Ae0Uo8RtKi"

// TestKinds: every pattern redacts a real-shaped secret and leaves its
// near miss alone.
func TestKinds(t *testing.T) {
	for _, c := range []struct {
		name, path string
		code       bool
		secret     string // the text that must go ("" : none)
		line       string // the line, holding secret
		kind       string
	}{
		{"github classic", "a.go", true, "ghp_" + mixed[:36], `see ghp_` + mixed[:36], "github-token"},
		{"github classic near miss (too short)", "a.go", true, "", "see ghp_" + mixed[:20], ""},
		{"github fine-grained", "a.go", true, "github_pat_" + mixed[:22] + "_" + mixed[:10], "see github_pat_" + mixed[:22] + "_" + mixed[:10], "github-token"},
		{"github fine-grained near miss", "a.go", true, "", "see github_pat_short", ""},
		{"gitlab", "a.txt", false, "glpat-" + mixed[:20], "token glpat-" + mixed[:20] + " here", "gitlab-token"},
		{"gitlab near miss", "a.txt", false, "", "glpat-abc is a prefix", ""},
		{"slack", "a.txt", false, "xoxb-1234567890-" + mixed[:12], "hook xoxb-1234567890-" + mixed[:12], "slack-token"},
		{"slack near miss (no such kind)", "a.txt", false, "", "hook xoxz-1234567890-" + mixed[:12], ""},
		{"openai", "a.txt", false, "sk-proj-" + mixed[:24], "use sk-proj-" + mixed[:24], "openai-key"},
		{"openai near miss (inside a word)", "a.txt", false, "", "the disk-usage-report-generator-v2 job", ""},
		{"stripe", "a.txt", false, "sk_live_" + mixed[:24], "charge sk_live_" + mixed[:24], "stripe-key"},
		{"stripe near miss", "a.txt", false, "", "charge sk_live_short", ""},
		{"google", "a.txt", false, "AIza" + mixed[:35], "maps AIza" + mixed[:35], "google-api-key"},
		{"google near miss (too short)", "a.txt", false, "", "maps AIza" + mixed[:20], ""},
		{"jwt", "a.txt", false, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + mixed[:20],
			"bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + mixed[:20], "jwt"},
		{"jwt near miss (one segment)", "a.txt", false, "", "header eyJhbGciOiJIUzI1NiJ9 only", ""},
		// each kind's real shapes (- and _ in the body, every prefix), and
		// near misses a widened pattern would take
		{"github near miss (inside a word)", "a.go", true, "", "see xghp_" + mixed[:36], ""},
		{"gitlab with - and _", "a.txt", false, "glpat-" + mixed[:6] + "_" + mixed[6:12] + "-" + mixed[12:19], "token glpat-" + mixed[:6] + "_" + mixed[6:12] + "-" + mixed[12:19], "gitlab-token"},
		{"gitlab near miss (too short)", "a.txt", false, "", "token glpat-" + mixed[:19], ""},
		{"slack user token", "a.txt", false, "xoxp-1234567890-" + mixed[:12], "hook xoxp-1234567890-" + mixed[:12], "slack-token"},
		{"slack app token", "a.txt", false, "xoxa-2-" + mixed[:16], "hook xoxa-2-" + mixed[:16], "slack-token"},
		{"slack refresh token", "a.txt", false, "xoxr-" + mixed[:16], "hook xoxr-" + mixed[:16], "slack-token"},
		{"slack near miss (too short)", "a.txt", false, "", "hook xoxb-12345", ""},
		{"openai with - and _", "a.txt", false, "sk-proj-" + mixed[:10] + "_" + mixed[10:20] + "-" + mixed[20:30], "use sk-proj-" + mixed[:10] + "_" + mixed[10:20] + "-" + mixed[20:30], "openai-key"},
		{"openai near miss (too short)", "a.txt", false, "", "use sk-" + mixed[:12], ""},
		{"stripe restricted", "a.txt", false, "rk_live_" + mixed[:24], "charge rk_live_" + mixed[:24], "stripe-key"},
		{"stripe test publishable", "a.txt", false, "pk_test_" + mixed[:24], "charge pk_test_" + mixed[:24], "stripe-key"},
		{"stripe near miss (no such mode)", "a.txt", false, "", "charge sk_prod_" + mixed[:24], ""},
		{"google with - and _", "a.txt", false, "AIza" + mixed[:15] + "_" + mixed[15:24] + "-" + mixed[24:33], "maps AIza" + mixed[:15] + "_" + mixed[15:24] + "-" + mixed[24:33], "google-api-key"},
		{"jwt with a base64url signature", "a.txt", false, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + mixed[:8] + "-" + mixed[8:14] + "_" + mixed[14:20],
			"bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + mixed[:8] + "-" + mixed[8:14] + "_" + mixed[14:20], "jwt"},
		{"jwt near miss (two segments)", "a.txt", false, "", "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", ""},
		{"url credentials, short password", "deploy.sh", false, "hunter2", "git clone https://deploy:hunter2@git.example.com/x.git", "url-credentials"},
		{"url credentials near miss (a colon in the path)", "a.txt", false, "", "see https://example.com/path:with@sign", ""},
		{"url near miss (a user, no password)", "a.txt", false, "", "see https://deploy@git.example.com/x.git", ""},
		{"aws access key", "a.py", true, "AKIA" + "Q3EGUSPJXDH7Z2KL", `key_id = "AKIA` + "Q3EGUSPJXDH7Z2KL" + `"`, "aws-access-key"},
		{"aws access key near miss", "a.py", true, "", `ident = "AKIA` + "Q3EG" + `"`, ""},
		{"aws secret assigned", "settings.py", true, mixed[:40], `AWS_SECRET_ACCESS_KEY = "` + mixed[:40] + `"`, "credential-assignment"},
		{"aws secret from the environment", "settings.py", true, "", `AWS_SECRET_ACCESS_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]`, ""},
		{"secret expression in code", "a.go", true, "", `apiKey := loadKeyFromVault(ctx)`, ""},
		{"placeholder", "a.yaml", false, "", `password: changeme-please`, ""},
		{"a tuple in a docstring is no credential", "hub.py", false, "", `{private_key: (public_key, timestamp)}`, ""},
		{"an author is no credential", "docs/conf.py", true, "", `author = 'The Astropy Developers'`, ""},
		{"authors in config", "setup.cfg", false, "", `authors = Jane Q. Developer-Smith`, ""},
		{"authorization header assigned", "a.py", true, "Bearer " + mixed[:30], `authorization = "Bearer ` + mixed[:30] + `"`, "credential-assignment"},
		{"auth token assigned", "a.py", true, mixed[:32], `auth = "` + mixed[:32] + `"`, "credential-assignment"},
		{"url credentials", "db.go", true, "S3cr3tPassw0rd", `const databaseURL = "postgres://admin:S3cr3tPassw0rd@db.internal:5432/prod"`, "url-credentials"},
		{"url without credentials", "db.go", true, "", `const databaseURL = "postgres://db.internal:5432/prod"`, ""},
		{"env value", ".env", false, "hunter2", "DB_PASSWORD=hunter2", "env-value"},
		{"env value in .env.local", "deploy/.env.local", false, "plain", "LOG_NAME=plain", "env-value"},
		{"env comment", ".env", false, "", "# DB_PASSWORD=hunter2", ""},
		{"same line outside a .env file", "notes.txt", false, "", "DB_PASSWORD=hunter2", ""},
		{"private key", "key.pem", false, "MIIEowIBAAKCAQEA" + mixed, "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + mixed + "\n-----END RSA PRIVATE KEY-----", "private-key"},
		{"private key near miss", "key.txt", false, "", "a BEGIN PRIVATE KEY line without dashes", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reds := Content(c.path, 7, c.line, c.code)
			if c.secret == "" {
				if out != c.line || len(reds) != 0 {
					t.Errorf("redacted a non-secret: %q → %q %v", c.line, out, reds)
				}
				return
			}
			if strings.Contains(out, c.secret) {
				t.Errorf("secret left in %q", out)
			}
			if len(reds) == 0 || reds[0].Kind != c.kind || reds[0].Line != 7 || reds[0].Path != c.path {
				t.Errorf("redactions %+v, want one %s on line 7 of %s", reds, c.kind, c.path)
			}
			if !strings.Contains(out, "[REDACTED:"+c.kind+"]") {
				t.Errorf("no marker in %q", out)
			}
			// only the secret changed
			if strings.ReplaceAll(out, "[REDACTED:"+c.kind+"]", c.secret) != c.line && c.kind != "private-key" {
				t.Errorf("more than the secret changed: %q → %q", c.line, out)
			}
		})
	}
}

func TestLineNumbers(t *testing.T) {
	content := "a\nb = 1\ntoken ghp_" + mixed[:36] + "\n"
	_, reds := Content("x.txt", 10, content, false)
	if len(reds) != 1 || reds[0].Line != 12 {
		t.Fatalf("redactions %+v, want one on line 12", reds)
	}
}

func TestQuoteBounded(t *testing.T) {
	long := rep("x", 5<<20)
	q := Quote(long)
	if len(q) > MaxQuoted+40 || !strings.Contains(q, "5242880 bytes") {
		t.Fatalf("Quote of 5 MB: %d bytes %.80q", len(q), q)
	}
	if q := Quote("é" + rep("é", 300)); !strings.HasPrefix(q, `"é`) || strings.Contains(q, `\x`) {
		t.Errorf("cut inside a rune: %.60s", q)
	}
	if q := Quote("password=" + mixed[:30]); strings.Contains(q, mixed[:30]) {
		t.Errorf("Quote kept a secret: %s", q)
	}
	if Quote("Serve") != `"Serve"` {
		t.Errorf("Quote changed a short input: %s", Quote("Serve"))
	}
}
