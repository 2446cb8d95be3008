package eval

import (
	"context"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

// scope is evalcommon.py's: a definition's first and last line (1-based),
// its qualified name and its indentation column.
type scope struct {
	start, end int
	name       string
	col        int
}

// splitLines is score_context.py's split_lines: on "\n" only, a final
// newline starts no extra line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// pyLines is Python's str.splitlines (every line break, none at the end),
// which evalcommon's scopes number lines by.
func pyLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e:
			out = append(out, s[start:i])
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

var (
	goFuncRE        = regexp.MustCompile(`^func\s*(?:\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\))?\s*([A-Za-z_]\w*)`)
	goTypeRE        = regexp.MustCompile(`^type\s+([A-Za-z_]\w*)\b(.*)$`)
	goGroupedTypeRE = regexp.MustCompile(`^\t([A-Za-z_]\w*)\s+(?:struct|interface)\s*\{`)
)

// goScopes is evalcommon.go_scopes.
func goScopes(src string) []scope {
	lines := pyLines(src)
	var out []scope
	inGroup := false
	for i, line := range lines {
		idx := i + 1
		if strings.HasPrefix(line, "type (") {
			inGroup = true
			continue
		}
		if inGroup && strings.HasPrefix(line, ")") {
			inGroup = false
			continue
		}
		name, closer := "", "}"
		if m := goFuncRE.FindStringSubmatch(line); m != nil {
			name = m[2]
			if m[1] != "" {
				name = m[1] + "." + m[2]
			}
		} else if t := goTypeRE.FindStringSubmatch(line); t != nil && strings.Contains(t[2], "{") {
			name = t[1]
		} else if inGroup {
			if g := goGroupedTypeRE.FindStringSubmatch(line); g != nil {
				name, closer = g[1], "\t}"
			}
		}
		if name == "" {
			continue
		}
		end := idx
		if !(strings.Contains(line, "{") && strings.Count(line, "{") == strings.Count(line, "}") && strings.HasSuffix(strings.TrimRight(line, " \t\r\n\v\f"), "}")) {
			end = len(lines)
			for j := idx; j < len(lines); j++ {
				if strings.HasPrefix(lines[j], closer) {
					end = j + 1
					break
				}
			}
		}
		out = append(out, scope{idx, end, name, 0})
	}
	return out
}

// pythonScopes is evalcommon.python_scopes: the top-level and class-nested
// definitions (functions nested in functions folded into theirs), a
// decorated one starting at its first decorator. It parses with
// tree-sitter's Python grammar where evalcommon uses ast.
func pythonScopes(src string) []scope {
	root, err := sitter.ParseCtx(context.Background(), []byte(src), python.GetLanguage())
	if err != nil || root == nil || root.HasError() {
		return pythonScopesIndent(src)
	}
	var out []scope
	var visit func(n *sitter.Node, prefix []string, inFunc bool)
	visit = func(n *sitter.Node, prefix []string, inFunc bool) {
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			def, start := c, c
			if c.Type() == "decorated_definition" {
				def = c.ChildByFieldName("definition")
				if def == nil {
					continue
				}
			}
			if def.Type() != "function_definition" && def.Type() != "class_definition" {
				visit(c, prefix, inFunc)
				continue
			}
			nameNode := def.ChildByFieldName("name")
			if nameNode == nil {
				continue
			}
			q := append(append([]string{}, prefix...), nameNode.Content([]byte(src)))
			if !inFunc {
				out = append(out, scope{int(start.StartPoint().Row) + 1, lastLine(def, src), strings.Join(q, "."), int(def.StartPoint().Column)})
			}
			visit(def, q, inFunc || def.Type() == "function_definition")
		}
	}
	visit(root, nil, false)
	return out
}

// lastLine is the last line of a definition as ast's end_lineno counts
// it: its last statement's, not a trailing comment's.
func lastLine(def *sitter.Node, src string) int {
	n := def
	for {
		var last *sitter.Node
		for i := int(n.NamedChildCount()) - 1; i >= 0; i-- {
			if c := n.NamedChild(i); c.Type() != "comment" {
				last = c
				break
			}
		}
		if last == nil {
			break
		}
		n = last
	}
	end := n.EndPoint()
	row := int(end.Row) + 1
	if end.Column == 0 && row > int(n.StartPoint().Row)+1 {
		row-- // a node that ends at the start of the next line
	}
	return row
}

var pyDefRE = regexp.MustCompile(`^(\s*)(?:async\s+def|def|class)\s+([A-Za-z_]\w*)`)

// pythonScopesIndent is evalcommon.python_scopes_indent, for files the
// grammar does not parse.
func pythonScopesIndent(src string) []scope {
	lines := pyLines(src)
	type def struct {
		start, col int
		name, kind string
	}
	var defs []def
	for i, line := range lines {
		if m := pyDefRE.FindStringSubmatch(line); m != nil {
			kind := "def"
			if strings.HasPrefix(strings.TrimSpace(line), "class") {
				kind = "class"
			}
			defs = append(defs, def{i + 1, len(expandTabs(m[1])), m[2], kind})
		}
	}
	var out []scope
	type frame struct {
		col        int
		name, kind string
	}
	var stack []frame
	for _, d := range defs {
		end := d.start
		for j := d.start; j < len(lines); j++ {
			s := lines[j]
			t := strings.TrimSpace(s)
			if t != "" && !strings.HasPrefix(t, "#") {
				ind := len(s) - len(strings.TrimLeft(s, " \t\n\r\v\f"))
				ind = len(expandTabs(s[:ind]))
				lt := strings.TrimLeft(s, " \t\n\r\v\f")
				if ind <= d.col && !(strings.HasPrefix(lt, ")") || strings.HasPrefix(lt, "]") || strings.HasPrefix(lt, "}")) {
					break
				}
				end = j + 1
			}
		}
		for len(stack) > 0 && stack[len(stack)-1].col >= d.col {
			stack = stack[:len(stack)-1]
		}
		inFunc := false
		var names []string
		for _, f := range stack {
			inFunc = inFunc || f.kind == "def"
			names = append(names, f.name)
		}
		if !inFunc {
			out = append(out, scope{d.start, end, strings.Join(append(names, d.name), "."), d.col})
		}
		stack = append(stack, frame{d.col, d.name, d.kind})
	}
	return out
}

func expandTabs(s string) string {
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

func scopesFor(p, src string) []scope {
	switch {
	case strings.HasSuffix(p, ".go"):
		return goScopes(src)
	case strings.HasSuffix(p, ".py"), strings.HasSuffix(p, ".pyi"):
		return pythonScopes(src)
	}
	return nil
}

// goBlockEnd is score_context.py's go_block_end: the 1-based line where
// the declaration starting at start closes its braces (strings, raw
// strings, runes and comments skipped), or where a bodyless one ends;
// 0 when none is found.
func goBlockEnd(lines []string, start int) int {
	brace, paren := 0, 0
	opened, inBlock, inRaw := false, false, false
	for ln := start; ln <= len(lines); ln++ {
		s := []rune(lines[ln-1])
		n := len(s)
		var last rune
		for i := 0; i < n; {
			c := s[i]
			if inBlock {
				j := indexRunes(s, i, "*/")
				if j < 0 {
					i = n
					continue
				}
				inBlock = false
				i = j + 2
				continue
			}
			if inRaw {
				j := indexRunes(s, i, "`")
				if j < 0 {
					i = n
					continue
				}
				inRaw = false
				last = '`'
				i = j + 1
				continue
			}
			if c == '/' && hasAt(s, i, "//") {
				break
			}
			if c == '/' && hasAt(s, i, "/*") {
				inBlock = true
				i += 2
				continue
			}
			if c == '`' {
				inRaw = true
				i++
				continue
			}
			if c == '"' || c == '\'' {
				j := i + 1
				for j < n && s[j] != c {
					if s[j] == '\\' {
						j += 2
					} else {
						j++
					}
				}
				last = c
				i = j + 1
				continue
			}
			switch c {
			case '{':
				brace++
				opened = true
			case '}':
				brace--
			case '(':
				paren++
			case ')':
				paren--
			}
			if !isPySpace(c) {
				last = c
			}
			i++
		}
		if inBlock || inRaw {
			continue
		}
		if brace <= 0 && paren <= 0 {
			if opened {
				return ln
			}
			if last != 0 && (isAlnum(last) || strings.ContainsRune("_)]\"'`", last)) {
				return ln
			}
		}
	}
	return 0
}

func indexRunes(s []rune, from int, sub string) int {
	i := strings.Index(string(s[from:]), sub)
	if i < 0 {
		return -1
	}
	return from + len([]rune(string(s[from:])[:i]))
}

func hasAt(s []rune, i int, sub string) bool {
	return strings.HasPrefix(string(s[i:]), sub)
}

func isPySpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x1c || r == 0x1d || r == 0x1e || r == 0x1f || r == 0x85 || r == 0xa0 || (r > 0xff && strings.TrimSpace(string(r)) == "")
}

func isAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && (strings.ToUpper(string(r)) != strings.ToLower(string(r)) || (r >= 0x660 && r <= 0x669))
}
