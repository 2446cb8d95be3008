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
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

func main() {
	dir := flag.String("index", "", "index directory")
	n := flag.Int("n", 200, "queries")
	budget := flag.Int("context", 0, "also build context packs of this many tokens for the queries")
	cpuprof := flag.String("cpuprofile", "", "write a CPU profile of the context packs")
	searchprof := flag.String("searchprofile", "", "write a CPU profile of the fused issue-shaped searches")
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
	o.Store.AllSymbols(ctx, func(s graph.Symbol) error {
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
	for _, set := range []struct {
		name    string
		only    []string
		queries []string
		profile bool // -searchprofile profiles this set
	}{{"fused (all generators)", nil, docs, false}, {"fused, issue-shaped", nil, issues, true},
		{"text", []string{"text", "file"}, docs, false}, {"vector", []string{"vector"}, docs, false}} {
		var lat []time.Duration
		if *searchprof != "" && set.profile {
			f, err := os.Create(*searchprof)
			if err != nil {
				log.Fatal(err)
			}
			pprof.StartCPUProfile(f)
		}
		for i, q := range set.queries {
			t := time.Now()
			if _, err := o.Search(ctx, q, fuse.Options{Only: set.only}); err != nil {
				log.Fatal(err)
			}
			if i > 0 { // the first query warms caches
				lat = append(lat, time.Since(t))
			}
		}
		if *searchprof != "" && set.profile {
			pprof.StopCPUProfile()
		}
		slices.Sort(lat)
		p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))].Round(100 * time.Microsecond) }
		fmt.Printf("%-24s n=%d p50=%s p95=%s max=%s\n", set.name, len(lat), p(0.5), p(0.95), lat[len(lat)-1].Round(time.Millisecond))
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
