package embedded

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestSetRanksBulk: ranks of more symbols than bulkRanks are found by one
// scan of the interned ids and read back as set — those of symbols the run
// interned and those of an earlier generation — and a rank of a symbol
// interned nowhere is interned, not lost.
func TestSetRanksBulk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	n := bulkRanks + 500
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("F%05d", i)
	}
	commit(t, dir, map[string][]string{"a.go": names[:n/2]}) // an earlier generation
	w, err := NewWriter(ctx, WriterOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Known(ctx); err != nil {
		t.Fatal(err)
	}
	ff := &graph.FileFacts{File: graph.File{Path: "b.go", Lang: graph.LangGo, Hash: "b", Status: graph.ParseOK}}
	for i, nm := range names[n/2:] {
		ff.Symbols = append(ff.Symbols, graph.Symbol{ID: graph.SymbolID("cairn go p . " + nm + "()."), Name: nm, Kind: graph.KindFunction,
			Lang: graph.LangGo, Path: "b.go", Parent: -1, Range: graph.Range{StartByte: uint32(10 * i), EndByte: uint32(10*i + 5)}})
	}
	if _, err := w.PutFile(ctx, ff); err != nil {
		t.Fatal(err)
	}
	ranks := map[graph.SymbolID]float64{}
	for i, nm := range names {
		ranks[graph.SymbolID("cairn go p . "+nm+"().")] = float64(i) + 0.5
	}
	stray := graph.SymbolID("cairn go q . Stray().")
	for _, with := range []bool{false, true} {
		if with {
			ranks[stray] = 7
		}
		if err := w.SetRanks(ctx, ranks); err != nil {
			t.Fatal(err)
		}
		ids := make([]graph.SymbolID, 0, len(ranks))
		for id := range ranks {
			ids = append(ids, id)
		}
		got, err := w.View().Ranks(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(ranks) {
			t.Fatalf("stray %v: %d ranks read back, want %d", with, len(got), len(ranks))
		}
		for id, r := range ranks {
			if got[id] != r {
				t.Fatalf("stray %v: rank of %s is %v, want %v", with, id, got[id], r)
			}
		}
	}
	w.Abort()
}
