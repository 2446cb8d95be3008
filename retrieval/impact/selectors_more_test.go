package impact

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
)

func TestKotlinScalaSwiftSelectors(t *testing.T) {
	for _, c := range []struct {
		sym  graph.Symbol
		want string
	}{
		{graph.Symbol{Lang: graph.LangKotlin, Kind: graph.KindMethod, Name: "addsItems", Container: "CartTest", Package: "com.shop"}, "com.shop.CartTest.addsItems"},
		{graph.Symbol{Lang: graph.LangKotlin, Kind: graph.KindClass, Name: "CartSpec", Package: "com.shop"}, "com.shop.CartSpec"},
		{graph.Symbol{Lang: graph.LangScala, Kind: graph.KindClass, Name: "CartSpec", Package: "shop"}, "shop.CartSpec"},
		{graph.Symbol{Lang: graph.LangSwift, Kind: graph.KindMethod, Name: "testAdd", Container: "CartTests"}, "CartTests/testAdd"},
		{graph.Symbol{Lang: graph.LangSwift, Kind: graph.KindClass, Name: "CartTests"}, "CartTests"},
	} {
		if got := jvmSwiftSelector(&c.sym); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.sym.Lang, c.sym.Name, got, c.want)
		}
	}
	got := otherCommands(map[graph.Language][]otherSel{
		graph.LangKotlin: {{"app", "com.shop.CartTest.b"}, {"app", "com.shop.CartTest.a"}},
		graph.LangScala:  {{"", "shop.CartSpec"}},
		graph.LangSwift:  {{".", "CartTests/testAdd"}},
	})
	want := []string{
		"cd app && gradle test --tests 'com.shop.CartTest.a' --tests 'com.shop.CartTest.b'",
		`sbt "testOnly shop.CartSpec"`,
		"swift test --filter 'CartTests/testAdd'",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}
