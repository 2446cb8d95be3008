package engine

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// MaxCandidates bounds the candidates an ambiguous error lists.
const MaxCandidates = 20

// Resolve finds the definitions symbol names: a symbol id as answers give
// it (symbol_id), or a plain or qualified name (Server.Serve, http.Serve).
// under, when set, keeps definitions in that file or directory; kind keeps
// definitions of that kind. With one set, several distinct definitions are
// an Ambiguous error listing them.
func (s *Snapshot) Resolve(ctx context.Context, symbol, under, kind string, one bool) ([]graph.Symbol, error) {
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return nil, Errorf(InvalidArgument, "empty symbol")
	}
	var k graph.SymbolKind
	if kind != "" {
		var err error
		if k, err = graph.ParseSymbolKind(kind); err != nil {
			return nil, Errorf(InvalidArgument, "kind: %v", err)
		}
	}
	var defs []graph.Symbol
	var err error
	if strings.Contains(symbol, " ") {
		defs, err = s.R.SymbolsByID(ctx, graph.SymbolID(symbol))
	} else {
		defs, err = graph.FindDefinitions(ctx, s.R, symbol)
	}
	if err != nil {
		return nil, Classify(err)
	}
	if under != "" {
		under = strings.Trim(strings.ReplaceAll(under, `\`, "/"), "/")
		under = strings.TrimPrefix(under, "./")
	}
	var out []graph.Symbol
	seen := map[graph.SymbolID]bool{}
	for _, d := range defs {
		if under != "" && d.Path != under && !strings.HasPrefix(d.Path, under+"/") {
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
		e := Errorf(Ambiguous, "%q names %d definitions: pass one candidate's symbol_id as symbol, or narrow with path or kind", symbol, len(out))
		e.Candidates = candidatesOf(out[:min(len(out), MaxCandidates)])
		return nil, e
	}
	return out, nil
}
