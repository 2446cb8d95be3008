package redact

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Redaction records one secret removed from a text.
type Redaction struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

// secretPatterns are credentials recognisable by their shape alone.
var secretPatterns = []struct {
	kind string
	// hints: literals one of which every match holds (a cheap test before
	// the regexp, which most content never needs)
	hints []string
	re    *regexp.Regexp
}{
	{"private-key", []string{"PRIVATE KEY"}, regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`)},
	{"aws-access-key", []string{"AKIA", "ASIA"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"github-token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`)},
	{"gitlab-token", []string{"glpat-"}, regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}\b`)},
	{"slack-token", []string{"xox"}, regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`)},
	{"openai-key", []string{"sk-"}, regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b`)},
	{"stripe-key", []string{"_live_", "_test_"}, regexp.MustCompile(`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b`)},
	{"google-api-key", []string{"AIza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"jwt", []string{"eyJ"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b`)},
	{"url-credentials", []string{"://"}, regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^\s:/@"']+:([^\s@/"']{3,})@`)},
}

// hinted reports whether content holds one of the hints.
func hinted(content string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(content, h) {
			return true
		}
	}
	return false
}

// assignRE finds values assigned to credential-like names:
// password = "…", api_key: '…', SECRET_TOKEN=…
// (A bare value never starts with an opening bracket: `key: (a, b)` in a
// docstring is an expression, not a secret.)
var assignRE = regexp.MustCompile(`(?i)\b([A-Za-z0-9_.-]*(?:passw(?:or)?d|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth)[A-Za-z0-9_.-]*)["']?\s*(?::=|=|:)\s*(?:"([^"\n]{6,})"|'([^'\n]{6,})'|([^\s"',;#)(\[{][^\s"',;#)]{7,}))`)

// assignHint: content names a credential somewhere (assignRE can match).
func assignHint(content string) bool {
	low := strings.ToLower(content)
	for _, w := range []string{"passw", "passwd", "secret", "token", "key", "credential", "auth"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	n := float64(len([]rune(s)))
	h := 0.0
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h
}

// looksSecret tells a credential value from a placeholder or a reference.
func looksSecret(v string) bool {
	lv := strings.ToLower(v)
	for _, placeholder := range []string{"xxx", "changeme", "example", "your_", "your-", "<", "${", "{{", "%(", "os.environ", "getenv", "env(", "settings.", "config.", "none", "null", "password", "secret", "token", "redacted", "dummy", "test"} {
		if strings.Contains(lv, placeholder) {
			return false
		}
	}
	return len(v) >= 8 && entropy(v) >= 3.0
}

// credentialName reports whether an assigned name names a credential:
// assignRE's "auth" also matches author, authors and authority, whose values
// (a project's author in docs/conf.py) are not secrets; authorization,
// authorisation and authentication are.
func credentialName(name string) bool {
	n := strings.ToLower(name)
	n = strings.NewReplacer("authoriz", "authz", "authoris", "authz").Replace(n)
	n = strings.ReplaceAll(n, "author", "")
	for _, w := range []string{"passw", "secret", "token", "key", "credential", "auth"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// isEnvFile reports files whose values are secrets by convention.
func isEnvFile(p string) bool {
	b := path.Base(p)
	return b == ".env" || strings.HasPrefix(b, ".env.") || strings.HasSuffix(b, ".env")
}

// redact replaces credentials in content (lines firstLine… of path) with
// [REDACTED:kind] and reports where. In source code only string literals
// count as assigned values (an expression is not a secret); in configuration
// and text, bare values do too.
func redact(p string, firstLine int, content string, code bool) (string, []Redaction) {
	var found []Redaction
	lineOf := func(offset int) int { return firstLine + strings.Count(content[:offset], "\n") }
	type span struct {
		start, end int
		kind       string
	}
	var spans []span
	for _, sp := range secretPatterns {
		if !hinted(content, sp.hints) {
			continue
		}
		for _, m := range sp.re.FindAllStringSubmatchIndex(content, -1) {
			s, e := m[0], m[1]
			if len(m) >= 4 && m[2] >= 0 { // a captured group is the secret part
				s, e = m[2], m[3]
			}
			spans = append(spans, span{s, e, sp.kind})
		}
	}
	// assignments: the regexp runs on the lines that name a credential
	var assigns [][]int
	if assignHint(content) {
		off := 0
		for _, line := range strings.SplitAfter(content, "\n") {
			if assignHint(line) {
				for _, m := range assignRE.FindAllStringSubmatchIndex(line, -1) {
					for i := range m {
						if m[i] >= 0 {
							m[i] += off
						}
					}
					assigns = append(assigns, m)
				}
			}
			off += len(line)
		}
	}
	for _, m := range assigns {
		if !credentialName(content[m[2]:m[3]]) {
			continue
		}
		last := 4
		if code {
			last = 3
		}
		for g := 2; g <= last; g++ {
			if s, e := m[2*g], m[2*g+1]; s >= 0 && looksSecret(content[s:e]) {
				spans = append(spans, span{s, e, "credential-assignment"})
			}
		}
	}
	if isEnvFile(p) {
		// every value of a .env file
		off := 0
		for _, line := range strings.SplitAfter(content, "\n") {
			t := strings.TrimSpace(line)
			if eq := strings.IndexByte(line, '='); eq > 0 && !strings.HasPrefix(t, "#") {
				val := strings.TrimRight(line[eq+1:], "\r\n")
				if strings.TrimSpace(val) != "" {
					spans = append(spans, span{off + eq + 1, off + eq + 1 + len(val), "env-value"})
				}
			}
			off += len(line)
		}
	}
	if len(spans) == 0 {
		return content, nil
	}
	// apply from the end, skipping spans inside already replaced ones
	sortSpans := func() {
		for i := 1; i < len(spans); i++ {
			for j := i; j > 0 && spans[j].start > spans[j-1].start; j-- {
				spans[j], spans[j-1] = spans[j-1], spans[j]
			}
		}
	}
	sortSpans()
	out := content
	lastStart := len(content) + 1
	for _, s := range spans {
		if s.end > lastStart {
			continue // overlaps a later (already applied) span
		}
		found = append(found, Redaction{Path: p, Line: lineOf(s.start), Kind: s.kind})
		out = out[:s.start] + "[REDACTED:" + s.kind + "]" + out[s.end:]
		lastStart = s.start
	}
	// report in line order
	for i, j := 0, len(found)-1; i < j; i, j = i+1, j-1 {
		found[i], found[j] = found[j], found[i]
	}
	return out, found
}

// Content replaces credentials in content, lines firstLine… of the
// repository file p, with [REDACTED:kind] and reports where (code: the file
// is source code, where only string literals count as assigned secrets; a
// .env file's every value is one). Spans, packs, snippets, signatures and
// docs all pass it.
func Content(p string, firstLine int, content string, code bool) (string, []Redaction) {
	return redact(p, firstLine, content, code)
}

// Line redacts one line of source (a snippet, a signature, a doc) of the
// file p: Content without the report.
func Line(p string, content string, code bool) string {
	out, _ := redact(p, 1, content, code)
	return out
}

// Text redacts free text that is not a file's (an error message): bare
// values assigned to credential names count, as in configuration.
func Text(s string) string {
	out, _ := redact("", 1, s, false)
	return out
}

// MaxQuoted bounds the part of an input a message quotes.
const MaxQuoted = 200

// Quote quotes untrusted input for a message, as %q does, bounded to
// MaxQuoted bytes (a cut is marked with the input's length) and redacted.
func Quote(s string) string { return strconv.Quote(Bound(Text(s), MaxQuoted)) }

// Bound cuts s to at most n bytes, on a rune boundary, and marks the cut
// with s's length.
func Bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[%d bytes]", len(s))
}
