package engine

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// Tiers of a fuzzy symbol match, best first (SymbolsOptions.Fuzzy).
const (
	tierExact       = iota // the name as typed
	tierExactFold          // the name, ignoring case
	tierPrefix             // a prefix of the name (case and separators ignored)
	tierHumps              // prefixes of its words in order: fulldisp → full_dispatch, gUN → getUserName
	tierSubsequence        // its letters in order
)

// squash lower-cases s and drops its separators.
func squash(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// humps reports whether q is the concatenation of non-empty prefixes of
// some of words, in order (words may be skipped).
func humps(q string, words []string) bool {
	if len(words) > 64 || len(q) > 128 {
		return false
	}
	// fail[i][j]: q[i:] cannot be matched from word j on
	fail := make([][]bool, len(q)+1)
	for i := range fail {
		fail[i] = make([]bool, len(words)+1)
	}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(q) {
			return true
		}
		if j == len(words) || fail[i][j] {
			return false
		}
		for w := j; w < len(words); w++ {
			word := words[w]
			for k := 1; k <= len(word) && i+k <= len(q) && word[k-1] == q[i+k-1]; k++ {
				if match(i+k, w+1) {
					return true
				}
			}
		}
		fail[i][j] = true
		return false
	}
	return match(0, 0)
}

func subsequence(q, s string) bool {
	for _, r := range q {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+utf8.RuneLen(r):]
	}
	return true
}

// fuzzyName is a definition name prepared for matching.
type fuzzyName struct {
	name  string
	sq    string   // squashed: lower case, no separators
	words []string // nameWords
}

func prepare(name string) fuzzyName {
	return fuzzyName{name: name, sq: squash(name), words: tokens.NameWords(name)}
}

// fuzzyTier says how name matches the typed query q (squashed: sq; tiers
// above); false when it does not.
func fuzzyTier(q, sq string, n *fuzzyName) (int, bool) {
	switch {
	case n.name == q:
		return tierExact, true
	case strings.EqualFold(n.name, q):
		return tierExactFold, true
	case sq == "" || !subsequence(sq, n.sq):
		return 0, false // (every other tier is a subsequence too)
	case strings.HasPrefix(n.sq, sq):
		return tierPrefix, true
	case humps(sq, n.words):
		return tierHumps, true
	}
	return tierSubsequence, true
}

// symbolNames is the generation's distinct definition names, prepared
// for matching (memoised per generation: an editor asks at every
// keystroke).
func (s *Snapshot) symbolNames(ctx context.Context) ([]fuzzyName, error) {
	v, err := s.Memo("engine.symbolNames", func() (any, error) {
		var list []string
		var err error
		if sn, ok := s.namesSource(); ok {
			list, err = sn.SymbolNames(ctx) // the embedded store: one query
		} else {
			set := map[string]bool{}
			err = s.R.AllSymbols(ctx, func(sym graph.Symbol) error {
				set[sym.Name] = true
				return nil
			})
			list = slices.Collect(maps.Keys(set))
		}
		names := make([]fuzzyName, 0, len(list))
		for _, n := range list {
			names = append(names, prepare(n))
		}
		slices.SortFunc(names, func(a, b fuzzyName) int { return strings.Compare(a.name, b.name) })
		return names, err
	})
	if err != nil {
		return nil, err
	}
	return v.([]fuzzyName), nil
}

// symbolNamer is a store that lists its distinct definition names.
type symbolNamer interface {
	SymbolNames(ctx context.Context) ([]string, error)
}

func (s *Snapshot) namesSource() (symbolNamer, bool) {
	if s.h == nil {
		return nil, false
	}
	sn, ok := s.h.st.(symbolNamer)
	return sn, ok
}

// fuzzySymbols lists the definitions whose names match q as an editor's
// symbol search does, ranked exact > prefix > humps > subsequence, then
// shorter names first; up to most. A qualified query (Store.Get) names its
// definitions exactly first, then matches its last part.
func (s *Snapshot) fuzzySymbols(ctx context.Context, q string, keep func(*graph.Symbol) bool, most int) ([]graph.Symbol, error) {
	var out []graph.Symbol
	seen := map[graph.SymbolID]bool{}
	add := func(defs []graph.Symbol) {
		for i := range defs {
			if !seen[defs[i].ID] && keep(&defs[i]) && len(out) < most {
				seen[defs[i].ID] = true
				out = append(out, defs[i])
			}
		}
	}
	if strings.Contains(q, ".") {
		exact, err := graph.FindDefinitions(ctx, s.R, q)
		if err != nil {
			return nil, err
		}
		add(exact)
		q = q[strings.LastIndexByte(q, '.')+1:]
	}
	names, err := s.symbolNames(ctx)
	if err != nil {
		return nil, err
	}
	type hit struct {
		name string
		tier int
	}
	var hits []hit
	sq := squash(q)
	for i := range names {
		if t, ok := fuzzyTier(q, sq, &names[i]); ok {
			hits = append(hits, hit{names[i].name, t})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(len(a.name), len(b.name)), strings.Compare(a.name, b.name))
	})
	for _, h := range hits {
		if len(out) >= most {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		defs, err := s.R.SymbolsByName(ctx, h.name)
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(defs, func(a, b graph.Symbol) int {
			return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Range.StartByte, b.Range.StartByte))
		})
		add(defs)
	}
	return out, nil
}
