package trace

import (
	"strings"
	"unicode"
)

// words splits an identifier or key into lower-case words: camelCase,
// PascalCase, snake_case, kebab-case, dotted and digit boundaries, with
// acronyms kept whole ("ArtifactURL" → artifact, url).
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			out = append(out, strings.ToLower(string(rs[start:i])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			// "URLPath": the P starts a word
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// normalize maps every spelling of a name to one key: "ArtifactURL",
// "artifact_url", "artifactUrl" and "ARTIFACT-URL" all give "artifact url".
func normalize(s string) string { return strings.Join(words(s), " ") }

// spellings lists the case-insensitive spellings a key may take in code:
// joined (camel, Pascal, flat), snake and kebab.
func spellings(key string) []string {
	ws := strings.Fields(key)
	if len(ws) == 0 {
		return nil
	}
	joined := strings.Join(ws, "")
	out := []string{joined}
	if len(ws) > 1 {
		out = append(out, strings.Join(ws, "_"), strings.Join(ws, "-"))
	}
	return out
}

// typeMatches reports whether a container name names the table or type
// qual: the same words, allowing a plural ("tasks" ~ "Task", "task_runs" ~
// "TaskRun") and a package-qualified container ("models.Task").
func typeMatches(container, qual string) bool {
	if container == "" || qual == "" {
		return false
	}
	if i := strings.LastIndexByte(container, '.'); i >= 0 {
		container = container[i+1:]
	}
	if i := strings.LastIndexByte(qual, '.'); i >= 0 {
		qual = qual[i+1:]
	}
	a, b := singular(normalize(container)), singular(normalize(qual))
	// a table named after its app or schema too: "bank_account" ~ Account
	return a == b || strings.HasSuffix(a, " "+b) || strings.HasSuffix(b, " "+a)
}

// singular strips a plural ending from the last word of a normalized name.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 2:
		return s[:len(s)-1]
	}
	return s
}

// accessorKey returns the key a setter, getter or builder method name
// touches and whether it writes: SetArtifactURL / setArtifactUrl /
// WithArtifactURL write; GetArtifactURL / getArtifactUrl / isDone read.
func accessorKey(name string) (key string, write, ok bool) {
	ws := words(name)
	if len(ws) < 2 {
		return "", false, false
	}
	rest := strings.Join(ws[1:], " ")
	switch ws[0] {
	case "set", "with":
		return rest, true, true
	case "get", "is", "has":
		return rest, false, true
	}
	return "", false, false
}
