package fuse_test

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// TestChangeGenerator: a query asking to export one name and deprecate
// another finds their definitions first, then the functions that use
// them (a file at a time, the file with more uses first), the exported
// spelling's existing hook and its reader; not a test that uses them,
// nor a function that merely shares words with them. A query that names
// the functions without asking to change them runs nothing.
func TestChangeGenerator(t *testing.T) {
	o := openWith(t, map[string]string{
		"go.mod": "module example.com/x\n\ngo 1.22\n",
		"dial/options.go": `package dial

import "example.com/x/internal"

// Option configures a dial.
type Option func(*config)

type config struct{ dialer func(string) error }

func withContextDialer(f func(string) error) Option {
	return func(c *config) { c.dialer = f }
}

func init() {
	internal.WithContextDialer = withContextDialer
}

// WithDialer sets the dialer.
func WithDialer(f func(string) error) Option {
	return withContextDialer(f)
}
`,
		"internal/internal.go": `package internal

// WithContextDialer is set by package dial.
var WithContextDialer interface{}
`,
		"bench/bench.go": `package bench

import "example.com/x/dial"

func runUnary() dial.Option {
	return dial.WithDialer(nil)
}

func runStream() dial.Option {
	return dial.WithDialer(nil)
}
`,
		"cmd/main.go": `package main

import "example.com/x/dial"

func makeClient() dial.Option {
	return dial.WithDialer(nil)
}

func main() { makeClient() }
`,
		"lb/remote.go": `package lb

import "example.com/x/internal"

func dialRemote() interface{} {
	return internal.WithContextDialer
}
`,
		"lb/dialer_words.go": `package lb

// contextDialerWords talks of a context dialer and with dialer, but uses neither.
func contextDialerWords() string { return "with context dialer" }
`,
		"bench/bench_test.go": `package bench

import (
	"testing"

	"example.com/x/dial"
)

func TestDial(t *testing.T) { _ = dial.WithDialer(nil) }
`,
	})
	ctx := context.Background()
	found := func(q string) []string {
		res, err := o.Search(ctx, q, fuse.Options{Limit: 20, Only: []string{fuse.GenChange}})
		if err != nil {
			t.Fatal(err)
		}
		type ranked struct {
			name string
			r    int
		}
		var rs []ranked
		for _, h := range res.Hits {
			if r, ok := h.Ranks[fuse.GenChange]; ok {
				rs = append(rs, ranked{cmp.Or(h.Name, h.Path), r})
			}
		}
		slices.SortFunc(rs, func(a, b ranked) int { return a.r - b.r })
		var out []string
		for _, x := range rs {
			out = append(out, x.name)
		}
		return out
	}
	got := found("Consider export withContextDialer and deprecate WithDialer\nThere is no way to reach the context dialer.")
	want := []string{
		// the definitions, in the order the query names them, the
		// exported spelling's hook (a variable: its file's chunk) after
		// the name itself
		"withContextDialer", "internal/internal.go", "WithDialer",
		// then a use in each file, the file with more uses first (the
		// hook's assignment in init counts for both names), then by path
		"init", "runUnary", "makeClient", "dialRemote",
		// then the second uses
		"runStream",
	}
	if !slices.Equal(got, want) {
		t.Errorf("change ranked\n %q\nwant\n %q", got, want)
	}
	// each hit says which name it is for, and why that name
	res0, err := o.Search(ctx, "Consider export withContextDialer and deprecate WithDialer", fuse.Options{Limit: 20, Only: []string{fuse.GenChange}})
	if err != nil {
		t.Fatal(err)
	}
	whys := map[string]string{}
	for _, h := range res0.Hits {
		whys[cmp.Or(h.Name, h.Path)] = h.Why
	}
	for name, want := range map[string]string{
		"runUnary":             "uses WithDialer, which the query asks to change",
		"dialRemote":           "uses WithContextDialer, the other case of withContextDialer, which the query asks to export or unexport",
		"internal/internal.go": "defines WithContextDialer, the other case of withContextDialer, which the query asks to export or unexport",
	} {
		if whys[name] != want {
			t.Errorf("%s: why %q, want %q", name, whys[name], want)
		}
	}
	if got := found("WithDialer and withContextDialer do not pass the context"); len(got) > 0 {
		t.Errorf("no change asked for, yet the generator ranked %q", got)
	}
	// fused, the uses the query's words do not name are among the files,
	// each ranked as a file by the generator too, in its hits' order
	res, err := o.Search(ctx, "Consider export withContextDialer and deprecate WithDialer", fuse.Options{Limit: 10, Dump: true})
	if err != nil {
		t.Fatal(err)
	}
	var ranked []string
	for _, e := range res.Dump {
		if e.Gen == fuse.GenChange && e.File {
			for len(ranked) < e.Rank {
				ranked = append(ranked, "")
			}
			ranked[e.Rank-1] = e.Path
		}
	}
	if want := []string{"dial/options.go", "internal/internal.go", "bench/bench.go", "cmd/main.go", "lb/remote.go"}; !slices.Equal(ranked, want) {
		t.Errorf("change ranked the files %q, want %q", ranked, want)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path)
	}
	for _, p := range []string{"bench/bench.go", "cmd/main.go", "lb/remote.go", "internal/internal.go"} {
		if i := slices.Index(files, p); i < 0 || i > 4 {
			t.Errorf("fused files %q: %s not in the first five", files, p)
		}
	}
}

// TestChangeLibraryName: a deprecated library function the index does not
// define is followed to its uses — those selected from the qualifier the
// query names, not another package's function of the same name.
func TestChangeLibraryName(t *testing.T) {
	o := openWith(t, map[string]string{
		"go.mod": "module example.com/x\n\ngo 1.22\n",
		"a/a.go": `package a

import "strings"

func header(s string) string { return strings.Title(s) }
`,
		"b/b.go": `package b

import "strings"

func label(s string) string { return strings.Title(strings.TrimSpace(s)) }
`,
		"c/c.go": `package c

import "example.com/x/text"

func caption(s string) string { return text.Title(s) }
`,
		"text/text.go": `package text

// Title is this module's own.
func Title(s string) string { return s }
`,
	})
	res, err := o.Search(context.Background(), "replace the deprecated strings.Title with cases.Title",
		fuse.Options{Limit: 20, Only: []string{fuse.GenChange}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		if _, ok := h.Ranks[fuse.GenChange]; ok {
			got = append(got, h.Name)
		}
	}
	slices.Sort(got)
	if want := []string{"header", "label"}; !slices.Equal(got, want) {
		t.Errorf("change found %q, want %q", got, want)
	}
}
