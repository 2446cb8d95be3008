package indexer_test

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
	"github.com/cairn-dev/cairn/indexer"
)

var markerRE = regexp.MustCompile(`@(\w+)\(([^)]*)\)`)

type marker struct {
	file string
	line uint32
	kind string
	args []string
}

// TestGraphMarkers indexes each txtar repository in testdata/graph and
// checks the inline markers in its comments:
//
//	@ref(name, target)         the occurrence of name on this line resolves to
//	                           target (a qualified name), "local" or "none"
//	@amb(name, t1, t2, …)      it resolves by name only to exactly these
//	                           candidates, each edge marked ambiguous
//	@callers(target, c1, …)    the direct callers of target are exactly c1, …
//	@callees(f, t1, …)         the direct callees of f are exactly t1, …
//	@impl(iface, t1, …)        what implements, extends or overrides iface
//	@role(name, roles)         the occurrence of name on this line has exactly
//	                           these roles (graph.Role's spelling: argument+write)
//	@outside(name)             it was resolved to nothing of the index
//	                           (graph.Occurrence.Outside)
//	@refs(target, f:l, …)      graph.ReferencesTo the definitions of target
//	                           lists uses on exactly these file:line (a
//	                           library's name, defined nowhere: its uses)
func TestGraphMarkers(t *testing.T) {
	files, _ := filepath.Glob("testdata/graph/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			root, dir := t.TempDir(), t.TempDir()
			var markers []marker
			for _, af := range ar.Files {
				writeFiles(t, root, map[string]string{af.Name: string(af.Data)})
				for i, line := range strings.Split(string(af.Data), "\n") {
					c := strings.Index(line, "//@")
					if c < 0 {
						c = strings.Index(line, "#@")
					}
					if c < 0 {
						continue
					}
					for _, m := range markerRE.FindAllStringSubmatch(line[c:], -1) {
						var args []string
						for _, a := range strings.Split(m[2], ",") {
							args = append(args, strings.TrimSpace(a))
						}
						markers = append(markers, marker{file: af.Name, line: uint32(i + 1), kind: m[1], args: args})
					}
				}
			}
			index(t, root, dir, indexer.Options{})
			s := open(t, dir)
			for _, m := range markers {
				checkMarker(t, s, m)
			}
		})
	}
}

func qualName(ctx context.Context, r graph.Reader, id graph.SymbolID) string {
	defs, _ := r.SymbolsByID(ctx, id)
	if len(defs) == 0 {
		return "?" + string(id)
	}
	return defs[0].QualifiedName()
}

func hopNames(hops []graph.Hop) []string {
	var out []string
	for _, h := range hops {
		if h.Def != nil {
			out = append(out, h.Def.QualifiedName())
		} else {
			out = append(out, "module:"+graph.ModuleDisplay(h.Symbol))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func roots(t *testing.T, s graph.Reader, name string) []graph.SymbolID {
	t.Helper()
	defs, err := graph.FindDefinitions(context.Background(), s, name)
	if err != nil || len(defs) == 0 {
		t.Fatalf("no definition of %s: %v", name, err)
	}
	var ids []graph.SymbolID
	for _, d := range defs {
		ids = append(ids, d.ID)
	}
	return ids
}

func checkMarker(t *testing.T, s *embedded.Store, m marker) {
	t.Helper()
	ctx := context.Background()
	where := m.file + ":" + itoa(m.line)
	want := slices.Clone(m.args[1:])
	slices.Sort(want)
	switch m.kind {
	case "refs":
		defs, err := graph.FindDefinitions(ctx, s, m.args[0])
		if err != nil {
			t.Fatalf("%s: definitions of %s: %v", where, m.args[0], err)
		}
		// no definitions: a library's name, whose uses are found by
		// their spelling (and qualifier)
		refs, err := graph.ReferencesTo(ctx, s, defs, m.args[0], graph.RefOptions{})
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		var got []string
		for _, r := range refs {
			got = append(got, r.Path+":"+itoa(r.Range.StartLine))
		}
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: refs(%s) = %v, want %v", where, m.args[0], got, want)
		}
	case "ref", "amb", "role", "outside":
		ff, err := s.FileFacts(ctx, m.file)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		var occ *graph.Occurrence
		for i := range ff.Occurrences {
			o := &ff.Occurrences[i]
			if o.Range.StartLine == m.line && o.Name == m.args[0] && o.Role&graph.RoleDefinition == 0 {
				occ = o
				break
			}
		}
		if occ == nil {
			t.Errorf("%s: no occurrence of %s", where, m.args[0])
			return
		}
		if m.kind == "outside" {
			if !occ.Outside() {
				t.Errorf("%s: %s is not outside the index (symbol %q, confidence %s)", where, m.args[0], occ.Symbol, occ.Confidence)
			}
			return
		}
		if m.kind == "role" {
			if got := occ.Role.String(); got != m.args[1] {
				t.Errorf("%s: %s has role %s, want %s", where, m.args[0], got, m.args[1])
			}
			return
		}
		if m.kind == "amb" {
			if occ.Symbol != "" {
				t.Errorf("%s: %s resolved to %s, want ambiguous", where, m.args[0], occ.Symbol)
			}
			var from []graph.SymbolID
			if occ.Enclosing >= 0 {
				from = []graph.SymbolID{ff.Symbols[occ.Enclosing].ID}
			}
			edges, _ := s.Edges(ctx, from, graph.Out)
			var got []string
			for _, e := range edges {
				if e.Range.StartByte == occ.Range.StartByte && e.Path == m.file {
					if !e.Ambiguous || e.Confidence != graph.ConfNameOnly {
						t.Errorf("%s: edge to %s is %s ambiguous=%v", where, e.To, e.Confidence, e.Ambiguous)
					}
					got = append(got, qualName(ctx, s, e.To))
				}
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: ambiguous %s -> %v, want %v", where, m.args[0], got, want)
			}
			return
		}
		var got string
		switch {
		case occ.Symbol == "":
			got = "none"
		case occ.Symbol.IsLocal():
			got = "local"
		default:
			got = qualName(ctx, s, occ.Symbol)
		}
		if got != m.args[1] {
			t.Errorf("%s: %s resolves to %s (%s), want %s", where, m.args[0], got, occ.Symbol, m.args[1])
		}
	case "callers", "callees", "impl":
		var hops []graph.Hop
		var err error
		rs := roots(t, s, m.args[0])
		switch m.kind {
		case "callers":
			hops, err = graph.Callers(ctx, s, rs, graph.TraverseOptions{Depth: 1})
		case "callees":
			hops, err = graph.Callees(ctx, s, rs, graph.TraverseOptions{Depth: 1})
		default:
			hops, err = graph.Implementations(ctx, s, rs, 1)
		}
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if got := hopNames(hops); !slices.Equal(got, want) {
			t.Errorf("%s: %s(%s) = %v, want %v", where, m.kind, m.args[0], got, want)
		}
	default:
		t.Fatalf("%s: unknown marker @%s", where, m.kind)
	}
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// TestIncrementalEdges: re-indexing one file updates its edges and the edges
// of files whose resolution depended on it.
func TestIncrementalEdges(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": "module m\n",
		"a/a.go": "package a\n\nfunc Target() {}\n",
		"a/b.go": "package a\n\nfunc Caller() { Target(); Later() }\n",
		"a/c.go": "package a\n\nfunc Other() {}\n",
	})
	ageFiles(t, root)
	index(t, root, dir, indexer.Options{})
	callers := func(name string) []string {
		s := open(t, dir)
		defs, _ := graph.FindDefinitions(context.Background(), s, name)
		if len(defs) == 0 {
			return nil
		}
		hops, err := graph.Callers(context.Background(), s, []graph.SymbolID{defs[0].ID}, graph.TraverseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return hopNames(hops)
	}
	if got := callers("Target"); !slices.Equal(got, []string{"Caller"}) {
		t.Fatalf("callers(Target) = %v", got)
	}
	// Renaming the definition drops the edge from the unchanged caller...
	writeFiles(t, root, map[string]string{"a/a.go": "package a\n\nfunc Renamed() {}\n"})
	ageFiles(t, root)
	res := index(t, root, dir, indexer.Options{})
	if res.Parsed != 1 || res.Resolved < 2 {
		t.Errorf("rename: parsed %d resolved %d, want 1 parsed and the dependent re-resolved", res.Parsed, res.Resolved)
	}
	if got := callers("Target"); got != nil {
		t.Errorf("after rename callers(Target) = %v", got)
	}
	// ...and a new definition gives the unchanged caller a new edge.
	writeFiles(t, root, map[string]string{"a/c.go": "package a\n\nfunc Other() {}\n\nfunc Later() {}\n"})
	ageFiles(t, root)
	index(t, root, dir, indexer.Options{})
	if got := callers("Later"); !slices.Equal(got, []string{"Caller"}) {
		t.Errorf("callers(Later) = %v, want [Caller]", got)
	}
	// An edit that changes no definition re-resolves only that file.
	writeFiles(t, root, map[string]string{"a/c.go": "package a\n\nfunc Other() { Later() }\n\nfunc Later() {}\n"})
	ageFiles(t, root)
	res = index(t, root, dir, indexer.Options{})
	if res.Resolved != 1 {
		t.Errorf("body edit re-resolved %d files, want 1", res.Resolved)
	}
	if got := callers("Later"); !slices.Equal(got, []string{"Caller", "Other"}) {
		t.Errorf("callers(Later) = %v", got)
	}
}
