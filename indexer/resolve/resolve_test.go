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
