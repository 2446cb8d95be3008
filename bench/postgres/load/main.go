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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/graph/postgres"
	gstore "github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/retrieval/fuse"
)

func main() {
	store := flag.String("store", "", "PostgreSQL URL")
	repo := flag.String("repo", "", "repository name in the store")
	index := flag.String("index", "", "embedded index directory (instead of -store)")
	mode := flag.String("mode", "callers", "callers, search or recall")
	clients := flag.Int("clients", 16, "concurrent clients")
	n := flag.Int("n", 400, "requests in all (recall: queries)")
	depth := flag.Int("depth", 3, "callers depth")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured part")
	flag.Parse()
	ctx := context.Background()

	var o *fuse.Opened
	var err error
	start := time.Now()
	if *store != "" && *mode == "recall" {
		s, err := postgres.Open(ctx, *store, *repo, postgres.Options{MaxConns: int32(*clients) + 4})
		if err != nil {
			log.Fatal(err)
		}
		recall(ctx, s, *n)
		return
	}
	src, err := gstore.Open(ctx, gstore.Options{Dir: *index, URL: *store, RepoName: *repo, MaxConns: int32(*clients) + 4})
	if err != nil {
		log.Fatal(err)
	}
	ann := fuse.ANNAuto
	switch os.Getenv("CAIRN_PG_ANN") {
	case "1":
		ann = fuse.ANNAlways
	case "0":
		ann = fuse.ANNNever
	}
	o, err = fuse.Open(ctx, src, fuse.OpenOptions{ANN: ann})
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()
	// (the library reads no environment; this program keeps honouring it)
	if v, err := strconv.Atoi(os.Getenv("CAIRN_SEARCH_SLOTS")); err == nil && v > 0 {
		o.Engine.Slots = v
	}
	fmt.Printf("open: %s (%d files, %d chunks)\n", time.Since(start).Round(time.Millisecond), o.Meta.Files, o.Meta.Chunks)

	// Workload: callable definitions (names), and the first lines of their
	// docs as search queries, in a fixed random order.
	var names, docs []string
	seen := map[string]bool{}
	o.R.AllSymbols(ctx, func(s graph.Symbol) error {
		if !s.Kind.IsCallable() {
			return nil
		}
		if !seen[s.Name] && len(s.Name) > 3 {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
		if line, _, _ := strings.Cut(s.Doc, "\n"); len(line) > 30 {
			docs = append(docs, line)
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })

	var work func(i int) (int, error)
	switch *mode {
	case "callers":
		// What `cairn callers --depth 3 NAME` computes: the definitions of
		// the name, then callers breadth first with their definitions.
		work = func(i int) (int, error) {
			defs, err := graph.FindDefinitions(ctx, o.R, names[i%len(names)])
			if err != nil || len(defs) == 0 {
				return 0, err
			}
			ids := make([]graph.SymbolID, 0, len(defs))
			for _, d := range defs {
				ids = append(ids, d.ID)
			}
			hops, err := graph.Callers(ctx, o.R, slices.Compact(ids), graph.TraverseOptions{Depth: *depth})
			return len(hops), err
		}
	case "search":
		work = func(i int) (int, error) {
			res, err := o.Search(ctx, docs[i%len(docs)], fuse.Options{})
			return len(res.Hits), err
		}
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
	// Warm up (first touches of caches and connections), then measure.
	for i := 0; i < *clients; i++ {
		if _, err := work(*n + i); err != nil {
			log.Fatal(err)
		}
	}
	lat := make([]time.Duration, *n)
	results := make([]int, *n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	for c := 0; c < *clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				k, err := work(i)
				lat[i] = time.Since(t)
				results[i] = k
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < *n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		log.Fatal(firstErr)
	}
	wall := time.Since(t0)
	total := 0
	for _, k := range results {
		total += k
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))].Round(100 * time.Microsecond) }
	fmt.Printf("%s (%d clients): n=%d p50=%s p95=%s p99=%s max=%s, %.0f requests/s, %.1f results/request\n",
		*mode, *clients, *n, p(0.5), p(0.95), p(0.99), lat[len(lat)-1].Round(time.Millisecond),
		float64(*n)/wall.Seconds(), float64(total)/float64(*n))
}

// recall compares the HNSW index with exact search, on the repository's own
// chunk embeddings as queries.
func recall(ctx context.Context, s *postgres.Store, n int) {
	count, dim, err := s.Embeddings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	var ids []int64
	rows, err := s.DB().Pool().Query(ctx, `SELECT e.chunk_id FROM embeddings e JOIN chunks c ON c.id = e.chunk_id
		JOIN gen_files g ON g.file_id = c.file_id AND g.gen_id = $1 ORDER BY md5(e.chunk_id::text) LIMIT $2`, s.GenerationID(), n)
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	vecs, err := s.EmbeddingsOf(ctx, ids)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("embeddings: %d of dimension %d; %d queries (stored chunk vectors, drawn at random)\n", count, dim, len(ids))
	exact := map[int64][]int64{}
	var exactLat []time.Duration
	for _, id := range ids {
		t := time.Now()
		ns, err := s.Nearest(ctx, vecs[id], 10, postgres.SearchOptions{Exact: true})
		if err != nil {
			log.Fatal(err)
		}
		exactLat = append(exactLat, time.Since(t))
		for _, x := range ns {
			exact[id] = append(exact[id], x.ChunkID)
		}
	}
	report := func(name string, lat []time.Duration, hit, all int) {
		slices.Sort(lat)
		p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))].Round(10 * time.Microsecond) }
		r := ""
		if all > 0 {
			r = fmt.Sprintf("recall@10=%.4f ", float64(hit)/float64(all))
		}
		fmt.Printf("%-22s %sp50=%s p95=%s\n", name, r, p(0.5), p(0.95))
	}
	report("exact (seq scan)", exactLat, 0, 0)
	for _, ef := range []int{40, 100, 200} {
		var lat []time.Duration
		hit, all := 0, 0
		for _, id := range ids {
			t := time.Now()
			ns, err := s.Nearest(ctx, vecs[id], 10, postgres.SearchOptions{EfSearch: ef})
			if err != nil {
				log.Fatal(err)
			}
			lat = append(lat, time.Since(t))
			got := map[int64]bool{}
			for _, x := range ns {
				got[x.ChunkID] = true
			}
			for _, e := range exact[id] {
				all++
				if got[e] {
					hit++
				}
			}
		}
		report(fmt.Sprintf("hnsw ef_search=%d", ef), lat, hit, all)
	}
}
