package graph_test

import (
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestPeripheral: what the map ranks after the project's own code.
func TestPeripheral(t *testing.T) {
	for _, c := range []struct {
		path, sig string
		lang      graph.Language
		kind      graph.SymbolKind
		want      string
	}{
		{"graph/view.go", "", graph.LangGo, graph.KindStruct, ""},
		{"graph/graphtest/fixture.go", "", graph.LangGo, graph.KindFunction, "test helper"},
		{"pkg/latest/x.go", "", graph.LangGo, graph.KindFunction, ""},
		{"tests/helpers.py", "", graph.LangPython, graph.KindFunction, "test helper"},
		{"src/app/testing/util.py", "", graph.LangPython, graph.KindFunction, "test helper"},
		{"conftest.py", "", graph.LangPython, graph.KindFunction, "test helper"},
		{"internal/mocks/store.go", "", graph.LangGo, graph.KindStruct, "test helper"},
		{"api/v1/service.pb.go", "", graph.LangGo, graph.KindStruct, "generated"},
		{"proto/service_pb2.py", "", graph.LangPython, graph.KindClass, "generated"},
		{"ast/nodes_gen.go", "", graph.LangGo, graph.KindStruct, "generated"},
		{"apis/zz_generated.deepcopy.go", "", graph.LangGo, graph.KindMethod, "generated"},
		{"lib.py", `T = TypeVar("T")`, graph.LangPython, graph.KindConstant, "type variable"},
		{"lib.py", `P = typing.ParamSpec("P")`, graph.LangPython, graph.KindVariable, "type variable"},
		{"lib.py", `TIMEOUT = 30`, graph.LangPython, graph.KindConstant, ""},
		{"lib.py", `def TypeVar(x):`, graph.LangPython, graph.KindFunction, ""},
	} {
		s := graph.Symbol{Path: c.path, Signature: c.sig, Lang: c.lang, Kind: c.kind}
		if got := graph.Peripheral(&s); got != c.want {
			t.Errorf("Peripheral(%s %q) = %q, want %q", c.path, c.sig, got, c.want)
		}
	}
}
