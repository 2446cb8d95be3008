package resolve

import (
	"path"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// goPackageMembers keeps the top-level Go candidates in the package an
// import path names: through the repository's go.mod files when one claims
// the path (external packages then match nothing), else by the longest
// common suffix of path elements, at least two, or a top-level package of
// the repository's own (goTopLevel).
func (c *fileCtx) goPackageMembers(importPath string, cands []graph.Symbol) []graph.Symbol {
	cands = filter(cands, func(s *graph.Symbol) bool { return s.Parent < 0 && !goMethod(s) })
	if dir, ok := c.x.goImportDir(importPath); ok {
		return filter(cands, func(s *graph.Symbol) bool { return path.Dir(s.Path) == dir })
	} else if len(c.x.goMods) > 0 {
		return nil
	}
	ip := strings.Split(importPath, "/")
	best, bestLen := []graph.Symbol(nil), 0
	for _, s := range cands {
		if s.Parent >= 0 {
			continue
		}
		d := strings.Split(path.Dir(s.Path), "/")
		n := 0
		for n < len(ip) && n < len(d) && ip[len(ip)-1-n] == d[len(d)-1-n] {
			n++
		}
		if n < min(2, len(ip)) {
			if !c.x.goTopLevel(ip, path.Dir(s.Path)) {
				continue
			}
			n = 1 // below any match of two elements
		}
		switch {
		case n > bestLen:
			best, bestLen = []graph.Symbol{s}, n
		case n == bestLen:
			best = append(best, s)
		}
	}
	return best
}

// goMethod: a Go method is declared at top level (no parent) but is
// reached only through a value or its type (x.Error(), T.Error), never
// as a package member or a bare name: pkg.Error is the package's
// function, and so is Error inside the package.
func goMethod(s *graph.Symbol) bool {
	return s.Lang == graph.LangGo && s.Kind == graph.KindMethod
}

// goPackageName guesses the name a Go import path binds: its last element,
// without a major-version element or a gopkg.in ".vN" suffix.
func goPackageName(importPath string) string {
	parts := strings.Split(importPath, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(last, "-", "_")
}
