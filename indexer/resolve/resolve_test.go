package resolve

import (
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

func TestOwner(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"cairn go . . `a/b`/T#m().", "cairn go . . `a/b`/T#"},
		{"cairn go . . `a/b`/T#", ""},
		{"cairn go . . `a/b`/F().", ""},
		{"cairn typescript . . `src/util.ts`/util/assertEqual().", "cairn typescript . . `src/util.ts`/util/"},
		{"cairn python . . `m`/C#Inner#x.", "cairn python . . `m`/C#Inner#"},
		{"scip-go gomod golang.org/x/tools v0.52.0 `golang.org/x/tools/go/analysis`/Analyzer#Run.", "scip-go gomod golang.org/x/tools v0.52.0 `golang.org/x/tools/go/analysis`/Analyzer#"},
		{"cairn cpp . . Store#`~Store`().", "cairn cpp . . Store#"},
		{"cairn java . . `a.b`/C#m(+1).", "cairn java . . `a.b`/C#"},
	} {
		if got := owner(graph.SymbolID(tc.id)); got != tc.want {
			t.Errorf("owner(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	for _, tc := range []struct{ in, qual, name string }{
		{"*pkg.Server", "pkg", "Server"},
		{"Optional[Task]", "", "Task"},
		{"(*Task, error)", "", "Task"},
		{"List[str]", "", "List"},
		{"Store | None", "", "Store"},
		{"&mut Vec<u8>", "", "Vec"},
		{"[]*Item", "", "Item"},
		{"map[string]int", "", "map"},
		{"Promise<User>", "", "User"},
		{"'Forward'", "", "Forward"},
	} {
		q, n := typeName(tc.in)
		if q != tc.qual || n != tc.name {
			t.Errorf("typeName(%q) = %q, %q; want %q, %q", tc.in, q, n, tc.qual, tc.name)
		}
	}
}

// TestEdgeKinds: a value in a type's syntactic place (Go's handlers[name](n)
// parses as the instantiation F[T](x)) is read, not used as a type.
func TestEdgeKinds(t *testing.T) {
	for _, tc := range []struct {
		role   graph.Role
		target graph.SymbolKind
		want   []graph.EdgeKind
	}{
		{graph.RoleTypeUse, graph.KindVariable, []graph.EdgeKind{graph.EdgeReads}},
		{graph.RoleTypeUse, graph.KindConstant, []graph.EdgeKind{graph.EdgeReads}},
		{graph.RoleTypeUse | graph.RoleRead, graph.KindVariable, []graph.EdgeKind{graph.EdgeReads}},
		{graph.RoleTypeUse, graph.KindStruct, []graph.EdgeKind{graph.EdgeTypeUse}},
		{graph.RoleTypeUse, graph.KindFunction, []graph.EdgeKind{graph.EdgeTypeUse}},
		{graph.RoleRead, graph.KindFunction, []graph.EdgeKind{graph.EdgeReferences}},
		{graph.RoleCall, graph.KindFunction, []graph.EdgeKind{graph.EdgeCalls}},
	} {
		got := edgeKinds(tc.role, tc.target)
		if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("edgeKinds(%v, %v) = %v, want %v", tc.role, tc.target, got, tc.want)
		}
	}
}

// TestNameOnlyCap: a name-only use fans out to at most MaxCandidates
// definitions spelled like it; past that it stays unresolved (an edge to
// every Get of a codebase is noise).
func TestNameOnlyCap(t *testing.T) {
	syms := func(n int) []graph.Symbol {
		out := make([]graph.Symbol, n)
		for i := range out {
			out[i] = graph.Symbol{ID: graph.SymbolID("cairn python . . `m`/C" + string(rune('A'+i)) + "#get()."), Name: "get", Kind: graph.KindMethod}
		}
		return out
	}
	if ts := nameOnly(syms(MaxCandidates)); len(ts) != MaxCandidates || ts[0].conf != graph.ConfNameOnly {
		t.Errorf("%d candidates: %d targets, want each, name-only", MaxCandidates, len(ts))
	}
	if ts := nameOnly(syms(MaxCandidates + 1)); len(ts) != 0 {
		t.Errorf("%d candidates: %d targets, want none", MaxCandidates+1, len(ts))
	}
	if ts := nameOnly(nil); len(ts) != 0 {
		t.Errorf("no candidates: %d targets", len(ts))
	}
}
