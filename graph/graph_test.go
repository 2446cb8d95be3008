package graph

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSymbolIDRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		lang    Language
		descs   []Descriptor
		want    SymbolID
		display string
	}{
		{LangGo, []Descriptor{{Name: "net/http", Suffix: SuffixNamespace}, {Name: "Server", Suffix: SuffixType}, {Name: "Serve", Suffix: SuffixMethod}},
			"cairn go . . `net/http`/Server#Serve().", "Server.Serve"},
		{LangPython, []Descriptor{{Name: "a.b", Suffix: SuffixNamespace}, {Name: "f", Suffix: SuffixTerm}},
			"cairn python . . `a.b`/f.", "f"},
		{LangCpp, []Descriptor{{Name: "~Store", Suffix: SuffixMethod}}, "cairn cpp . . `~Store`().", "~Store"},
		{LangRust, []Descriptor{{Name: "we`ird", Suffix: SuffixType}}, "cairn rust . . `we``ird`#", "we`ird"},
		{LangJava, []Descriptor{{Name: "m", Suffix: SuffixMethod, Disambiguator: "+1"}}, "cairn java . . m(+1).", "m"},
	} {
		id := NewSymbolID(tc.lang, tc.descs...)
		if id != tc.want {
			t.Errorf("NewSymbolID = %q, want %q", id, tc.want)
		}
		p, err := id.Parse()
		if err != nil {
			t.Fatalf("parse %q: %v", id, err)
		}
		if p.Scheme != "cairn" || p.Manager != tc.lang.String() {
			t.Errorf("%q: scheme %q manager %q", id, p.Scheme, p.Manager)
		}
		if diff := cmp.Diff(tc.descs, p.Descriptors); diff != "" {
			t.Errorf("%q descriptors (-want +got):\n%s", id, diff)
		}
		if got := id.Display(); got != tc.display {
			t.Errorf("%q Display = %q, want %q", id, got, tc.display)
		}
	}
	// A precise scip-go symbol parses with the same code.
	p, err := SymbolID("scip-go gomod golang.org/x/tools v0.52.0 `golang.org/x/tools/go/analysis`/Analyzer#Run.").Parse()
	if err != nil || p.Package != "golang.org/x/tools" || len(p.Descriptors) != 3 {
		t.Errorf("scip-go symbol: %+v, %v", p, err)
	}
}

func TestQualifiedLookup(t *testing.T) {
	for _, tc := range []struct{ in, qual, name string }{
		{"ListenAndServe", "", "ListenAndServe"},
		{"http.ListenAndServe", "http", "ListenAndServe"},
		{"Server.Serve", "Server", "Serve"},
		{"a::b::c", "a.b", "c"},
		{"T#m()", "T", "m"},
	} {
		q, n := SplitQualified(tc.in)
		if q != tc.qual || n != tc.name {
			t.Errorf("SplitQualified(%q) = %q, %q", tc.in, q, n)
		}
	}
	serve := &Symbol{Name: "Serve", Container: "Server", Package: "http", Path: "src/net/http/server.go"}
	listen := &Symbol{Name: "ListenAndServe", Package: "http", Path: "src/net/http/server.go"}
	pyfn := &Symbol{Name: "save", Container: "Model", Package: "django.db.models.base", Path: "django/db/models/base.py"}
	for _, tc := range []struct {
		s    *Symbol
		qual string
		want bool
	}{
		{serve, "Server", true}, {serve, "http.Server", true}, {serve, "net.http.Server", true},
		{serve, "Client", false}, {listen, "http", true}, {listen, "net.http", true}, {listen, "url", false},
		{pyfn, "Model", true}, {pyfn, "base.Model", true}, {pyfn, "models.base.Model", true}, {pyfn, "Form", false},
		{serve, "", true},
	} {
		if got := QualifierMatches(tc.s, tc.qual); got != tc.want {
			t.Errorf("QualifierMatches(%s.%s, %q) = %v", tc.s.Container, tc.s.Name, tc.qual, got)
		}
	}
}

func TestRoleString(t *testing.T) {
	r := RoleRead | RoleWrite
	if r.String() != "read+write" {
		t.Errorf("%v", r)
	}
	back, err := ParseRole("read+write")
	if err != nil || back != r {
		t.Errorf("ParseRole = %v, %v", back, err)
	}
}

// TestNeighbours: the other ends of edges, by direction, once each, without
// ambiguous edges or skipped symbols, up to the limit, in edge order.
func TestNeighbours(t *testing.T) {
	es := []Edge{
		{From: "a", To: "x"}, {From: "b", To: "x"}, {From: "a", To: "y"},
		{From: "c", To: "x", Ambiguous: true}, {From: "d", To: "x"}, {From: "e", To: "x"},
	}
	got := Neighbours(es, In, map[SymbolID]bool{"d": true}, 3)
	if want := []SymbolID{"a", "b", "e"}; !slices.Equal(got, want) {
		t.Errorf("In: %v, want %v", got, want)
	}
	if got, want := Neighbours(es, Out, nil, 10), []SymbolID{"x", "y"}; !slices.Equal(got, want) {
		t.Errorf("Out: %v, want %v", got, want)
	}
}

func TestGoTestKind(t *testing.T) {
	for _, c := range []struct {
		path, name string
		want       GoTestFunc
	}{
		{"a/x_test.go", "TestFoo", GoTest},
		{"a/x_test.go", "Test_foo", GoTest},
		{"a/x_test.go", "Test", GoTest},
		{"a/x_test.go", "Testify", GoNotTest},
		{"a/x_test.go", "TestMain", GoTestMain},
		{"a/x_test.go", "BenchmarkFoo", GoBenchmark},
		{"a/x_test.go", "Benchmarks", GoNotTest},
		{"a/x_test.go", "FuzzParse", GoFuzz},
		{"a/x_test.go", "ExampleServer_Start", GoExample},
		{"a/x.go", "TestFoo", GoNotTest},
	} {
		if got := GoTestKind(c.path, c.name); got != c.want {
			t.Errorf("GoTestKind(%q, %q) = %v, want %v", c.path, c.name, got, c.want)
		}
	}
}

// TestRankerHoldsEachIDOnce: the ranker ranks as PageRank over the same
// edges does, and keeps each symbol id once however many edges name it —
// every Add here gets ids freshly read (as a store's scan gives them), and
// what stays on the heap is about the edges' node numbers, not their ids.
func TestRankerHoldsEachIDOnce(t *testing.T) {
	const ids, edges = 2000, 200000
	name := func(i int) SymbolID {
		return SymbolID(fmt.Sprintf("scip-go gomod example.com/some/module v1.0.0 pkg/Type%04d#Method().", i))
	}
	r := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int, edges)
	for i := range pairs {
		pairs[i] = [2]int{r.IntN(ids), r.IntN(ids)}
	}
	var list [][2]SymbolID
	for _, p := range pairs {
		list = append(list, [2]SymbolID{name(p[0]), name(p[1])})
	}
	want := PageRank(list, 0)
	list = nil
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var rk Ranker
	for _, p := range pairs {
		rk.Add(name(p[0]), name(p[1]))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// the edges as node numbers (8 bytes, slack for the slice's growth),
	// the ids once; a list of every edge's ids would be ~30 MB
	if bound := int64(edges*8*2 + ids*200); held > bound {
		t.Errorf("the ranker holds %d bytes for %d edges over %d ids, want at most %d", held, edges, ids, bound)
	}
	got := rk.Rank(0)
	if len(got) != len(want) {
		t.Fatalf("%d ranks, want %d", len(got), len(want))
	}
	for id, w := range want {
		if g := got[id]; g != w {
			t.Fatalf("rank of %s: %v, want %v", id, g, w)
		}
	}
}
