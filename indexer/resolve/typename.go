package resolve

import "strings"

// wrapperTypes are generic containers whose argument is the type that
// matters for member access (Optional[T], Box<T>, Promise<T>, *T).
var wrapperTypes = map[string]bool{
	"Optional": true, "Option": true, "Box": true, "Rc": true, "Arc": true, "RefCell": true,
	"Promise": true, "Awaitable": true, "Readonly": true, "Partial": true, "Required": true,
	"Ref": true, "Mutex": true, "unique_ptr": true, "shared_ptr": true, "Annotated": true,
	"typing.Optional": true, "std::unique_ptr": true, "std::shared_ptr": true,
}

// typeName reduces a type as written to its qualifier and name:
// "*pkg.Server" → ("pkg", "Server"), "Optional[Task]" → ("", "Task"),
// "(*Task, error)" → ("", "Task"), "List[str]" → ("", "List"),
// "Store | None" → ("", "Store"), "&mut Vec<u8>" → ("", "Vec").
func typeName(t string) (qual, name string) {
	t = strings.TrimSpace(t)
	for i := 0; i < 4; i++ {
		t = strings.TrimSpace(t)
		// tuples and result lists: the first element
		if strings.HasPrefix(t, "(") {
			t = strings.TrimPrefix(t, "(")
			if j := topLevelIndex(t, ','); j >= 0 {
				t = t[:j]
			}
			t = strings.TrimSuffix(t, ")")
			continue
		}
		// unions: the first non-None member
		if j := topLevelIndex(t, '|'); j >= 0 {
			first, rest := strings.TrimSpace(t[:j]), strings.TrimSpace(t[j+1:])
			if first == "None" || first == "null" || first == "undefined" {
				t = rest
			} else {
				t = first
			}
			continue
		}
		break
	}
	for changed := true; changed; {
		changed = false
		for _, p := range []string{"*", "&", "[]", "...", "mut ", "const ", "struct ", "class ", "enum ", "typename ", "readonly ", "?"} {
			if strings.HasPrefix(t, p) {
				t = strings.TrimSpace(strings.TrimPrefix(t, p))
				changed = true
			}
		}
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "*"), "&")
	t = strings.TrimSpace(strings.TrimSuffix(t, "[]"))
	// generic arguments
	if j := strings.IndexAny(t, "[<"); j > 0 {
		head := t[:j]
		if wrapperTypes[head] {
			inner := t[j+1:]
			inner = strings.TrimSuffix(strings.TrimSuffix(inner, "]"), ">")
			if k := topLevelIndex(inner, ','); k >= 0 {
				inner = inner[:k]
			}
			return typeName(inner)
		}
		t = head
	}
	t = strings.Trim(t, `"'`) // forward references in Python annotations
	t = strings.ReplaceAll(t, "::", ".")
	t = strings.TrimPrefix(strings.ReplaceAll(t, "\\", "."), ".") // PHP's \App\Models\Account
	if j := strings.LastIndexByte(t, '.'); j >= 0 {
		return t[:j], t[j+1:]
	}
	if !isIdent(t) {
		return "", ""
	}
	return "", t
}

// topLevelIndex finds c outside brackets.
func topLevelIndex(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '<', '{':
			depth++
		case ')', ']', '>', '}':
			depth--
		case c:
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			return false
		}
	}
	return true
}

// splitQualifier splits a qualifier expression into steps:
// "s.store" → [s store], "a.b().c" → [a b() c], "self" → [self].
// Index expressions and calls with arguments are reduced to their callee.
func splitQualifier(q string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '.':
			if depth == 0 {
				parts = append(parts, q[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, q[start:])
	for i, p := range parts {
		p = strings.TrimSpace(p)
		call := false
		if j := strings.IndexByte(p, '('); j >= 0 {
			p, call = p[:j], true
		}
		if j := strings.IndexByte(p, '['); j >= 0 {
			p = p[:j] // an element of a collection: keep the collection
		}
		p = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(p, "?"), "!"))
		if call {
			p += "()"
		}
		parts[i] = p
	}
	return parts
}
