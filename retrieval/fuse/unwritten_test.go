package fuse_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/fuse"
)

// TestUnwrittenGenerator: an issue naming a type and a field of it that
// "is not set" finds the function that builds the type without writing
// the field; the one that writes it, the type's own methods and tests are
// not found by it, and a query naming the type alone runs nothing.
func TestUnwrittenGenerator(t *testing.T) {
	o := openWith(t, map[string]string{
		"go.mod": "module example.com/x\n\ngo 1.22\n",
		"stats/stats.go": `package stats

// InPayload is what a handler is told of a received message.
type InPayload struct {
	Length     int
	WireLength int
}

// IsClient says the payload was received by a client.
func (p *InPayload) IsClient() bool { return p.Length < 0 }
`,
		"server/server.go": `package server

import "example.com/x/stats"

func handleUnary(n int) *stats.InPayload {
	return &stats.InPayload{Length: n}
}
`,
		"client/client.go": `package client

import "example.com/x/stats"

func receive(n, wire int) *stats.InPayload {
	return &stats.InPayload{Length: n, WireLength: wire}
}
`,
		"server/server_test.go": `package server

import (
	"testing"

	"example.com/x/stats"
)

func checkPayload(t *testing.T, p *stats.InPayload) {
	if p.Length == 0 {
		t.Fatal(p)
	}
}
`,
	})
	ctx := context.Background()
	found := func(q string) []string {
		res, err := o.Search(ctx, q, fuse.Options{Limit: 20, Only: []string{fuse.GenUnwritten}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			if _, ok := h.Ranks[fuse.GenUnwritten]; ok {
				out = append(out, h.Name)
			}
		}
		return out
	}
	got := found("WireLength is not set on the stats.InPayload passed to the stats handler")
	if !slices.Equal(got, []string{"handleUnary"}) {
		t.Errorf("unwritten found %q, want only handleUnary", got)
	}
	if got := found("the stats.InPayload passed to the stats handler is wrong"); len(got) > 0 {
		t.Errorf("no field named, yet unwritten found %q", got)
	}
	// fused, the function that leaves the field out is among the first hits
	res, err := o.Search(ctx, "WireLength is not set on the stats.InPayload passed to the stats handler", fuse.Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(res.Hits), "handleUnary") {
		t.Errorf("fused top 5 lacks handleUnary: %q", names(res.Hits))
	}
}
