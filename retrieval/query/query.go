package query

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Ident is an identifier mentioned by the query.
type Ident struct {
	Name string // as written: "Session.request", "get_adapter", "HTTPAdapter"
	// Weight grows with the strength of the evidence: quoted code and
	// tracebacks weigh more than prose, repeated mentions add up.
	Weight float64
	// Spelled is a name the text does not write but spells otherwise: a
	// flag's or configuration key's parts joined as code joins them
	// (keys.go); its case is not the text's.
	Spelled bool
}

// Frame is one stack-trace frame.
type Frame struct {
	Path string // as written; matched against the repository by suffix
	Line int
	Func string
}

// Link is a link to a file in a code host's web view, the way issues point
// at code: github.com/o/r/blob/REV/path/x.py#L10-L12 (GitLab's /-/blob/,
// Bitbucket's /src/, raw and blame views alike).
type Link struct {
	// Ref is everything after the view's name: the revision and the path,
	// which cannot be told apart here (a branch name may hold slashes);
	// the repository's files decide where the path begins.
	Ref string
	// Line and EndLine are the anchored lines (0: none; EndLine 0: one line).
	Line, EndLine int
}

// Parsed is what Parse found.
type Parsed struct {
	Text string
	// Body is Text without the scaffolding an issue template leaves in it
	// (scaffold): what the text searches read.
	Body string
	// Title is the first line of a text of several lines — an issue's
	// title, its shortest statement of the problem ("" for one line).
	Title string
	// Identifier is the query's name when the whole query is one
	// identifier (a bare or qualified name, "open", "Server.Start",
	// "pkg::f()"): identifier search, which asks for that name's
	// definitions first. It is also Identifiers' first entry.
	Identifier  string
	Identifiers []Ident
	Paths       []string
	Frames      []Frame
	Links       []Link
	Errors      []string
	Quoted      []string
	// Literals are the quoted spans that are code but no name: a
	// command-line flag (--collect-only), an expression or argument
	// (follow_symlinks=False, str(value)) — one line, no spaces, 3 to 80
	// bytes. Identifiers and paths are found otherwise; a span with spaces
	// is prose or a shell command (pip list, go version), which the code
	// does not hold verbatim where it matters.
	Literals []string
	// Callees are the callables a signature error names (Python's
	// "TypeError: f() got an unexpected keyword argument 'x'"): called
	// in a way their definition does not accept.
	Callees []string
	// Changes are the names the text asks to rename, deprecate, export or
	// unexport ("Consider export withContextDialer and deprecate
	// WithDialer", "Rename IndexBuilder -> ShardBuilder", "remove the
	// deprecated `lookup_srv`"): a change to a name's API is a change to
	// every place that uses it. Only code-shaped names (or quoted ones)
	// right after the verb count, in the order written.
	Changes []Change
	// Refs are the past changes the text names: a commit by its hash
	// ("since 24638f59", ".../commit/<sha>") or a pull request or issue by
	// its number ("#3165", "PR 3165", ".../pull/3165", "gh-1234"). A
	// regression report names its culprit and a duplicate the report whose
	// fix changed the same code; the history index knows which commits
	// those are (package history). In the order written, each once.
	Refs []Ref
}

// Ref is a past change the text names: a commit hash (7 to 12 or 40
// lower-case hex digits, at least one a letter and one a digit) or a pull
// request's or issue's number.
type Ref struct {
	Hash   string
	Number int
	// Repo is the repository a number is of, when the text says
	// ("owner/name", lower-cased): a link's (github.com/o/r/pull/12) or
	// a cross-reference's ("o/r#12"). The history index takes it for this
	// repository's only when one of its remotes has that name.
	Repo string
}

var (
	// a number after "#", "gh-", "PR", "pull request", "issue", "MR"
	numberRE = regexp.MustCompile(`(?i)(?:(?:^|[\s(\[,;:])#|\bgh-|\b(?:PR|pull request|pull|issue|MR|merge request)[\s/]*#?\s*)(\d{2,7})\b`)
	// a code host's link to a pull request, an issue or a commit
	refLinkRE = regexp.MustCompile(`^https?://[^/]+/((?:[^/]+/)+?)(?:-/)?(?:(pulls?|issues|merge_requests)/(\d{1,7})|commits?/([0-9a-f]{7,40}))\b`)
	// a cross-reference to another repository's pull request or issue
	crossRefRE = regexp.MustCompile(`(?:^|[\s(\[,;:])([\w.-]+/[\w.-]+)#(\d{1,7})\b`)
	hexRE      = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
)

// Numbers are the pull requests and issues a text cites by number ("#3165",
// "PR 3165", "gh-812", "issue 44"; two to seven digits, "#" not inside a
// word: "ndcube#529" is another repository's), in the order written, each
// once. The history index reads commit messages with it, so that a
// number cited in a query and in a commit are found alike.
func Numbers(text string) []int {
	var out []int
	for _, m := range numberRE.FindAllStringSubmatch(text, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// maxRefs bounds the changes a text names (each is looked up in the
// history): a text citing more is a changelog, not a report.
const maxRefs = 16

// refs finds the commits, pull requests and issues a text names, in
// prose and links; not in fenced code (a "#123" there is a comment or a
// count) nor in other links (a blob link's revision is where the reporter
// looked, not a change).
func refs(text string) []Ref {
	var out []Ref
	add := func(r Ref) {
		if len(out) < maxRefs && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	text = fenceRE.ReplaceAllString(text, " ")
	for _, u := range urlRE.FindAllString(text, -1) {
		if m := refLinkRE.FindStringSubmatch(u); m != nil {
			if m[4] != "" {
				add(Ref{Hash: m[4]})
			} else if n, err := strconv.Atoi(m[3]); err == nil && n > 0 {
				add(Ref{Number: n, Repo: strings.ToLower(strings.Trim(m[1], "/"))})
			}
		}
	}
	prose := urlRE.ReplaceAllString(text, " ")
	for _, m := range crossRefRE.FindAllStringSubmatch(prose, -1) {
		if n, err := strconv.Atoi(m[2]); err == nil && n > 0 {
			add(Ref{Number: n, Repo: strings.ToLower(m[1])})
		}
	}
	for _, n := range Numbers(prose) {
		add(Ref{Number: n})
	}
	for _, h := range hexRE.FindAllString(prose, -1) {
		if (len(h) <= 12 || len(h) == 40) && strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789") {
			add(Ref{Hash: h})
		}
	}
	return out
}

// Change is a name whose API the text asks to change.
type Change struct {
	Name string
	// Export: the verb was export or unexport, which in Go changes the
	// case of the name's first letter, so that the other spelling may be
	// what the name becomes (an exported hook of the same name) or was.
	Export bool
}

var (
	fenceRE    = regexp.MustCompile("(?s)```[a-zA-Z0-9_+-]*\n?(.*?)```")
	backtickRE = regexp.MustCompile("`([^`\n]{1,200})`")
	// Python: File "/x/y.py", line 12, in func
	pyFrameRE = regexp.MustCompile(`File "([^"]+)", line (\d+)(?:, in ([A-Za-z_<>][\w<>.]*))?`)
	// Go, Java, JS, Rust: path/file.ext:12 (optionally :col)
	fileLineRE = regexp.MustCompile(`([\w./\\-]*[\w-]+\.(?:go|py|ts|tsx|js|jsx|java|rs|c|h|cc|cpp|hpp|rb|php|cs|kt|swift|scala|m|mm))(?::|", line |\()(\d+)`)
	// Go panics: pkg.(*T).Method(0x...) or pkg.Func(...)
	goFuncRE = regexp.MustCompile(`(?m)^\s*([\w./-]+)\.(?:\(\*?(\w+)\)\.)?(\w+)\(`)
	// Java: at com.x.Y.method(Y.java:123)
	javaFrameRE = regexp.MustCompile(`at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.java):(\d+)\)`)
	pathRE      = regexp.MustCompile(`(?:^|[\s"'(\[{<:=,])((?:[\w.-]+/)*[\w-]+\.(?:go|py|pyi|ts|tsx|js|jsx|mjs|java|rs|c|h|cc|cpp|hpp|cxx|rb|php|cs|kt|swift|scala|proto|sql|yaml|yml|toml|json|cfg|ini|md|rst|txt))\b`)
	errorRE     = regexp.MustCompile(`(?m)^\s*(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|Warning|Failure|Fault)|panic|fatal error|error)(?::| -) ?(.{0,200})$`)
	// pytest's failure report: "E       <line>"
	pytestLineRE = regexp.MustCompile(`(?m)^E {2,}(.+)$`)
	excLineRE    = regexp.MustCompile(`^([\w.]+\.)?([A-Z]\w*): (.*)$`)
	urlRE        = regexp.MustCompile(`\bhttps?://[^\s<>"'\x60)\]]+`)
	// the file views of GitHub, GitLab, Gitea and Bitbucket, and a line
	// anchor: #L10, #L10-L12, #L10-12, #lines-10
	codeLinkRE = regexp.MustCompile(`^https?://[^/]+/(?:[^/]+/)+?(?:blob|blame|raw|src)/([^#?]+)(?:\?[^#]*)?(?:#(?:L|lines-)(\d+)(?:[-:]L?(\d+))?)?`)
	// Python's TypeErrors of a call against a signature
	signatureErrorRE = regexp.MustCompile(`^TypeError: ([A-Za-z_][\w.]*)\(\) (?:got an unexpected keyword argument|got multiple values for argument|missing \d+ required|takes (?:from )?\d+ (?:to \d+ )?positional argument)`)
	identRE          = regexp.MustCompile(`[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*(?:\(\))?`)
	// a verb that changes a name's API, and the name right after it (an
	// article or a kind of definition may come between)
	changeRE = regexp.MustCompile("(?i)\\b(renam(?:e|es|ed|ing)|deprecat(?:e|es|ed|ing)|(?:un)?export(?:s|ed|ing)?)\\s+" +
		"(?:the\\s+)?(?:(?:func(?:tion)?|method|type|field|var(?:iable)?|const(?:ant)?|interface|struct|class|option|attribute|parameter|argument)\\s+)?" +
		"(`?)([A-Za-z_$][\\w$]*(?:(?:\\.|::)[A-Za-z_$][\\w$]*)*)(?:\\(\\))?(`?)")
)

// literals picks Parsed.Literals out of the quoted spans.
func literals(quoted []string) []string {
	var out []string
	for _, q := range quoted {
		q = strings.TrimSpace(q)
		if len(q) < 3 || len(q) > 80 || strings.ContainsAny(q, " \t\n") || strings.Contains(q, "://") || slices.Contains(out, q) {
			continue
		}
		flag := q[0] == '-' && (q[1] == '-' || 'a' <= q[1] && q[1] <= 'z' || 'A' <= q[1] && q[1] <= 'Z')
		if flag || strings.ContainsAny(q, "=()[]{}\"'") {
			out = append(out, q)
		}
	}
	return out
}

// Parse analyses issue text.
func Parse(text string) Parsed {
	p := Parsed{Text: text, Title: title(text), Body: scaffold(text)}
	weights := map[string]float64{}
	order := []string{}
	add := func(name string, w float64) {
		name = strings.TrimSuffix(strings.TrimSpace(name), "()")
		name = strings.Trim(name, ".:#")
		for _, self := range []string{"self.", "this.", "cls.", "self->", "this->"} {
			name = strings.TrimPrefix(name, self)
		}
		if name == "" || len(name) > 120 || !looksLikeCode(name) && w < 1.5 {
			return
		}
		if _, ok := weights[name]; !ok {
			order = append(order, name)
		}
		weights[name] += w
	}

	// Quoted code: fenced blocks and backticks.
	code := text
	for _, m := range fenceRE.FindAllStringSubmatch(text, -1) {
		p.Quoted = append(p.Quoted, m[1])
		code = strings.Replace(code, m[0], " ", 1)
	}
	for _, m := range backtickRE.FindAllStringSubmatch(code, -1) {
		p.Quoted = append(p.Quoted, m[1])
	}
	for _, q := range p.Quoted {
		for _, id := range identRE.FindAllString(q, -1) {
			if !isKeyword(id) && looksLikeCode(id) {
				add(id, 1.5)
			}
		}
	}

	p.Literals = literals(p.Quoted)

	// Stack frames.
	seenFrame := map[string]bool{}
	addFrame := func(f Frame) {
		key := f.Path + ":" + strconv.Itoa(f.Line)
		if seenFrame[key] {
			return
		}
		seenFrame[key] = true
		p.Frames = append(p.Frames, f)
		if f.Func != "" && !strings.HasPrefix(f.Func, "<") {
			add(f.Func, 2)
		}
	}
	for _, m := range pyFrameRE.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		addFrame(Frame{Path: m[1], Line: n, Func: m[3]})
	}
	for _, m := range javaFrameRE.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[4])
		cls := m[1]
		if i := strings.LastIndexByte(cls, '.'); i >= 0 {
			cls = cls[i+1:]
		}
		addFrame(Frame{Path: m[3], Line: n, Func: cls + "." + m[2]})
	}
	for _, m := range fileLineRE.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		addFrame(Frame{Path: m[1], Line: n})
	}
	for _, m := range goFuncRE.FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "/") || m[2] != "" {
			name := m[3]
			if m[2] != "" {
				name = m[2] + "." + m[3]
			}
			add(name, 2)
		}
	}

	// Links to code.
	seenLink := map[Link]bool{}
	for _, u := range urlRE.FindAllString(text, -1) {
		m := codeLinkRE.FindStringSubmatch(strings.TrimRight(u, ".,;:!"))
		if m == nil {
			continue
		}
		l := Link{Ref: strings.Trim(m[1], "/")}
		l.Line, _ = strconv.Atoi(m[2])
		l.EndLine, _ = strconv.Atoi(m[3])
		if l.EndLine < l.Line {
			l.EndLine = 0
		}
		if !seenLink[l] {
			seenLink[l] = true
			p.Links = append(p.Links, l)
		}
	}

	// Paths.
	seenPath := map[string]bool{}
	for _, m := range pathRE.FindAllStringSubmatch(text, -1) {
		path := strings.TrimPrefix(m[1], "./")
		if !seenPath[path] && !strings.HasPrefix(path, "http") {
			seenPath[path] = true
			p.Paths = append(p.Paths, path)
		}
	}
	for _, f := range p.Frames {
		if !seenPath[f.Path] {
			seenPath[f.Path] = true
			p.Paths = append(p.Paths, f.Path)
		}
	}

	// Error messages: the exception line that ends a Python traceback...
	if i := strings.LastIndex(text, "Traceback (most recent call last)"); i >= 0 {
		lines := strings.Split(text[i:], "\n")
		for _, line := range lines[1:] {
			if line == "" || line[0] == ' ' || line[0] == '\t' {
				continue
			}
			if m := excLineRE.FindStringSubmatch(line); m != nil {
				p.Errors = append(p.Errors, strings.TrimSpace(m[2]+": "+m[3]))
				add(m[2], 1.5)
			}
			break
		}
	}
	// ...and lines naming errors anywhere ("TypeError: …", "panic: …"):
	// the message, and the exception's type as an identifier.
	addError := func(m []string) {
		msg := strings.TrimSpace(m[1] + ": " + m[2])
		if !slices.Contains(p.Errors, msg) {
			p.Errors = append(p.Errors, msg)
		}
		if strings.HasSuffix(m[1], "Error") || strings.HasSuffix(m[1], "Exception") || strings.HasSuffix(m[1], "Warning") {
			add(m[1], 1)
		}
	}
	for _, m := range errorRE.FindAllStringSubmatch(text, -1) {
		addError(m)
	}
	// ...and the lines pytest marks "E" in a failure report: exceptions,
	// and the explanations of a failed assertion ("Right contains more
	// items, first extra item: 52"); not the assertion itself, nor diff
	// lines.
	for i, m := range pytestLineRE.FindAllStringSubmatch(text, -1) {
		if i == 20 {
			break
		}
		line := strings.TrimSpace(m[1])
		if len(line) < 10 || !strings.Contains(line, " ") || strings.HasPrefix(line, "assert ") ||
			strings.HasPrefix(line, "where ") || strings.ContainsAny(line[:1], "+-?") {
			continue
		}
		switch em := errorRE.FindStringSubmatch(line); {
		case em != nil:
			addError(em)
		case len(strings.Fields(line)) >= 3 && !slices.Contains(p.Errors, line): // not "Full diff:"
			p.Errors = append(p.Errors, line)
		}
	}

	// A call that does not fit a signature names the callable whose
	// signature it is ("TypeError: RST.__init__() got an unexpected
	// keyword argument 'header_rows'"): the traceback ends in the caller,
	// the change is usually to the definition named.
	for _, e := range p.Errors {
		if m := signatureErrorRE.FindStringSubmatch(e); m != nil && !slices.Contains(p.Callees, m[1]) {
			p.Callees = append(p.Callees, m[1])
			add(m[1], 3)
		}
	}

	// Identifiers in prose: only code-shaped words, and none from the
	// segments of a URL (a link's "_pytest" directory is not the
	// fixture of that name).
	prose := urlRE.ReplaceAllString(fenceRE.ReplaceAllString(text, " "), " ")
	for _, id := range identRE.FindAllString(prose, -1) {
		if looksLikeCode(id) && !isKeyword(id) {
			add(id, 1)
		}
	}
	// Flags and configuration keys, in the code's spellings.
	spelled := map[string]bool{}
	keyParts := keys(prose, p.Quoted)
	for _, ps := range keyParts {
		for _, name := range []string{camel(ps), strings.Join(ps, "_")} {
			if _, ok := weights[name]; !ok {
				spelled[name] = true
			}
			add(name, 1)
		}
	}
	// Names whose API the text asks to change.
	for _, ix := range changeRE.FindAllStringSubmatchIndex(prose, -1) {
		m := make([]string, len(ix)/2)
		for i := range m {
			if ix[2*i] >= 0 {
				m[i] = prose[ix[2*i]:ix[2*i+1]]
			}
		}
		if strings.HasSuffix(strings.ToLower(m[1]), "ed") && !pastAsk(prose[:ix[0]]) {
			continue // "the exported Foo is wrong": a description, not an ask
		}
		name := strings.TrimRight(m[3], ".")
		quoted := m[2] == "`" && m[4] == "`"
		if isKeyword(name) || !quoted && !looksLikeCode(name) {
			continue
		}
		c := Change{Name: name, Export: strings.Contains(strings.ToLower(m[1]), "export")}
		if !slices.Contains(p.Changes, c) {
			p.Changes = append(p.Changes, c)
		}
	}
	p.Refs = refs(text)
	// A query of one name is about that name, whatever its shape ("get"
	// and "Clob" are not code-shaped in prose).
	if one := strings.TrimSpace(text); one != "" && identRE.FindString(one) == one {
		p.Identifier = strings.TrimSuffix(one, "()")
		if _, ok := weights[p.Identifier]; !ok {
			order = append(order, p.Identifier)
		}
		weights[p.Identifier] += 2
	}
	for _, name := range order {
		p.Identifiers = append(p.Identifiers, Ident{Name: name, Weight: weights[name], Spelled: spelled[name]})
	}
	slices.SortStableFunc(p.Identifiers, func(a, b Ident) int {
		switch {
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return 0
	})
	return p
}

// pastAsk says whether a verb's past participle ("renamed", "deprecated")
// right after before is an ask: at the start of a line or sentence (a
// commit subject's "Renamed Foo to Bar", after a "scope:" prefix too), or
// after a verb that removes or replaces it ("remove the deprecated Foo",
// "fix deprecated reflect.PtrTo usage").
func pastAsk(before string) bool {
	t := strings.TrimRight(before, " \t")
	if i := strings.LastIndexAny(t, "\n.!?"); i >= 0 {
		t = t[i+1:]
	}
	t = strings.TrimSpace(t)
	if t == "" || strings.HasSuffix(t, ":") && !strings.Contains(t, " ") {
		return true
	}
	w := strings.Fields(strings.ToLower(t))
	if len(w) > 0 && w[len(w)-1] == "the" {
		w = w[:len(w)-1]
	}
	if len(w) == 0 {
		return false
	}
	switch w[len(w)-1] {
	case "remove", "removes", "removed", "removing", "drop", "drops", "dropped", "dropping", "delete", "deletes", "deleting",
		"replace", "replaces", "replacing", "fix", "fixes", "avoid", "avoids", "migrate", "migrates":
		return true
	}
	return false
}

var (
	htmlCommentRE = regexp.MustCompile(`(?s)<!--.*?-->`)
	// a Markdown heading of level 2 or more, or a line that is only bold
	// text, of a few words: a template's section ("### What did you
	// expect to see?", "**Describe the bug**"); a level-1 "# …" line is
	// as often a Python comment pasted without a fence
	sectionRE = regexp.MustCompile(`^(?:#{2,6}[ \t]+(.{1,100})|\*\*([^*]{1,60})\*\*:?)[ \t]*$`)
)

// scaffold returns text without what an issue template put there for
// every issue: its instructions in HTML comments and its section headings.
// Those words are the same in every issue of a repository ("version",
// "operating system", "expected behavior", "reproduce") and name nothing
// the issue is about, yet a text search weighs them like the report's own
// words. Headings inside code fences are code and stay.
func scaffold(text string) string {
	text = htmlCommentRE.ReplaceAllString(text, " ")
	lines := strings.SplitAfter(text, "\n")
	fence := false
	var b strings.Builder
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && sectionRE.MatchString(t) && len(strings.Fields(t)) <= 12 {
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
	}
	if strings.TrimSpace(b.String()) == "" {
		return text // nothing but headings: they are what it says
	}
	return b.String()
}

// title returns the first non-blank line of text when more text follows
// it, without a Markdown heading's marks; "" otherwise, when the line is
// too long to be a title, or when the text opens with a code fence or a
// traceback.
func title(text string) string {
	text = strings.TrimLeft(text, " \t\r\n")
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimSpace(rest) == "" {
		return ""
	}
	first = strings.TrimSpace(first)
	// a text that opens with code or a traceback has no title line
	for _, p := range []string{"```", "~~~", "Traceback (most recent call last)", "goroutine ", "Exception in thread "} {
		if strings.HasPrefix(first, p) {
			return ""
		}
	}
	first = strings.TrimSpace(strings.TrimLeft(first, "# \t"))
	if len(first) > 300 {
		return ""
	}
	return first
}

// looksLikeCode reports whether a word is shaped like an identifier rather
// than an English word: it has an underscore, inner capitals, a dot path,
// call parentheses, digits inside, or is all capitals of some length.
func looksLikeCode(s string) bool {
	if strings.HasSuffix(s, "()") {
		return true
	}
	if strings.ContainsAny(s, "_$") && strings.Trim(s, "_$") != "" {
		return true
	}
	if strings.Contains(s, ".") || strings.Contains(s, "::") || strings.Contains(s, "->") {
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == ':' || r == '-' || r == '>' })
		if len(parts) < 2 {
			return false
		}
		// "e.g", "i.e", version numbers and file names are not code paths
		for _, part := range parts {
			if len(part) < 2 || unicode.IsDigit(rune(part[0])) {
				return false
			}
		}
		last := parts[len(parts)-1]
		switch strings.ToLower(last) {
		case "py", "go", "js", "ts", "java", "md", "txt", "rst", "html", "com", "org", "io", "net", "json", "yaml", "yml":
			return false
		}
		return true
	}
	upper, lower := 0, 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
			if i > 0 && lower > 0 {
				return true // camelCase, PascalCase with inner capital
			}
		case unicode.IsLower(r):
			lower++
		}
	}
	return upper >= 3 && lower == 0 && len(s) >= 4 // CONSTANT_NAMES without underscore, HTTP2
}

var keywords = map[string]bool{
	"def": true, "class": true, "return": true, "import": true, "from": true, "self": true, "None": true,
	"True": true, "False": true, "func": true, "var": true, "const": true, "let": true, "nil": true,
	"true": true, "false": true, "null": true, "if": true, "else": true, "for": true, "while": true,
	"print": true, "in": true, "is": true, "not": true, "and": true, "or": true, "with": true, "as": true,
	"new": true, "this": true, "go": true, "err": true, "pass": true, "raise": true, "try": true,
	"except": true, "assert": true, "lambda": true, "yield": true, "async": true, "await": true,
	"package": true, "type": true, "struct": true, "interface": true, "string": true, "int": true,
	"Traceback": true, "File": true, "line": true, "str": true, "dict": true, "list": true, "len": true,
	"python": true, "pip": true, "pytest": true, "http": true, "https": true, "www": true,
}

func isKeyword(s string) bool { return keywords[s] || len(s) < 2 }
