package trace

import (
	"strings"

	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// normalize maps every spelling of a name to one key: "ArtifactURL",
// "artifact_url", "artifactUrl" and "ARTIFACT-URL" all give "artifact url".
func normalize(s string) string { return strings.Join(tokens.NameWords(s), " ") }

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
	ws := tokens.NameWords(name)
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
