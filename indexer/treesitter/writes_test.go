package treesitter

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
)

// TestCompoundWrites pins the write role of every compound form that
// changes a member (or a variable) in each language that has it: augmented
// assignment (+=, ??=, <<=, …), ++/-- on either side, and destructuring
// assignment into members. trace and `refs --role write` list writers from
// these roles: a grammar query that recorded `o.hits += 1` as a read alone
// would hide a writer from both, and no golden file shows every form.
//
// In each source, a line ending in the marker W must hold an occurrence of
// `hits` whose role includes write; a line ending in R one whose role is
// read without write (so a query that marked everything a write fails too).
func TestCompoundWrites(t *testing.T) {
	cases := []struct {
		file, src string
	}{
		{"a.go", `package a
type T struct{ hits int }
func f(o *T, p T) {
	o.hits += 2 // W
	o.hits -= 1 // W
	o.hits <<= 1 // W
	o.hits++ // W
	p.hits-- // W
	o.hits, p.hits = 1, 2 // W
	_ = o.hits + 1 // R
}
`},
		{"a.py", `class T:
    def f(self, o, src):
        self.hits += 1  # W
        o.hits //= 2  # W
        o.hits **= 2  # W
        o.hits, self.x = src  # W
        (o.hits, self.y) = src  # W
        [o.hits, self.z] = src  # W
        return o.hits + 1  # R
`},
		{"a.js", `function f(o, src) {
  o.hits += 1; // W
  o.hits ??= 0; // W
  o.hits ||= 1; // W
  o.hits &&= 2; // W
  o.hits **= 2; // W
  o.hits++; // W
  --o.hits; // W
  ({ a: o.hits } = src); // W
  [o.hits] = src; // W
  return o.hits + 1; // R
}
`},
		{"a.ts", `function f(o: { hits: number }, src: any): number {
  o.hits += 1; // W
  o.hits ??= 0; // W
  o.hits >>>= 1; // W
  o.hits++; // W
  ++o.hits; // W
  ({ a: o.hits } = src); // W
  [o.hits] = src; // W
  return o.hits + 1; // R
}
`},
		{"a.tsx", `export function f(o: { hits: number }, src: any) {
  o.hits += 1; // W
  o.hits ??= 0; // W
  o.hits--; // W
  ({ a: o.hits } = src); // W
  [o.hits] = src; // W
  return <b>{o.hits + 1}</b>; // R
}
`},
		{"A.java", `class A {
  int hits;
  void f(A o) {
    o.hits += 1; // W
    this.hits >>>= 1; // W
    o.hits++; // W
    --o.hits; // W
    int x = o.hits + 1; // R
  }
}
`},
		{"a.rs", `struct T { hits: i32 }
fn f(o: &mut T) -> i32 {
    o.hits += 1; // W
    o.hits <<= 1; // W
    (*o).hits *= 2; // W
    let y = o.hits; // R
    o.hits + y // R
}
`},
		{"a.c", `struct t { int hits; };
int f(struct t *o, struct t p) {
  o->hits += 1; // W
  p.hits |= 4; // W
  o->hits++; // W
  ++p.hits; // W
  --o->hits; // W
  return o->hits + 1; // R
}
`},
		{"a.cpp", `struct T { int hits; };
int f(T *o, T &p) {
  o->hits += 1; // W
  p.hits ^= 4; // W
  o->hits++; // W
  ++p.hits; // W
  return p.hits + 1; // R
}
`},
	}
	x := New(Options{})
	defer x.Close()
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src := []byte(c.src)
			lang, _, _ := walk.Classify(c.file, walk.LanguageOf(c.file), src)
			ff, err := x.Extract(context.Background(), c.file, lang, src)
			if err != nil {
				t.Fatal(err)
			}
			roles := map[uint32]graph.Role{} // line → the roles of hits on it
			for _, o := range ff.Occurrences {
				if o.Name == "hits" && o.Role&graph.RoleDefinition == 0 {
					roles[o.Range.StartLine] |= o.Role
				}
			}
			lines := strings.Split(c.src, "\n")
			checked := 0
			for i, l := range lines {
				l = strings.TrimSpace(l)
				if !strings.HasSuffix(l, " W") && !strings.HasSuffix(l, " R") {
					continue
				}
				got := roles[uint32(i+1)] // Range lines are 1-based
				checked++
				switch {
				case strings.HasSuffix(l, " W") && got&graph.RoleWrite == 0:
					t.Errorf("line %d %q: hits has roles %v, want a write", i+1, l, got)
				case strings.HasSuffix(l, " R") && (got&graph.RoleRead == 0 || got&graph.RoleWrite != 0):
					t.Errorf("line %d %q: hits has roles %v, want a read alone", i+1, l, got)
				}
			}
			if checked < 5 {
				t.Fatalf("only %d marked lines", checked)
			}
		})
	}
}
