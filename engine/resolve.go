package engine

import (
	"context"
	"path"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// MaxCandidates bounds the candidates an ambiguous error lists.
const MaxCandidates = 20

// Resolve finds the definitions symbol names: a symbol id as answers give
// it (symbol_id), or a plain or qualified name (Server.Serve, http.Serve).
// under, when set, keeps definitions in that file or directory; kind keeps
// definitions of that kind. With one set, several distinct definitions are
// an Ambiguous error listing them. It is how every question taking a name
// finds its definitions (Definitions, References, Callers, …).
func (s *Snapshot) Resolve(ctx context.Context, symbol, under, kind string, one bool) ([]graph.Symbol, error) {
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return nil, Errorf(InvalidArgument, "empty name: give a name, a qualified name or a symbol_id")
	}
	var k graph.SymbolKind
	if kind != "" {
		var err error
		if k, err = graph.ParseSymbolKind(kind); err != nil {
			return nil, Errorf(InvalidArgument, "kind: %v", err)
		}
	}
	under, err := cleanUnder(under)
	if err != nil {
		return nil, err
	}
	var defs []graph.Symbol
	if isSymbolID(symbol) {
		defs, err = s.R.SymbolsByID(ctx, graph.SymbolID(symbol))
	} else {
		defs, err = graph.FindDefinitions(ctx, s.R, symbol)
	}
	if err != nil {
		return nil, Classify(err)
	}
	var out []graph.Symbol
	seen := map[graph.SymbolID]bool{}
	for _, d := range defs {
		if !inUnder(d.Path, under) {
			continue
		}
		if k != 0 && d.Kind != k {
			continue
		}
		if one && seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		out = append(out, d)
	}
	if len(out) == 0 {
		where := ""
		if under != "" {
			where = " under " + under
		}
		if kind != "" {
			where += " of kind " + kind
		}
		return nil, Errorf(NotFound, "no definition of %q%s in the index (generation %d); try search with words from it", symbol, where, s.Meta.Generation)
	}
	if one && len(out) > 1 {
		e := Errorf(Ambiguous, "%q names %d definitions: pass one candidate's symbol_id as the name, narrow with path or kind, or ask for all", symbol, len(out))
		e.Candidates = s.candidates(ctx, out[:min(len(out), MaxCandidates)])
		return nil, e
	}
	return out, nil
}

// isSymbolID tells a symbol id (SCIP syntax: space-separated) from a name.
func isSymbolID(name string) bool { return strings.Contains(name, " ") }

// cleanUnder checks and cleans a path filter (a file or directory): it must
// stay inside the repository; it need not exist in the worktree (an indexed
// directory may have been deleted since).
func cleanUnder(p string) (string, error) {
	if strings.TrimSpace(p) == "" || p == "." || p == "./" {
		return "", nil
	}
	if strings.ContainsRune(p, 0) {
		return "", Errorf(InvalidArgument, "path contains a NUL byte")
	}
	slashed := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(slashed, "/") || len(slashed) > 1 && slashed[1] == ':' {
		return "", Errorf(OutsideRepository, "%q is absolute: give a path relative to the repository root", p)
	}
	rel := path.Clean(slashed)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", Errorf(OutsideRepository, "%q leaves the repository root", p)
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "", Errorf(OutsideRepository, "%q is inside .git", p)
	}
	if rel == "." {
		return "", nil
	}
	return rel, nil
}

// inUnder reports whether p is the file under or inside the directory under.
func inUnder(p, under string) bool {
	return under == "" || p == under || strings.HasPrefix(p, under+"/")
}

// candidates publishes the definitions an ambiguous name denotes (without
// their docs: a list to choose from).
func (s *Snapshot) candidates(ctx context.Context, defs []graph.Symbol) []Candidate {
	out := make([]Candidate, len(defs))
	for i := range defs {
		out[i] = s.viewSymbol(ctx, &defs[i])
		out[i].Doc = ""
	}
	return out
}

// CiteFunc cites paths as this snapshot does (Cite).
func (s *Snapshot) CiteFunc(ctx context.Context) graph.CiteFunc {
	return func(path string) (string, bool) { return s.Cite(ctx, path) }
}
