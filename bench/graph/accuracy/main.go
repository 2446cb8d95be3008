package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/embedded"
)

type site struct {
	path string
	at   uint32
}

type defLoc struct {
	path string
	at   uint32
}

type edge struct {
	s site
	d defLoc
}

type counts struct {
	Heuristic, Precise, Both int
	Unverifiable             int
	Precision, Recall        float64
}

func main() {
	heur := flag.String("heuristic", "", "index directory built without SCIP")
	prec := flag.String("precise", "", "index directory built with the SCIP index")
	label := flag.String("label", "", "row label")
	missesOut := flag.Int("misses", 0, "print this many missed/wrong call edges")
	flag.Parse()
	ctx := context.Background()
	h, err := embedded.Open(*heur)
	if err != nil {
		log.Fatal(err)
	}
	p, err := embedded.Open(*prec)
	if err != nil {
		log.Fatal(err)
	}
	// definitions by symbol in each index
	defsOf := func(s *embedded.Store) map[graph.SymbolID][]defLoc {
		m := map[graph.SymbolID][]defLoc{}
		s.AllSymbols(ctx, func(sym graph.Symbol) error {
			m[sym.ID] = append(m[sym.ID], defLoc{sym.Path, sym.NameRange.StartByte})
			return nil
		})
		return m
	}
	hDefs, pDefs := defsOf(h), defsOf(p)
	files, err := p.Files(ctx)
	if err != nil {
		log.Fatal(err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		if f.SCIP != "" {
			covered[f.Path] = true
		}
	}
	// precise edges and call sites, from the merged occurrences
	pCalls, pRefs := map[edge]bool{}, map[edge]bool{}
	callSite := map[site]bool{}
	known := map[site]bool{} // sites where the SCIP index has a symbol
	for path := range covered {
		ff, err := p.FileFacts(ctx, path)
		if err != nil {
			log.Fatal(err)
		}
		for _, o := range ff.Occurrences {
			if o.Role&graph.RoleDefinition != 0 || o.Role&graph.RoleImport != 0 {
				continue
			}
			st := site{path, o.Range.StartByte}
			if o.Role&graph.RoleCall != 0 {
				callSite[st] = true
			}
			if o.Symbol == "" || o.Confidence != graph.ConfPrecise {
				continue
			}
			known[st] = true
			if o.Symbol.IsLocal() {
				continue
			}
			for _, d := range pDefs[o.Symbol] {
				e := edge{st, d}
				pRefs[e] = true
				if o.Role&graph.RoleCall != 0 {
					pCalls[e] = true
				}
			}
		}
	}
	// heuristic edges, from the edge table
	hCalls, hRefs := map[edge]bool{}, map[edge]bool{}
	unverCalls, unverRefs := 0, 0
	ctors := map[graph.SymbolID]bool{}
	h.AllSymbols(ctx, func(sym graph.Symbol) error {
		if sym.Kind == graph.KindConstructor {
			ctors[sym.ID] = true
		}
		return nil
	})
	rows, err := h.DB().QueryContext(ctx, `SELECT f.path, e.start_byte, e.kind, b.sid FROM edges e
		JOIN files f ON f.id = e.file_id JOIN sids b ON b.id = e.dst WHERE e.kind IN (?,?,?,?,?)`,
		int(graph.EdgeCalls), int(graph.EdgeReferences), int(graph.EdgeReads), int(graph.EdgeWrites), int(graph.EdgeTypeUse))
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		var path string
		var at uint32
		var kind int
		var dst graph.SymbolID
		if err := rows.Scan(&path, &at, &kind, &dst); err != nil {
			log.Fatal(err)
		}
		if !covered[path] || ctors[dst] {
			continue
		}
		st := site{path, at}
		if !known[st] {
			unverRefs++
			if graph.EdgeKind(kind) == graph.EdgeCalls && callSite[st] {
				unverCalls++
			}
			continue
		}
		for _, d := range hDefs[dst] {
			e := edge{st, d}
			hRefs[e] = true
			if graph.EdgeKind(kind) == graph.EdgeCalls && callSite[st] {
				hCalls[e] = true
			}
		}
	}
	rows.Close()
	score := func(hs, ps map[edge]bool) counts {
		c := counts{Heuristic: len(hs), Precise: len(ps)}
		for e := range hs {
			if ps[e] {
				c.Both++
			}
		}
		if c.Heuristic > 0 {
			c.Precision = float64(c.Both) / float64(c.Heuristic)
		}
		if c.Precise > 0 {
			c.Recall = float64(c.Both) / float64(c.Precise)
		}
		return c
	}
	calls, refs := score(hCalls, pCalls), score(hRefs, pRefs)
	calls.Unverifiable, refs.Unverifiable = unverCalls, unverRefs
	out := map[string]any{"label": *label, "files": len(covered), "calls": calls, "references": refs}
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(out)
	if *missesOut > 0 {
		var miss []string
		for e := range pCalls {
			if !hCalls[e] {
				miss = append(miss, fmt.Sprintf("missed %s@%d -> %s@%d", e.s.path, e.s.at, e.d.path, e.d.at))
			}
		}
		for e := range hCalls {
			if !pCalls[e] {
				miss = append(miss, fmt.Sprintf("wrong  %s@%d -> %s@%d", e.s.path, e.s.at, e.d.path, e.d.at))
			}
		}
		sort.Strings(miss)
		for i, m := range miss {
			if i >= *missesOut {
				break
			}
			fmt.Fprintln(os.Stderr, m)
		}
	}
	_ = sql.ErrNoRows
}
