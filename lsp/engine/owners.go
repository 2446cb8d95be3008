package engine

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Owners returns who owns a repository-relative file: the owners of the
// last CODEOWNERS rule matching it (CODEOWNERS, .github/CODEOWNERS or
// docs/CODEOWNERS), else the most frequent authors of its recent commits,
// prefixed "git:". Empty when neither tells.
func Owners(ctx context.Context, root, rel string) []string {
	for _, p := range []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"} {
		if f, err := os.Open(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			owners, found := matchOwners(f, rel)
			f.Close()
			if found {
				return owners
			}
			break
		}
	}
	out, err := exec.CommandContext(ctx, "git", "-C", root, "log", "-n", "50", "--format=%an", "--", rel).Output()
	if err != nil {
		return nil
	}
	counts := map[string]int{}
	for _, a := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if a != "" {
			counts[a]++
		}
	}
	var names []string
	for a := range counts {
		names = append(names, a)
	}
	slices.SortFunc(names, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	for i := range names {
		names[i] = "git:" + names[i]
	}
	return names[:min(3, len(names))]
}

// matchOwners applies CODEOWNERS rules (gitignore-style patterns, the last
// match wins) to rel.
func matchOwners(f *os.File, rel string) ([]string, bool) {
	var owners []string
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if ownersPattern(fields[0]).MatchString(rel) {
			owners, found = fields[1:], true
		}
	}
	return owners, found
}

// ownersPattern compiles one CODEOWNERS pattern: anchored when it starts
// with or contains a "/", "*" within a segment, "**" across segments, a
// trailing "/" or a plain directory name covering everything below.
func ownersPattern(p string) *regexp.Regexp {
	anchored := strings.HasPrefix(p, "/") || strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.Trim(p, "/")
	var b strings.Builder
	if anchored {
		b.WriteString("^")
	} else {
		b.WriteString("(?:^|/)")
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("(?:/.*)?$")
	return regexp.MustCompile(b.String())
}
