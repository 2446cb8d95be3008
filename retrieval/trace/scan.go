package trace

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
)

// textSite is a place where the target is touched that only the text
// shows: a column in a SQL statement, a key in a dict, map or object
// literal, a query-builder or ORM call, a config file entry.
type textSite struct {
	Offset int    // byte offset of the name
	Write  bool   // false: read
	How    string // "SQL UPDATE tasks", "dict key", "ORM update", "config key"
	Table  string // for SQL: the table named by the statement
	Column string // the spelling found
	Def    bool   // a definition (CREATE TABLE column), neither read nor write
	Load   bool   // a read from persistence
	Alike  int    // further sites like this one in the file, not listed
}

var (
	reUpdate = regexp.MustCompile(`(?is)\bupdate\s+([\w."]+)\s+set\s+`)
	reInsert = regexp.MustCompile(`(?is)\binsert\s+(?:or\s+\w+\s+)?into\s+([\w."]+)\s*\(`)
	reUpsert = regexp.MustCompile(`(?is)\bdo\s+update\s+set\s+`)
	reSelect = regexp.MustCompile(`(?is)\bselect\s+`)
	reFrom   = regexp.MustCompile(`(?is)\bfrom\s+([\w."]+)`)
	reCreate = regexp.MustCompile(`(?is)\bcreate\s+table\s+(?:if\s+not\s+exists\s+)?([\w."]+)\s*\(`)
	reAlter  = regexp.MustCompile(`(?is)\balter\s+table\s+(?:if\s+exists\s+)?([\w."]+)\s+add\s+(?:column\s+)?(?:if\s+not\s+exists\s+)?([\w"]+)`)
	reWhere  = regexp.MustCompile(`(?is)\bwhere\s+`)
	// anchored variants of the statement patterns, matched at each
	// occurrence of their keyword (scanSQL)
	anchored = func() map[*regexp.Regexp]*regexp.Regexp {
		m := map[*regexp.Regexp]*regexp.Regexp{}
		for _, re := range []*regexp.Regexp{reUpdate, reInsert, reSelect, reCreate, reAlter} {
			m[re] = regexp.MustCompile(strings.Replace(re.String(), `(?is)\b`, `(?is)^`, 1))
		}
		return m
	}()
	reIdent  = regexp.MustCompile(`[A-Za-z_][\w]*`)
	reQuoted = regexp.MustCompile("[\"'`]([A-Za-z_][\\w.-]{0,100})[\"'`]")
	// a clause ends at the next keyword that starts another clause, or at
	// the end of the string literal holding the statement
	clauseEnd = regexp.MustCompile("(?is)\\b(where|returning|from|order\\s+by|group\\s+by|limit|on\\s+conflict|values|select)\\b|;|\"|`|\\)\\s*$")
)

func unquoteIdent(s string) string {
	s = strings.Trim(s, "\"`[]")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Trim(s, "\"`[]")
}

// scanSQL finds the columns whose normalized name is key in SQL statements
// anywhere in src (string literals in code, .sql files). table, when set,
// keeps statements about that table (or an unknown one) only.
func scanSQL(src []byte, key, table string) []textSite {
	var out []textSite
	s := string(src)
	// The statement patterns are case-insensitive, which regexp scans byte
	// by byte; most windows (code around a mention of the key) hold no SQL
	// at all, so a plain search for each statement's keyword gates them.
	low := strings.ToLower(s)
	find := func(word string, re *regexp.Regexp) [][]int {
		if !strings.Contains(low, word) {
			return nil
		}
		// match only where the keyword starts a word, anchored there
		an := anchored[re]
		var out [][]int
		for i := 0; ; {
			j := strings.Index(low[i:], word)
			if j < 0 {
				return out
			}
			at := i + j
			i = at + len(word)
			if at > 0 && isWordByte(low[at-1]) {
				continue
			}
			m := an.FindStringSubmatchIndex(s[at:])
			if m == nil {
				continue
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += at
				}
			}
			out = append(out, m)
			i = max(i, m[1])
		}
	}
	colMatch := func(name string) bool { return normalize(unquoteIdent(name)) == key }
	tableOK := func(t string) bool { return table == "" || t == "" || typeMatches(unquoteIdent(t), table) }
	// assignments "col = expr, col2 = expr" from start to the clause end
	assignments := func(start int, tbl, how string, stmtStart int) {
		end := len(s)
		if loc := clauseEnd.FindStringIndex(s[start:min(len(s), start+4000)]); loc != nil {
			end = start + loc[0]
		} else {
			end = min(len(s), start+4000)
		}
		clause := s[start:end]
		for _, it := range topLevelItems(clause) {
			item := clause[it[0]:it[1]]
			if eq := strings.IndexByte(item, '='); eq > 0 {
				lhs := strings.TrimSpace(item[:eq])
				if colMatch(lhs) {
					off := start + it[0] + strings.Index(item, lhs)
					out = append(out, textSite{Offset: off, Write: true, How: how, Table: unquoteIdent(tbl), Column: unquoteIdent(lhs)})
				}
			}
		}
	}
	for _, m := range find("update", reUpdate) {
		tbl := s[m[2]:m[3]]
		if !tableOK(tbl) {
			continue
		}
		assignments(m[1], tbl, "SQL UPDATE "+unquoteIdent(tbl), m[0])
	}
	for _, m := range find("insert", reInsert) {
		tbl := s[m[2]:m[3]]
		if !tableOK(tbl) {
			continue
		}
		close := strings.IndexByte(s[m[1]:], ')')
		if close < 0 {
			continue
		}
		list := s[m[1] : m[1]+close]
		for _, loc := range reIdent.FindAllStringIndex(list, -1) {
			if colMatch(list[loc[0]:loc[1]]) {
				out = append(out, textSite{Offset: m[1] + loc[0], Write: true, How: "SQL INSERT " + unquoteIdent(tbl), Table: unquoteIdent(tbl), Column: list[loc[0]:loc[1]]})
			}
		}
		// ON CONFLICT … DO UPDATE SET within the same statement
		rest := s[m[1]:min(len(s), m[1]+4000)]
		if semi := strings.IndexAny(rest, ";`"); semi >= 0 {
			rest = rest[:semi]
		}
		if u := reUpsert.FindStringIndex(rest); u != nil {
			assignments(m[1]+u[1], tbl, "SQL UPSERT "+unquoteIdent(tbl), m[0])
		}
	}
	for _, m := range find("select", reSelect) {
		// the select list runs to FROM
		window := s[m[1]:min(len(s), m[1]+4000)]
		f := reFrom.FindStringSubmatchIndex(window)
		if f == nil {
			continue
		}
		tbl := window[f[2]:f[3]]
		if !tableOK(tbl) {
			continue
		}
		list := window[:f[0]]
		if strings.ContainsAny(list, "\"`;") && !strings.Contains(list, "\"\"") {
			// the literal ended before FROM: not a statement we understand
			if strings.ContainsAny(list, "`;") {
				continue
			}
		}
		for _, loc := range reIdent.FindAllStringIndex(list, -1) {
			w := list[loc[0]:loc[1]]
			if colMatch(w) && !isSQLWord(w) {
				out = append(out, textSite{Offset: m[1] + loc[0], Write: false, Load: true, How: "SQL SELECT " + unquoteIdent(tbl), Table: unquoteIdent(tbl), Column: w})
			}
		}
		// WHERE of the same statement reads the column too
		rest := window[f[1]:]
		if semi := strings.IndexAny(rest, ";`\""); semi >= 0 {
			rest = rest[:semi]
		}
		if w := reWhere.FindStringIndex(rest); w != nil {
			cond := rest[w[1]:]
			for _, loc := range reIdent.FindAllStringIndex(cond, -1) {
				if colMatch(cond[loc[0]:loc[1]]) {
					out = append(out, textSite{Offset: m[1] + f[1] + w[1] + loc[0], How: "SQL WHERE " + unquoteIdent(tbl), Table: unquoteIdent(tbl), Column: cond[loc[0]:loc[1]]})
				}
			}
		}
	}
	for _, m := range find("create", reCreate) {
		tbl := s[m[2]:m[3]]
		if !tableOK(tbl) {
			continue
		}
		body := balanced(s[m[1]:])
		for _, it := range topLevelItems(body) {
			item := body[it[0]:it[1]]
			if loc := reIdent.FindStringIndex(item); loc != nil {
				w := item[loc[0]:loc[1]]
				if colMatch(w) && !isSQLWord(w) {
					out = append(out, textSite{Offset: m[1] + it[0] + loc[0], Def: true, How: "SQL column of " + unquoteIdent(tbl), Table: unquoteIdent(tbl), Column: w})
				}
			}
		}
	}
	for _, m := range find("alter", reAlter) {
		tbl, col := s[m[2]:m[3]], s[m[4]:m[5]]
		if tableOK(tbl) && colMatch(col) {
			out = append(out, textSite{Offset: m[4], Def: true, How: "SQL column of " + unquoteIdent(tbl), Table: unquoteIdent(tbl), Column: unquoteIdent(col)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return dedupeSites(out)
}

// topLevelItems splits s at the commas outside parentheses, returning each
// item's [start, end) offsets: a SET clause's assignments, a column list.
func topLevelItems(s string) [][2]int {
	var out [][2]int
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, [2]int{start, i})
				start = i + 1
			}
		}
	}
	return append(out, [2]int{start, len(s)})
}

// balanced returns s up to the parenthesis closing an already open one.
func balanced(s string) string {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

var sqlWords = map[string]bool{"select": true, "from": true, "where": true, "as": true, "and": true, "or": true, "not": true, "null": true, "distinct": true, "primary": true, "key": true, "constraint": true, "unique": true, "foreign": true, "check": true}

func isSQLWord(w string) bool { return sqlWords[strings.ToLower(w)] }

func dedupeSites(ss []textSite) []textSite {
	out := ss[:0]
	for i, s := range ss {
		if i > 0 && s.Offset == ss[i-1].Offset {
			continue
		}
		out = append(out, s)
	}
	return out
}

// writeCalls and readCalls are the call names that write or read the key
// given as their string argument or keyword: query builders, ORMs, maps,
// config and environment readers.
var (
	writeCalls = map[string]bool{"set": true, "update": true, "updates": true, "insert": true, "put": true, "setdefault": true, "setattr": true, "store": true, "create": true, "update_or_create": true, "get_or_create": true, "bulk_update": true, "values": true, "save": true, "setenv": true, "assign": true, "setitem": true, "upsert": true, "patch": true}
	readCalls  = map[string]bool{"get": true, "getattr": true, "getenv": true, "lookupenv": true, "select": true, "pluck": true, "where": true, "filter": true, "exclude": true, "order": true, "order_by": true, "values_list": true, "only": true, "getstring": true, "getint": true, "getbool": true, "getfloat64": true, "getduration": true, "getstringslice": true, "lookup": true, "load": true, "value": true, "pop": true, "has": true, "hasattr": true, "isset": true, "getitem": true}
)

// scanKeys finds string keys and keyword arguments spelling key outside
// SQL: dict and map subscripts, object and dict literals, query-builder,
// ORM, config and environment calls. Struct tags are left to the carrier
// (they describe a field, they do not touch a value).
func scanKeys(src []byte, key string, dotted string, kwargs bool) []textSite {
	var out []textSite
	s := string(src)
	match := func(w string) bool {
		if dotted != "" {
			return strings.EqualFold(w, dotted)
		}
		return normalize(w) == key
	}
	for _, m := range reQuoted.FindAllStringSubmatchIndex(s, -1) {
		w := s[m[2]:m[3]]
		if !match(w) {
			continue
		}
		before := strings.TrimRight(s[max(0, m[0]-40):m[0]], " \t")
		after := strings.TrimLeft(s[m[1]:min(len(s), m[1]+40)], " \t")
		// struct tags: `json:"artifact_url"`, `db:"artifact_url,omitempty"`
		if strings.HasSuffix(before, ":") && len(before) > 1 && isWordByte(before[len(before)-2]) {
			continue
		}
		site := textSite{Offset: m[2], Column: w}
		switch {
		case strings.HasPrefix(after, "=>"):
			// PHP's ['key' => v], Ruby's {"key" => v}
			site.Write, site.How = true, "key in a literal"
		case strings.HasSuffix(before, "["):
			rest := strings.TrimLeft(strings.TrimPrefix(after, "]"), " \t")
			if strings.HasPrefix(after, "]") && strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
				site.Write, site.How = true, "subscript assignment"
			} else {
				site.How = "subscript"
			}
		case strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "::"):
			site.Write, site.How = true, "key in a literal"
		default:
			call := callBefore(before)
			if call == "" {
				continue // a string that merely equals the key
			}
			lc := strings.ToLower(call)
			switch {
			case writeCalls[lc] || strings.HasPrefix(lc, "set"):
				site.Write, site.How = true, call+"(…) call"
			case readCalls[lc] || strings.HasPrefix(lc, "get"):
				site.How = call + "(…) call"
			default:
				continue
			}
		}
		out = append(out, site)
	}
	// keyword arguments (Python): Task.objects.filter(pk=1).update(artifact_url=u)
	for _, sp := range spellings(key) {
		if !kwargs || dotted != "" || strings.Contains(sp, "-") {
			continue
		}
		re := regexp.MustCompile(`(?i)[(,]\s*(` + regexp.QuoteMeta(sp) + `)\s*=[^=]`)
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			open := enclosingCall(s, m[2])
			if open == "" {
				continue
			}
			lc := strings.ToLower(open)
			site := textSite{Offset: m[2], Column: s[m[2]:m[3]]}
			switch {
			case writeCalls[lc] || lc == "objects.create" || isCtorName(open):
				site.Write, site.How = true, open+"(…=) call"
			case readCalls[lc]:
				site.How = open + "(…=) call"
			default:
				continue
			}
			out = append(out, site)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return dedupeSites(out)
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// isCtorName: a capitalized call (a class or model constructor).
func isCtorName(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name != "" && name[0] >= 'A' && name[0] <= 'Z'
}

// callBefore returns the name of the call whose first argument starts
// right after before ("x.Set(" → "Set"), or "".
func callBefore(before string) string {
	if !strings.HasSuffix(before, "(") {
		return ""
	}
	b := strings.TrimRight(before[:len(before)-1], " \t")
	i := len(b)
	for i > 0 && isWordByte(b[i-1]) {
		i--
	}
	return b[i:]
}

// enclosingCall returns the name of the call whose argument list holds
// offset at (the innermost unclosed parenthesis before it), or "".
func enclosingCall(s string, at int) string {
	depth := 0
	for i := at - 1; i >= 0 && at-i < 2000; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			if depth == 0 {
				b := strings.TrimRight(s[:i], " \t")
				j := len(b)
				for j > 0 && (isWordByte(b[j-1]) || b[j-1] == '.') {
					j--
				}
				name := strings.TrimLeft(b[j:], ".")
				// "Task.objects.create" → keep the last two parts for ORM calls
				if k := strings.LastIndexByte(name, '.'); k >= 0 {
					if strings.HasSuffix(name[:k], "objects") {
						return "objects." + name[k+1:]
					}
					return name[k+1:]
				}
				return name
			}
			depth--
		case '\n':
			if depth < 0 {
				return ""
			}
		}
	}
	return ""
}

// scanConfig finds key entries in configuration files: YAML (nested keys
// followed through indentation), TOML, INI, .env and properties.
func scanConfig(src []byte, key, dotted string) []textSite {
	var out []textSite
	type level struct {
		indent int
		name   string
	}
	var stack []level
	section := ""
	off := 0
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		ln := string(line)
		trim := strings.TrimSpace(ln)
		indent := len(ln) - len(strings.TrimLeft(ln, " \t"))
		start := off + indent
		off += len(line)
		if trim == "" || trim[0] == '#' || trim[0] == ';' {
			continue
		}
		if trim[0] == '[' && strings.HasSuffix(trim, "]") {
			section = strings.Trim(trim, "[] ")
			continue
		}
		sep := strings.IndexAny(trim, ":=")
		if sep <= 0 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(trim[:sep]), "\"'")
		name = strings.TrimPrefix(name, "export ")
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		var path []string
		if section != "" {
			path = append(path, section)
		}
		for _, l := range stack {
			path = append(path, l.name)
		}
		full := strings.Join(append(path, name), ".")
		if trim[sep] == ':' && strings.TrimSpace(trim[sep+1:]) == "" {
			stack = append(stack, level{indent, name})
		}
		hit := false
		if dotted != "" {
			hit = strings.EqualFold(full, dotted) || strings.EqualFold(name, dotted)
		} else {
			hit = normalize(name) == key
		}
		if hit {
			out = append(out, textSite{Offset: start + strings.Index(trim, name), Write: true, How: "config entry " + full, Column: name})
		}
	}
	return out
}
