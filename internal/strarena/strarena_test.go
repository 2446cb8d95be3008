package strarena

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestStringsAreCopiesThatStay(t *testing.T) {
	a := New(64)
	src := []byte("hello world")
	s := a.String(string(src[:5]))
	long := a.String(strings.Repeat("x", 40)) // over a quarter of a block: its own
	var many []string
	for i := range 100 {
		many = append(many, a.String(fmt.Sprintf("name-%03d", i)))
	}
	src[0] = 'J'
	runtime.GC()
	if s != "hello" || long != strings.Repeat("x", 40) {
		t.Fatalf("got %q %q", s, long)
	}
	for i, m := range many {
		if want := fmt.Sprintf("name-%03d", i); m != want {
			t.Fatalf("string %d: %q, want %q (a block was overwritten)", i, m, want)
		}
	}
	if a.String("") != "" {
		t.Fatal("empty input must stay empty")
	}
}

// live counts the heap objects still reachable after a collection.
func live() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapObjects
}

// TestFewHeapObjects is the point of the package: 200,000 strings held
// in an arena are a few hundred heap objects, not 200,000.
func TestFewHeapObjects(t *testing.T) {
	const n = 200_000
	before := live()
	a := New(0)
	keep := make([]string, n)
	for i := range keep {
		keep[i] = a.String(fmt.Sprintf("symbol/%d#field.", i))
	}
	grown := live() - before
	if grown > 1000 {
		t.Fatalf("%d strings in the arena left %d more live heap objects (want a few blocks)", n, grown)
	}
	runtime.KeepAlive(keep)

	// The same strings allocated one by one: the test can tell.
	before = live()
	own := make([]string, n)
	for i := range own {
		own[i] = fmt.Sprintf("symbol/%d#field.", i)
	}
	if g := live() - before; g < n/2 {
		t.Fatalf("control: %d strings allocated one by one left only %d live objects; the measure is broken", n, g)
	}
	runtime.KeepAlive(own)
}
