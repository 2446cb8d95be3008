package impact

import (
	"bufio"
	"bytes"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// owners is a parsed CODEOWNERS file: patterns in file order, the last
// match wins (as on GitHub and GitLab).
type owners struct {
	rules []ownerRule
}

// CodeOwners reads the repository's CODEOWNERS file (.github/, the root,
// docs/ or .gitlab/) and returns who owns a repository-relative path under
// it; found is false when no rule (or no file) covers the path.
func CodeOwners(files Files) func(path string) (owners []string, found bool) {
	o, _ := loadOwners(files)
	return func(p string) ([]string, bool) {
		if r := o.of(p); r != nil {
			return r.owners, true
		}
		return nil, false
	}
}

type ownerRule struct {
	pattern string
	match   gitignore.Pattern
	owners  []string
}

// loadOwners reads CODEOWNERS from the places forges look for it.
func loadOwners(files Files) (*owners, error) {
	for _, p := range []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS"} {
		b, err := files.ReadFile(p)
		if err != nil {
			continue
		}
		return parseOwners(b), nil
	}
	return &owners{}, nil
}

func parseOwners(b []byte) *owners {
	o := &owners{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue // comments and GitLab sections
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		pat := f[0]
		o.rules = append(o.rules, ownerRule{pattern: pat, match: gitignore.ParsePattern(pat, nil), owners: f[1:]})
	}
	return o
}

// of returns the rule that owns a repository-relative path (nil if none).
func (o *owners) of(p string) *ownerRule {
	parts := strings.Split(p, "/")
	for i := len(o.rules) - 1; i >= 0; i-- {
		r := &o.rules[i]
		// a pattern matches the file or any directory above it
		for n := len(parts); n >= 1; n-- {
			if r.match.Match(parts[:n], n < len(parts)) == gitignore.Exclude {
				return r
			}
		}
	}
	return nil
}

// cover groups the affected files by the rule that owns them.
func (o *owners) cover(files, changed map[string]bool) []Owner {
	if o == nil || len(o.rules) == 0 {
		return nil
	}
	by := map[*ownerRule]*Owner{}
	var out []*Owner
	for f := range files {
		r := o.of(f)
		if r == nil || len(r.owners) == 0 {
			continue
		}
		w := by[r]
		if w == nil {
			w = &Owner{Owners: r.owners, Pattern: r.pattern}
			by[r] = w
			out = append(out, w)
		}
		w.Paths++
		if changed[f] {
			w.Changed = true
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Changed != out[j].Changed {
			return out[i].Changed
		}
		return out[i].Paths > out[j].Paths || out[i].Paths == out[j].Paths && out[i].Pattern < out[j].Pattern
	})
	res := make([]Owner, len(out))
	for i, w := range out {
		res[i] = *w
	}
	return res
}
