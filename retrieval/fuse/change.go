package fuse

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/graph"
)

// Bounds of the change generator: the names it follows, their
// definitions (a name with more means no one place), the files that may
// mention a name (a rename of a name used everywhere is a list no ranking
// helps with, and reading every file's facts would cost the search), and
// the hits it ranks.
const (
	maxChangeNames = 5
	maxChangeDefs  = 3
	maxChangeFiles = 200
	maxChangeHits  = 40
)

// change ranks the definitions of the names the query asks to rename,
// deprecate, export or unexport (query.Parsed.Changes), then the code that
// uses them: a change to a name's API is made where it is defined and
// wherever it is called, read or written, and those places are what the
// issue's words do not name ("Consider export withContextDialer and
// deprecate WithDialer" is fixed in the benchmarks that dial with
// WithDialer and the balancer that reads the exported hook). The uses are
// the engine's references (graph.ReferencesTo, what `cairn refs`
// answers), tests left out; ranked a file at a time — each file's first
// use, files with more uses first, then their second — so that a file
// using the name once is not ranked below another's tenth use. The files
// are ranked too, in the order their first hit came: each is a file the
// change touches, evidence for the file as a whole (as a file the query
// names is for the path generator). For export and unexport the other
// spelling of the first letter is followed too: the name the change makes
// may already exist (grpc-go's internal.WithContextDialer hook, assigned
// withContextDialer). A qualified name nothing in the index defines is a
// library's ("replace the deprecated reflect.PtrTo"): its uses are those
// selected from that qualifier.
func (s *search) change() error {
	if !s.on[GenChange] || s.q.Identifier != "" || len(s.q.Changes) == 0 {
		return nil
	}
	type named struct {
		name string
		defs []graph.Symbol
		// asked: why the name is followed — the query asks to change it,
		// or it is the other case of a name the query asks to export or
		// unexport
		asked string
	}
	var groups []named
	for i, c := range s.q.Changes {
		if i >= maxChangeNames {
			break
		}
		spellings := []string{c.Name}
		if c.Export {
			if o := otherCase(c.Name); o != c.Name {
				spellings = append(spellings, o)
			}
		}
		for _, n := range spellings {
			defs, err := s.definitions(n)
			if err != nil {
				return err
			}
			qual, base := graph.SplitQualified(n)
			defs = slices.DeleteFunc(slices.Clone(defs), func(d graph.Symbol) bool { return d.Name != base })
			if len(defs) > maxChangeDefs || len(defs) == 0 && qual == "" {
				continue
			}
			// no definition of a qualified name: a library's
			// (reflect.PtrTo), whose uses are selected from that
			// qualifier
			asked := ", which the query asks to change"
			if n != c.Name {
				asked = ", the other case of " + c.Name + ", which the query asks to export or unexport"
			}
			groups = append(groups, named{n, defs, asked})
		}
	}
	rank, frank := 0, 0
	seen := map[int64]bool{}
	seenFile := map[string]bool{}
	hit := func(ref graph.ChunkRef, why string) {
		if seen[ref.ID] || rank >= maxChangeHits || s.e.category(ref.Path).Has(graph.FileTest) {
			return
		}
		seen[ref.ID] = true
		rank++
		s.add(GenChange, ref, rank, why)
		if !seenFile[ref.Path] {
			// a file the change must touch: evidence for the file as a
			// whole, as a file the query names is
			seenFile[ref.Path] = true
			frank++
			s.addFile(GenChange, ref.Path, frank, why)
		}
	}
	for _, g := range groups {
		for i := range g.defs {
			if d := &g.defs[i]; !d.IsTest {
				if ref, ok := s.chunkOf(d); ok {
					hit(ref, "defines "+g.name+g.asked)
				}
			}
		}
	}
	type use struct {
		ref graph.ChunkRef
		why string
	}
	byFile := map[string][]use{}
	var files []string
	for _, g := range groups {
		_, base := graph.SplitQualified(g.name)
		mentioning, err := s.e.R.FilesMentioning(s.ctx, base)
		if err != nil {
			return err
		}
		if len(mentioning) > maxChangeFiles {
			continue
		}
		refs, err := graph.ReferencesTo(s.ctx, s.e.R, g.defs, g.name, graph.RefOptions{})
		if err != nil {
			return err
		}
		for _, r := range refs {
			var ref graph.ChunkRef
			ok := false
			if e := r.EnclosingSymbol; e != nil {
				if e.IsTest {
					continue
				}
				ref, ok = s.chunkOf(e)
			} else {
				ref, ok = s.chunkAt(r.Path, r.Range.StartLine)
			}
			if !ok {
				continue
			}
			if _, known := byFile[r.Path]; !known {
				files = append(files, r.Path)
			}
			byFile[r.Path] = append(byFile[r.Path], use{ref, "uses " + g.name + g.asked})
		}
	}
	slices.SortStableFunc(files, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(byFile[b]), len(byFile[a])), cmp.Compare(a, b))
	})
	for i := 0; ; i++ {
		more := false
		for _, p := range files {
			if us := byFile[p]; i < len(us) {
				more = true
				hit(us[i].ref, us[i].why)
			}
		}
		if !more {
			break
		}
	}
	return nil
}

// otherCase is name with the case of its last part's first letter
// swapped: what exporting or unexporting it makes of it in Go.
func otherCase(name string) string {
	qual, base := graph.SplitQualified(name)
	r, n := utf8.DecodeRuneInString(base)
	switch {
	case unicode.IsUpper(r):
		r = unicode.ToLower(r)
	case unicode.IsLower(r):
		r = unicode.ToUpper(r)
	default:
		return name
	}
	base = string(r) + base[n:]
	if qual == "" {
		return base
	}
	return name[:len(name)-len(base)] + base
}
