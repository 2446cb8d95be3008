package query

import (
	"regexp"
	"strings"
)

// Keys: a command-line flag or a configuration key is spelled one way in
// the text and another in the code that defines and reads it: a server's
// "--max-conn-idle" is registered as "max-conn-idle" and read as
// cfg.MaxConnIdle, fzf's "--keep-right" is read as t.keepRight, an
// environment variable MAX_CONN_IDLE is os.Getenv("MAX_CONN_IDLE") and a
// field MaxConnIdle. So a key of two parts or more — a long flag
// (--max-conn-idle, in prose or quoted), a quoted key of lower-case parts
// joined by hyphens or dots (`max-conn-idle`, `max.conn.idle`), or an
// environment variable's name (MAX_CONN_IDLE) — gives the code's
// spellings as identifiers: the parts joined camel-case (maxConnIdle,
// which a definition's lookup matches in any case: MaxConnIdle) and with
// underscores (max_conn_idle). They are Ident.Spelled: derived, not
// written, so no spelling's case is the one the text meant.
//
// The flag as a literal found verbatim ("keep-right" where fzf parses
// "--keep-right") was measured and left out: it finds the option parser,
// which a fix seldom changes, and put it first (fzf fix commits, fn Acc@1
// 0.417 → 0.250; bench/retrieval/RESULTS.md, issue 52). The parser is
// still found by its words.

// flagRE: a long command-line flag, not inside a word or a path.
var flagRE = regexp.MustCompile(`(?:^|[\s(\[{,;'"=` + "`" + `])--([A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+)`)

// keyPartsRE: a quoted configuration key of lower-case parts joined by
// hyphens or dots.
var keyPartsRE = regexp.MustCompile(`^[a-z][a-z0-9]*(?:[-.][a-z0-9]+)+$`)

// envRE: an environment variable's name, two parts or more.
var envRE = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// maxKeys bounds the keys spelled per text: a usage message pasted into
// an issue lists every flag a program has.
const maxKeys = 6

// keys returns the parts of each flag or key the text names, lower-cased,
// in the order written (flags, quoted keys, environment variables), each
// once.
func keys(prose string, quoted []string) [][]string {
	var parts [][]string
	seen := map[string]bool{}
	add := func(key string, sep string) {
		ps := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return strings.ContainsRune(sep, r) })
		if len(parts) == maxKeys || len(ps) < 2 || seen[strings.Join(ps, "-")] {
			return
		}
		seen[strings.Join(ps, "-")] = true
		parts = append(parts, ps)
	}
	texts := append([]string{prose}, quoted...)
	for _, text := range texts {
		for _, m := range flagRE.FindAllStringSubmatch(text, -1) {
			add(m[1], "-.")
		}
	}
	for _, q := range quoted {
		if q = strings.TrimSpace(q); keyPartsRE.MatchString(q) {
			add(q, "-.")
		}
	}
	for _, text := range texts {
		for _, m := range envRE.FindAllString(text, -1) {
			add(m, "_")
		}
	}
	return parts
}

// camel joins parts in camel case: max conn idle → maxConnIdle.
func camel(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && p != "" {
			b.WriteString(strings.ToUpper(p[:1]))
			p = p[1:]
		}
		b.WriteString(p)
	}
	return b.String()
}
