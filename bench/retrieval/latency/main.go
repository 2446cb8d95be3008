package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

func main() {
	dir := flag.String("index", "", "index directory")
	n := flag.Int("n", 200, "queries")
	root := flag.String("engine", "", "search through the engine (engine.Open on this repository root, a snapshot per query, as the MCP, LSP and HTTP adapters do) instead of the bare fused engine")
	budget := flag.Int("context", 0, "also build context packs of this many tokens for the queries")
	cpuprof := flag.String("cpuprofile", "", "write a CPU profile of the context packs")
	searchprof := flag.String("searchprofile", "", "write a CPU profile of one query set's searches (-profileset)")
	profset := flag.String("profileset", "issue", "the query set -searchprofile profiles: issue or identifiers")
	flag.Parse()
	ctx := context.Background()
	start := time.Now()
	src, err := store.Open(ctx, store.Options{Dir: *dir})
	if err != nil {
		log.Fatal(err)
	}
	o, err := fuse.Open(ctx, src, fuse.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()
	fmt.Printf("open: %s (%d files, %d chunks)\n", time.Since(start).Round(time.Millisecond), o.Meta.Files, o.Meta.Chunks)
	var docs []string
	var syms []graph.Symbol
	defsNamed := map[string]int{} // definitions per bare name
	o.Store.AllSymbols(ctx, func(s graph.Symbol) error {
		defsNamed[s.Name]++
		if line, _, _ := strings.Cut(s.Doc, "\n"); len(line) > 30 && s.Kind.IsCallable() {
			docs = append(docs, line)
			syms = append(syms, s)
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(42, 42))
	rng.Shuffle(len(docs), func(i, j int) {
		docs[i], docs[j] = docs[j], docs[i]
		syms[i], syms[j] = syms[j], syms[i]
	})
	if len(docs) > *n {
		docs, syms = docs[:*n], syms[:*n]
	}
	// Issue-shaped queries run every generator: a title (a doc line), a
	// body naming the function, a stack frame of its file and an error
	// line (another function's doc line: a message no file holds
	// verbatim, the message generator's costliest case).
	issues := make([]string, len(docs))
	for i, s := range syms {
		issues[i] = fmt.Sprintf("%s\n\nCalling `%s` from our service fails after the upgrade:\n\n"+
			"  File \"/srv/app/%s\", line %d, in %s\nerror: %s\n\nIt worked in the previous release.",
			docs[i], s.Name, s.Path, s.Range.StartLine+1, s.Name, docs[(i+1)%len(docs)])
	}
	// Identifier queries: a sampled definition's bare name, what an editor
	// or an agent asks most often (issue 21's "identifier search").
	names := make([]string, len(syms))
	for i, s := range syms {
		names[i] = s.Name
	}
	// search returns the top hits' places (path, 1-based first and last
	// line), to see where a queried definition lands.
	type place struct {
		path       string
		start, end int
		name       string // the hit's definition's bare name; "" for none
	}
	search := func(q string, only []string) ([]place, error) {
		res, err := o.Search(ctx, q, fuse.Options{Only: only})
		var out []place
		for _, h := range res.Hits {
			_, base := graph.SplitQualified(h.Name)
			out = append(out, place{h.Path, int(h.StartLine) + 1, int(h.EndLine) + 1, base})
		}
		return out, err
	}
	if *root != "" {
		eng, err := engine.Open(ctx, engine.Options{Root: *root, IndexDir: *dir})
		if err != nil {
			log.Fatal(err)
		}
		defer eng.Close()
		search = func(q string, only []string) ([]place, error) {
			snap, err := eng.Acquire(ctx)
			if err != nil {
				return nil, err
			}
			defer snap.Release()
			res, err := snap.Search(ctx, engine.SearchOptions{Query: q, Limit: 20, Only: only})
			if err != nil {
				return nil, err
			}
			var out []place
			for _, h := range res.Hits {
				_, base := graph.SplitQualified(h.Symbol)
				out = append(out, place{h.Path, h.StartLine, h.EndLine, base})
			}
			return out, nil
		}
	}
	for _, set := range []struct {
		name    string
		only    []string
		queries []string
		names   bool // the identifier set: score where the definition lands
		profile bool // -searchprofile profiles this set
	}{{"fused (all generators)", nil, docs, false, false}, {"fused, issue-shaped", nil, issues, false, *profset == "issue"},
		{"fused, identifiers", nil, names, true, *profset == "identifiers"},
		{"identifiers, no vector or graph", []string{"text", "file", "symbol", "path", "rank"}, names, true, false},
		{"text", []string{"text", "file"}, docs, false, false}, {"vector", []string{"vector"}, docs, false, false}} {
		var lat []time.Duration
		// identifier queries: is the first hit a definition of the name, is
		// the sampled one in the top 5, and for names defined once, is it
		// first
		named, top5, unique, uniqueFirst := 0, 0, 0, 0
		if *searchprof != "" && set.profile {
			f, err := os.Create(*searchprof)
			if err != nil {
				log.Fatal(err)
			}
			pprof.StartCPUProfile(f)
		}
		// CPU time (the process's, all threads) is the steadier number on
		// a shared machine, where wall time counts what others take
		cpu0 := cpuTime()
		for i, q := range set.queries {
			t := time.Now()
			hits, err := search(q, set.only)
			if err != nil {
				log.Fatal(err)
			}
			if set.names {
				d := syms[i]
				at := func(h place) bool {
					return h.path == d.Path && h.start <= int(d.Range.StartLine)+1 && int(d.Range.StartLine)+1 <= h.end
				}
				if len(hits) > 0 && hits[0].name == d.Name {
					named++
				}
				if defsNamed[d.Name] == 1 {
					unique++
					if len(hits) > 0 && at(hits[0]) {
						uniqueFirst++
					} else if os.Getenv("LATENCY_SHOW") != "" && len(hits) > 0 {
						fmt.Fprintf(os.Stderr, "%s (%s): %s:%d; #1 %s:%d %s\n", q, set.name, d.Path, d.Range.StartLine+1, hits[0].path, hits[0].start, hits[0].name)
					}
				}
				if slices.ContainsFunc(hits[:min(5, len(hits))], at) {
					top5++
				}
			}
			if i > 0 { // the first query warms caches
				lat = append(lat, time.Since(t))
			}
		}
		cpu := (cpuTime() - cpu0) / time.Duration(len(set.queries))
		if *searchprof != "" && set.profile {
			pprof.StopCPUProfile()
		}
		slices.Sort(lat)
		p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))].Round(100 * time.Microsecond) }
		fmt.Printf("%-32s n=%d p50=%s p95=%s max=%s cpu/query=%s", set.name, len(lat), p(0.5), p(0.95), lat[len(lat)-1].Round(time.Millisecond), cpu.Round(100*time.Microsecond))
		if set.names {
			fmt.Printf("  #1 defines the name %d/%d, the definition in top 5 %d; names defined once: #1 %d/%d", named, len(set.queries), top5, uniqueFirst, unique)
		}
		fmt.Println()
	}
	if *budget > 0 {
		tok, err := contextpack.NewTokenizer("")
		if err != nil {
			log.Fatal(err)
		}
		b := &contextpack.Builder{Engine: o.Engine, Root: o.Meta.Root, Meta: o.Meta, Tokenizer: tok}
		if *cpuprof != "" {
			f, err := os.Create(*cpuprof)
			if err != nil {
				log.Fatal(err)
			}
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		var lat []time.Duration
		for i, q := range docs[:min(len(docs), 60)] {
			t := time.Now()
			if _, err := b.Build(ctx, contextpack.Request{Task: q, Budget: *budget, Format: "json"}); err != nil {
				log.Fatal(err)
			}
			if i > 0 {
				lat = append(lat, time.Since(t))
			}
		}
		slices.Sort(lat)
		p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))].Round(100 * time.Microsecond) }
		fmt.Printf("%-24s n=%d p50=%s p95=%s max=%s\n", fmt.Sprintf("context pack %d tokens", *budget), len(lat), p(0.5), p(0.95), lat[len(lat)-1].Round(time.Millisecond))
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
