package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/enginetest"
	"github.com/cairn-dev/cairn/graph"
)

// getters is a repository where one name (Get) has two definitions, each
// called through a resolved receiver, plus one call nothing resolves and
// one call into a library.
const getters = `package a

import "fmt"

// A is one getter.
type A struct{}

// Get returns one.
func (A) Get() int { return 1 }

// B is another.
type B struct{}

// Get returns two.
func (B) Get() int { return 2 }

func useA(a A) int { return a.Get() + a.Get() }

func useB(b B) int { return b.Get() }

func useX(m map[string]A) int { return m["k"].Get() }

func top() int { return useA(A{}) }

func say() { fmt.Println("hi") }
`

func gettersSnapshot(t *testing.T) *engine.Snapshot {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/q\n\ngo 1.22\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "a.go"), []byte(getters), 0o644)
	enginetest.Git(t, root, "init", "-q")
	enginetest.Git(t, root, "add", ".")
	enginetest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "x")
	enginetest.Index(t, root)
	s, err := open(t, root).Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Release)
	return s
}

// refLines renders references as "line:column in confidence".
func refLines(refs []graph.RefView) []string {
	var out []string
	for _, r := range refs {
		out = append(out, strings.Join([]string{r.Path, itoa(r.StartLine) + ":" + itoa(r.Column), r.In, r.Confidence}, " "))
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestReferencesFilterRule(t *testing.T) {
	ctx := context.Background()
	s := gettersSnapshot(t)
	all := []string{"a/a.go 17:31 useA resolved", "a/a.go 17:41 useA resolved", "a/a.go 19:31 useB resolved", "a/a.go 21:47 useX name-only"}
	onlyA := []string{"a/a.go 17:31 useA resolved", "a/a.go 17:41 useA resolved", "a/a.go 21:47 useX name-only"}
	defs, err := s.Definitions(ctx, engine.DefinitionsOptions{Name: "A.Get"})
	if err != nil || len(defs.Definitions) != 1 {
		t.Fatalf("Definitions(A.Get) = %+v, %v", defs, err)
	}
	idA := string(defs.Definitions[0].SymbolID)
	for _, c := range []struct {
		name string
		o    engine.ReferencesOptions
		want []string
		defs int
	}{
		// both definitions: the uses of either, and the unresolved one
		{"plain", engine.ReferencesOptions{Name: "Get"}, all, 2},
		// narrowed to A.Get, by qualifier, id or kind+path: B's use goes,
		// the unresolved one stays, marked name-only
		{"qualified", engine.ReferencesOptions{Name: "A.Get"}, onlyA, 1},
		{"symbol_id", engine.ReferencesOptions{Name: idA}, onlyA, 1},
		{"path", engine.ReferencesOptions{Name: "Get", Path: "a/a.go"}, all, 2},
		{"role", engine.ReferencesOptions{Name: "A.Get", Roles: "call"}, onlyA, 1},
		{"library", engine.ReferencesOptions{Name: "Println"}, []string{"a/a.go 25:18 say name-only"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.References(ctx, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, refLines(res.References)); d != "" {
				t.Errorf("References(%+v) (-want +got):\n%s", c.o, d)
			}
			if len(res.Definitions) != c.defs {
				t.Errorf("definitions = %d, want %d", len(res.Definitions), c.defs)
			}
			for _, r := range res.References {
				if r.Revision == "" || r.Stale {
					t.Errorf("uncited reference %+v", r)
				}
			}
		})
	}
	withDefs, err := s.References(ctx, engine.ReferencesOptions{Name: "A.Get", IncludeDefinitions: true})
	if err != nil || len(withDefs.References) != len(onlyA)+1 || withDefs.References[0].Role != "definition" {
		t.Errorf("with definitions: %v, %v", refLines(withDefs.References), err)
	}
	for _, c := range []struct {
		o    engine.ReferencesOptions
		want engine.Category
	}{
		{engine.ReferencesOptions{Name: "NeverMentioned"}, engine.NotFound},
		{engine.ReferencesOptions{Name: "Get", Kind: "struct"}, engine.NotFound}, // narrowed: no fallback to spelling
		{engine.ReferencesOptions{Name: "Get", Roles: "sing"}, engine.InvalidArgument},
		{engine.ReferencesOptions{Name: " "}, engine.InvalidArgument},
		{engine.ReferencesOptions{Name: "Get", Path: "../elsewhere"}, engine.OutsideRepository},
	} {
		if _, err := s.References(ctx, c.o); category(err) != c.want {
			t.Errorf("References(%+v) = %v, want %s", c.o, err, c.want)
		}
	}
}

func TestHopsAmbiguousAndDepth(t *testing.T) {
	ctx := context.Background()
	s := gettersSnapshot(t)
	_, err := s.Callers(ctx, engine.HopsOptions{Name: "Get", Depth: 1})
	var e *engine.Error
	if !errors.As(err, &e) || e.Category != engine.Ambiguous || len(e.Candidates) != 2 {
		t.Fatalf("Callers(Get) = %v, want ambiguous with 2 candidates", err)
	}
	for _, c := range e.Candidates {
		if c.SymbolID == "" || c.Path != "a/a.go" || c.Revision == "" || c.QualifiedName == "" {
			t.Errorf("candidate %+v is not a cited symbol", c)
		}
	}
	// A candidate's id picks it; All takes both.
	byID, err := s.Callers(ctx, engine.HopsOptions{Name: string(e.Candidates[0].SymbolID), Depth: 1})
	if err != nil || len(byID.Roots) != 1 {
		t.Fatalf("Callers(candidate) = %+v, %v", byID, err)
	}
	both, err := s.Callers(ctx, engine.HopsOptions{Name: "Get", Depth: 1, All: true})
	if err != nil || len(both.Roots) != 2 {
		t.Fatalf("Callers(Get, all) = %+v, %v", both, err)
	}
	names := func(r *engine.HopsResult) []string {
		var out []string
		for _, h := range r.Results {
			out = append(out, h.Name)
		}
		slices.Sort(out)
		return out
	}
	if got := names(both); !slices.Contains(got, "useA") || !slices.Contains(got, "useB") {
		t.Errorf("callers of both Gets = %v", got)
	}
	a, err := s.Callers(ctx, engine.HopsOptions{Name: "A.Get", Depth: 2, Sites: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(a); !slices.Contains(got, "useA") || !slices.Contains(got, "top") || slices.Contains(got, "useB") {
		t.Errorf("callers of A.Get to depth 2 = %v", got)
	}
	for i, h := range a.Results {
		if h.Name == "useA" {
			if h.Depth != 1 || h.Sites != 2 || h.CallSite == nil || h.CallSite.StartLine != 17 || h.CallSite.Column != 31 ||
				h.Definition == nil || h.Definition.StartLine != 17 || len(a.Edges[i]) != 2 {
				t.Errorf("useA hop %+v (edges %v)", h, a.Edges[i])
			}
		}
		if h.Name == "top" && (h.Depth != 2 || a.Edges[i] != nil) {
			t.Errorf("top hop %+v (edges %v)", h, a.Edges[i])
		}
	}
	callees, err := s.Callees(ctx, engine.HopsOptions{Name: "useA", Depth: 1})
	if err != nil || len(callees.Results) != 1 || callees.Results[0].Name != "A.Get" {
		t.Errorf("Callees(useA) = %+v, %v", callees, err)
	}
	for _, d := range []int{0, -1, engine.MaxHopDepth + 1} {
		if _, err := s.Callers(ctx, engine.HopsOptions{Name: "useA", Depth: d}); category(err) != engine.InvalidArgument {
			t.Errorf("Callers(depth %d) = %v, want invalid_argument", d, err)
		}
		if _, err := s.Implementations(ctx, engine.HopsOptions{Name: "useA", Depth: d}); category(err) != engine.InvalidArgument {
			t.Errorf("Implementations(depth %d) = %v, want invalid_argument", d, err)
		}
	}
	if _, err := s.Callers(ctx, engine.HopsOptions{Name: "Nope", Depth: 1}); category(err) != engine.NotFound {
		t.Errorf("Callers(Nope) = %v, want not_found", err)
	}
}

func TestGraphQuestionsOnFixture(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	s, err := open(t, root).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	impls, err := s.Implementations(ctx, engine.HopsOptions{Name: "Store", Depth: engine.DefaultImplementationsDepth})
	if err != nil || len(impls.Results) == 0 || impls.Results[0].Name != "MemStore" || impls.Results[0].Definition == nil {
		t.Fatalf("Implementations(Store) = %+v, %v", impls, err)
	}
	syms, err := s.Symbols(ctx, engine.SymbolsOptions{File: "store/store.go"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range syms.Symbols {
		got = append(got, v.QualifiedName)
	}
	if d := cmp.Diff([]string{"Store", "Store.Get", "MemStore", "MemStore.m", "NewMemStore", "MemStore.Get"}, got); d != "" {
		t.Errorf("Symbols(store/store.go) (-want +got):\n%s", d)
	}
	if syms, err := s.Symbols(ctx, engine.SymbolsOptions{Kind: "interface"}); err != nil || len(syms.Symbols) != 2 {
		t.Errorf("Symbols(kind interface) = %+v, %v", syms, err)
	}
	if syms, err := s.Symbols(ctx, engine.SymbolsOptions{Query: "MemStore"}); err != nil || len(syms.Symbols) == 0 || syms.Symbols[0].Name != "MemStore" || syms.Truncated {
		t.Errorf("Symbols(query MemStore) = %+v, %v", syms, err)
	}
	if syms, err := s.Symbols(ctx, engine.SymbolsOptions{Query: "Get", Limit: 1}); err != nil || len(syms.Symbols) != 1 || syms.Symbols[0].Name != "Get" || !syms.Truncated {
		t.Errorf("Symbols(query Get, limit 1) = %+v, %v", syms, err)
	}
	if _, err := s.Symbols(ctx, engine.SymbolsOptions{File: "nope.go"}); category(err) != engine.NotFound {
		t.Errorf("Symbols(nope.go) = %v", err)
	}
	paths, err := s.Paths(ctx, engine.PathsOptions{From: "Run", To: "Store.Get", MaxDepth: 8, Limit: 5})
	if err != nil || len(paths.Paths) != 1 {
		t.Fatalf("Paths(Run → Store.Get) = %+v, %v", paths, err)
	}
	var chain []string
	for _, e := range paths.Paths[0] {
		chain = append(chain, e.FromName)
	}
	if d := cmp.Diff([]string{"Run", "Server.Serve", "Server.handle"}, chain[:min(len(chain), 3)]); d != "" || paths.Paths[0][0].Site.Revision == "" {
		t.Errorf("path (-want +got):\n%s\n%+v", d, paths.Paths[0])
	}
	if _, err := s.Paths(ctx, engine.PathsOptions{From: "Run", To: "Greet", MaxDepth: 0, Limit: 5}); category(err) != engine.InvalidArgument {
		t.Errorf("Paths(max depth 0) = %v", err)
	}
	m, err := s.Map(ctx, engine.MapOptions{Under: "store", Limit: 3})
	if err != nil || len(m.Symbols) == 0 || len(m.Symbols) > 3 {
		t.Fatalf("Map(store) = %+v, %v", m, err)
	}
	for i, e := range m.Symbols {
		if !strings.HasPrefix(e.Path, "store/") || e.Rank <= 0 || i > 0 && e.Rank > m.Symbols[i-1].Rank {
			t.Errorf("map entry %d %+v", i, e)
		}
	}
	if _, err := s.Map(ctx, engine.MapOptions{Under: "/etc", Limit: 3}); category(err) != engine.OutsideRepository {
		t.Errorf("Map(/etc) = %v", err)
	}
	if _, err := s.Map(ctx, engine.MapOptions{Under: "nowhere", Limit: 3}); category(err) != engine.NotFound {
		t.Errorf("Map(nowhere) = %v, want not_found (not an empty map)", err)
	}
	if m, err := s.Map(ctx, engine.MapOptions{Under: "store/store.go", Limit: 30}); err != nil || len(m.Symbols) == 0 {
		t.Errorf("Map(store/store.go) = %+v, %v", m, err)
	}
}

// TestFuzzySymbols: the editor's symbol search matches partial names —
// prefixes, word humps and subsequences — ranked in that order after the
// name itself.
func TestFuzzySymbols(t *testing.T) {
	ctx := context.Background()
	root := enginetest.Repo(t)
	s, err := open(t, root).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	for q, want := range map[string][]string{
		"MemStore":  {"MemStore", "NewMemStore"},               // exact, then humps (mem+store)
		"NewMem":    {"NewMemStore"},                           // prefix
		"nms":       {"NewMemStore"},                           // humps
		"Serv":      {"Serve", "Serve", "Server", "NewServer"}, // prefixes (shorter first), then humps
		"bnr":       {"Banner"},                                // subsequence
		"Store.Get": {"Get", "Get"},                            // a qualified name: its definitions, then its last part
	} {
		res, err := s.Symbols(ctx, engine.SymbolsOptions{Query: q, Fuzzy: true})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []string
		for _, v := range res.Symbols {
			got = append(got, v.Name)
		}
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("fuzzy %q = %q, want %q first", q, got, want)
		}
	}
}
