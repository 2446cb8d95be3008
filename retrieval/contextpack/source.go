package contextpack

import (
	"regexp"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// fileCache reads worktree files once.
type fileCache struct {
	repo    Files
	files   map[string]graph.File
	content map[string][]string
	stale   map[string]bool
	hash    map[string]string
}

func (fc *fileCache) lines(p string) []string {
	if ls, ok := fc.content[p]; ok {
		return ls
	}
	b, err := fc.repo.ReadFile(p)
	var ls []string
	if err == nil {
		ls = strings.Split(strings.TrimSuffix(strings.ToValidUTF8(string(b), "\uFFFD"), "\n"), "\n")
		if fc.stale == nil {
			fc.stale, fc.hash = map[string]bool{}, map[string]string{}
		}
		h := graph.BlobHash(b)
		fc.hash[p] = h
		fc.stale[p] = h != fc.files[p].Hash
	}
	fc.content[p] = ls
	return ls
}

func (fc *fileCache) isStale(p string) bool {
	fc.lines(p)
	return fc.stale[p] || fc.content[p] == nil
}

// span returns lines [start, end] (1-based, inclusive), clamped.
func (fc *fileCache) span(p string, start, end int) (string, int, int) {
	ls := fc.lines(p)
	if len(ls) == 0 {
		return "", start, end
	}
	start = max(start, 1)
	end = min(end, len(ls))
	if end < start {
		return "", start, end
	}
	return strings.Join(ls[start-1:end], "\n"), start, end
}

// licenseEnd returns the last line of the comment block that opens file
// p when it is a license or copyright notice (with the blank lines after
// it), or 0. Read by a model a notice costs tokens and answers nothing.
func (fc *fileCache) licenseEnd(p string) int {
	return licenseEnd(fc.lines(p))
}

func licenseEnd(ls []string) int {
	// the first comment block: a /* … */ block, or contiguous line
	// comments, up to the first blank line
	end, inBlock, notice := 0, false, false
scan:
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if i > 60 {
			return 0 // a leading comment this long is documentation
		}
		switch {
		case inBlock:
			inBlock = !strings.Contains(t, "*/")
		case strings.HasPrefix(t, "/*"):
			inBlock = !strings.Contains(t[2:], "*/")
		case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#!") && !strings.HasPrefix(t, "#include"):
		default:
			break scan // the block ended
		}
		lt := strings.ToLower(t)
		notice = notice || strings.Contains(lt, "copyright") || strings.Contains(lt, "license") || strings.Contains(lt, "spdx-")
		end = i + 1
		if !inBlock && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "#") {
			break scan // a /* … */ block closed
		}
	}
	if !notice || end == 0 {
		return 0
	}
	for end < len(ls) && strings.TrimSpace(ls[end]) == "" {
		end++
	}
	return end
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// maxSummaryLines bounds the doc a signature item carries.
const maxSummaryLines = 4

// docSummary is what a signature item says of a doc: its first paragraph,
// at most maxSummaryLines lines, and "…" when that is not all of it; long
// reports whether it was cut. A degraded item points at code the pack had
// no room for: its signature and what the doc says first are the pointer,
// and a parameter-by-parameter docstring would cost as much as the body.
func docSummary(doc string) (summary string, long bool) {
	lines := strings.Split(strings.TrimSpace(doc), "\n")
	n := 0
	for n < len(lines) && n < maxSummaryLines && strings.TrimSpace(lines[n]) != "" {
		n++
	}
	if n == len(lines) {
		return strings.Join(lines, "\n"), false
	}
	return strings.Join(lines[:n], "\n") + "\n…", true
}

func indentDoc(doc string, lang graph.Language) string {
	prefix := "// "
	if lang == graph.LangPython {
		prefix = "# "
	}
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func trustOf(lang graph.Language, kind string) string {
	if kind == KindDoc || lang == graph.LangMarkdown || lang == graph.LangText {
		return TrustUntrusted
	}
	return TrustCode
}

var (
	lineCommentRE = regexp.MustCompile(`^\s*(//|#|--|\*|/\*)`)
	tripleQuoteRE = regexp.MustCompile(`"""|'''`)
)

// untrustedLines finds comment and docstring lines of a code item.
func untrustedLines(content string, first, last int, lang graph.Language) [][2]int {
	var out [][2]int
	inDoc := false
	mark := func(n int) {
		if len(out) > 0 && out[len(out)-1][1] == n-1 {
			out[len(out)-1][1] = n
			return
		}
		out = append(out, [2]int{n, n})
	}
	for i, l := range strings.Split(content, "\n") {
		n := first + i
		if n > last {
			break // a signature's doc summary, not lines of the file
		}
		if lang == graph.LangPython {
			q := len(tripleQuoteRE.FindAllStringIndex(l, -1))
			if inDoc || q > 0 {
				mark(n)
				if q%2 == 1 {
					inDoc = !inDoc
				}
				continue
			}
		}
		if lineCommentRE.MatchString(l) && !(lang == graph.LangPython && strings.HasPrefix(strings.TrimSpace(l), "*")) {
			mark(n)
		}
	}
	return out
}

// splitHead cuts a file head's candidate around its imports: what comes
// before them (a package doc, a module docstring) and what follows them (a
// constant, a logger) are kept when they say anything — more than a
// package clause, blank lines, brackets or a shebang.
func splitHead(c cand, lines []string) []cand {
	if c.firstImport == 0 {
		if says(lines, c.start, c.end) {
			return []cand{c}
		}
		return nil
	}
	before, after := c, c
	before.end = c.firstImport - 1
	after.start = c.lastImport + 1
	after.head = false // no import between it and the definitions: it may join them
	var out []cand
	for _, h := range []cand{before, after} {
		for h.end >= h.start && isImportLine(line(lines, h.end)) {
			h.end--
		}
		for h.start <= h.end && isImportLine(line(lines, h.start)) {
			h.start++
		}
		if h.start <= h.end && says(lines, h.start, h.end) {
			out = append(out, h)
		}
	}
	return out
}

func line(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// isImportLine: a blank line, or one that opens or closes an import
// statement around the imported names.
func isImportLine(l string) bool {
	return l == "" || l == "(" || l == ")" || l == "import (" || l == "import" || strings.HasPrefix(l, "import ") ||
		strings.HasPrefix(l, "from ") && strings.Contains(l, " import ")
}

// says reports whether lines start..end hold more than a package clause,
// blank lines, brackets, build constraints or a shebang.
func says(lines []string, start, end int) bool {
	for n := start; n <= end; n++ {
		switch l := line(lines, n); {
		case l == "", l == "(", l == ")", strings.HasPrefix(l, "package "), strings.HasPrefix(l, "#!"), strings.HasPrefix(l, "# -*-"),
			l == `"use strict";`, l == "'use strict';", strings.HasPrefix(l, "//go:build"), strings.HasPrefix(l, "// +build"):
		default:
			return true
		}
	}
	return false
}

// signatureEnd is the last line of the declaration head of the
// definition at lines start..last whose name is on line name: a signature
// is whole, however many lines its parameters, defaults, annotations or
// results take (`def open(` alone says nothing). The head ends where its
// brackets close — for Python there (the colon), for the brace languages
// at the first line after that opening the body ("{") or ending the
// declaration (";", an overload or an interface's method). Strings and
// escapes in them are skipped. A name line outside the definition (another
// definition's of the same ID) is not trusted: the head is then the first
// line from start that is not a decorator, an annotation, a comment or
// blank. A head whose brackets never close by last is the definition
// whole: a signature is never cut.
func signatureEnd(lines []string, start, name, last int, lang graph.Language) int {
	last = min(last, len(lines))
	if start < 1 || start > last {
		return start
	}
	if name < start || name > last {
		name = headLine(lines, start, last, lang)
	}
	depth := 0
	closedAt := 0
	for n := name; n <= last; n++ {
		body := scanBrackets(lines[n-1], lang, &depth)
		if depth > 0 {
			continue
		}
		if lang == graph.LangPython || body || strings.HasSuffix(strings.TrimSpace(lines[n-1]), ";") {
			return n
		}
		if closedAt == 0 {
			closedAt = n
		}
	}
	if closedAt > 0 {
		return closedAt
	}
	return last
}

// scanBrackets adds a line's opening brackets to depth and takes its
// closing ones away, outside strings and comments, and reports whether
// the line opens a body: a "{" outside brackets, in a brace language.
func scanBrackets(l string, lang graph.Language, depth *int) (body bool) {
	var quote rune
	escaped := false
	prev := rune(0)
	for _, r := range l {
		switch {
		case escaped:
			escaped = false
		case quote != 0:
			if r == '\\' {
				escaped = true
			} else if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'' || r == '`':
			quote = r
		case r == '#' && lang == graph.LangPython, r == '/' && prev == '/' && lang != graph.LangPython:
			return body
		case r == '(' || r == '[':
			*depth++
		case r == ')' || r == ']':
			*depth = max(*depth-1, 0)
		case r == '{':
			if *depth == 0 && lang != graph.LangPython {
				body = true
			}
		}
		prev = r
	}
	return body
}

// headLine is the first line of start..last that begins a declaration:
// not blank, a comment, or a decorator or annotation ("@overload",
// "@pytest.mark.parametrize(…)" over several lines, "@Override").
func headLine(lines []string, start, last int, lang graph.Language) int {
	depth := 0
	for n := start; n <= last; n++ {
		l := strings.TrimSpace(lines[n-1])
		if depth > 0 {
			scanBrackets(l, lang, &depth)
			continue
		}
		switch {
		case isComment(l, lang):
		case strings.HasPrefix(l, "@"):
			scanBrackets(l, lang, &depth)
		default:
			return n
		}
	}
	return start
}

// pastComments is the first line of start..name that is not blank or a
// comment: where a declaration's head begins once the doc comment above
// it is left out (its decorators or annotations, or the name's line).
func pastComments(lines []string, start, name int, lang graph.Language) int {
	for n := start; n < name && n <= len(lines); n++ {
		if l := strings.TrimSpace(lines[n-1]); !isComment(l, lang) {
			return n
		}
	}
	return name
}

func isComment(l string, lang graph.Language) bool {
	return l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") ||
		strings.HasPrefix(l, "#") && lang == graph.LangPython
}
