package treesitter

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// FuzzExtract feeds arbitrary bytes to every grammar and checks the facts'
// invariants: no recovered panic, ranges inside the file, indexes valid.
func FuzzExtract(f *testing.F) {
	f.Add(uint8(graph.LangGo), []byte("package p\nfunc (s *S) M() { s.x++ }\n"))
	f.Add(uint8(graph.LangPython), []byte("class A:\n    def m(self):\n        self.x = 1\n"))
	f.Add(uint8(graph.LangTypeScript), []byte("export class A extends B { m(): void { this.x = 1 } }"))
	f.Add(uint8(graph.LangJava), []byte("class A { int x; void m() { x++; } }"))
	f.Add(uint8(graph.LangRust), []byte("impl A { fn m(&self) {} }"))
	f.Add(uint8(graph.LangCpp), []byte("namespace n { void A::m() { x = 1; } }"))
	f.Add(uint8(graph.LangC), []byte("struct s { int x; }; int f(void) { return 0; }"))
	f.Add(uint8(graph.LangJavaScript), []byte("const f = () => { a.b = {c: 1} }"))
	f.Add(uint8(graph.LangTSX), []byte("export const A = () => <B x={1} />"))
	x := New(Options{})
	f.Cleanup(x.Close)
	f.Fuzz(func(t *testing.T, l uint8, src []byte) {
		lang := graph.Language(l % uint8(graph.LangCpp+1))
		if !Supported(lang) {
			return
		}
		ff, err := x.Extract(context.Background(), "f", lang, src)
		if err != nil && strings.Contains(err.Error(), "panic") {
			t.Fatalf("extractor panicked: %v", err)
		}
		n := uint32(len(src))
		inFile := func(r graph.Range) bool {
			return r.StartByte <= r.EndByte && r.EndByte <= n && r.StartLine <= r.EndLine
		}
		for i, s := range ff.Symbols {
			if !inFile(s.Range) || !inFile(s.NameRange) || s.Parent >= int32(i) {
				t.Fatalf("bad symbol %+v", s)
			}
		}
		for i, o := range ff.Occurrences {
			if !inFile(o.Range) || o.Enclosing >= int32(len(ff.Symbols)) {
				t.Fatalf("bad occurrence %+v", o)
			}
			if i > 0 && o.Range.StartByte < ff.Occurrences[i-1].Range.StartByte {
				t.Fatalf("occurrences out of order")
			}
		}
		for _, c := range ff.Chunks {
			if !inFile(c.Range) {
				t.Fatalf("bad chunk %+v", c)
			}
		}
	})
}
