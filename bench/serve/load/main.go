package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var questions = []string{
	"how does prometheus scrape targets and apply relabeling",
	"parse a PromQL expression into an AST",
	"django queryset filter lazy evaluation",
	"flask request context push and teardown",
	"requests session retries and connection pooling",
	"matplotlib figure savefig to png backend",
	"java HashMap resize and treeify buckets",
	"java.net.http HttpClient send async",
	"rxjs switchMap unsubscribe from inner observable",
	"zod parse object schema with optional fields",
	"tanstack query cache invalidation and refetch",
	"trpc router procedure input validation",
	"go packages load type information",
	"gopls completion candidates ranking",
	"tsdb head compaction and WAL truncation",
	"alertmanager notification dispatch",
	"effect platform http client request",
	"java String format with locale",
	"sql ResultSet getTimestamp timezone",
	"django migration autodetector renamed field",
}

type sample struct {
	tool string
	dur  time.Duration
	err  string
}

func main() {
	endpoint := flag.String("url", "http://127.0.0.1:7040/mcp", "MCP endpoint (loopback only)")
	clients := flag.Int("clients", 32, "concurrent clients")
	duration := flag.Duration("duration", 60*time.Second, "how long to run")
	think := flag.Duration("think", time.Second, "mean pause between a client's calls (jittered ±50%)")
	budget := flag.Int("budget", 8000, "build_context token budget")
	pid := flag.Int("pid", 0, "server process, for RSS")
	flag.Parse()
	u, err := url.Parse(*endpoint)
	if err != nil {
		log.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		log.Fatalf("refusing %s: the load test only targets loopback", u.Host)
	}
	ctx := context.Background()
	connect := func() *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "cairn-load", Version: "1"}, nil).
			Connect(ctx, &sdk.StreamableClientTransport{Endpoint: *endpoint, DisableStandaloneSSE: true}, nil)
		if err != nil {
			log.Fatalf("connect: %v", err)
		}
		return cs
	}
	// Targets, gathered the way an agent finds them: the questions' search
	// hits (their symbol names become identifier queries, their functions
	// and methods callers targets) and the most central functions.
	cs := connect()
	queries := slices.Clone(questions)
	var targets []string
	seen := map[string]bool{}
	addTarget := func(id, kind string) {
		if (kind == "function" || kind == "method") && !seen[id] {
			seen[id] = true
			targets = append(targets, id)
		}
	}
	for _, q := range questions {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "limit": 20}})
		if err != nil || res.IsError {
			log.Fatalf("search %q: %v %v", q, err, res)
		}
		var out struct {
			Hits []struct {
				Symbol   string `json:"symbol"`
				SymbolID string `json:"symbol_id"`
				Kind     string `json:"kind"`
			} `json:"hits"`
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			log.Fatalf("search %q: %v", q, err)
		}
		if err := json.Unmarshal(b, &out); err != nil {
			log.Fatalf("search %q: %v", q, err)
		}
		for _, h := range out.Hits {
			if h.SymbolID == "" {
				continue
			}
			if !seen["q:"+h.Symbol] {
				seen["q:"+h.Symbol] = true
				queries = append(queries, h.Symbol)
			}
			addTarget(h.SymbolID, h.Kind)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "repo_map", Arguments: map[string]any{"limit": 100}})
	if err != nil || res.IsError {
		log.Fatalf("repo_map: %v %v", err, res)
	}
	var m struct {
		Symbols []struct {
			ID   string `json:"symbol_id"`
			Kind string `json:"kind"`
		} `json:"symbols"`
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		log.Fatalf("repo_map: %v", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		log.Fatalf("repo_map: %v", err)
	}
	for _, s := range m.Symbols {
		addTarget(s.ID, s.Kind)
	}
	cs.Close()
	if len(targets) == 0 {
		log.Fatal("no functions to ask callers of")
	}
	fmt.Printf("queries=%d (%d questions, %d identifiers) callers-targets=%d tasks=%d\n", len(queries), len(questions), len(queries)-len(questions), len(targets), len(questions))
	fmt.Printf("clients=%d duration=%s think=%s budget=%d\n", *clients, *duration, *think, *budget)

	rss := &rssSampler{pid: *pid}
	stopRSS := rss.start()
	deadline := time.Now().Add(*duration)
	samples := make(chan sample, 1<<16)
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			cs := connect()
			defer cs.Close()
			for i := 0; time.Now().Before(deadline); i++ {
				var p sdk.CallToolParams
				switch r := rng.IntN(10); {
				case r < 5:
					p = sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": queries[rng.IntN(len(queries))]}}
				case r < 9:
					p = sdk.CallToolParams{Name: "callers", Arguments: map[string]any{"symbol": targets[rng.IntN(len(targets))]}}
				default:
					p = sdk.CallToolParams{Name: "build_context", Arguments: map[string]any{"task": questions[rng.IntN(len(questions))], "budget": *budget}}
				}
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				start := time.Now()
				res, err := cs.CallTool(cctx, &p)
				d := time.Since(start)
				cancel()
				s := sample{tool: p.Name, dur: d}
				switch {
				case err != nil:
					s.err = err.Error()
				case res.IsError:
					s.err = textOf(res)
				}
				samples <- s
				pause := time.Duration(float64(*think) * (0.5 + rng.Float64()))
				if time.Now().Add(pause).After(deadline) {
					break
				}
				time.Sleep(pause)
			}
		}()
	}
	wg.Wait()
	close(samples)
	stopRSS()
	by := map[string][]time.Duration{}
	errs := map[string]int{}
	var firstErr []string
	total := 0
	for s := range samples {
		total++
		by[s.tool] = append(by[s.tool], s.dur)
		if s.err != "" {
			errs[s.tool]++
			if len(firstErr) < 5 {
				firstErr = append(firstErr, s.tool+": "+s.err)
			}
		}
	}
	fmt.Printf("calls=%d (%.1f/s) errors=%d\n", total, float64(total)/duration.Seconds(), sum(errs))
	for _, tool := range []string{"search", "callers", "build_context"} {
		ds := by[tool]
		slices.Sort(ds)
		if len(ds) == 0 {
			continue
		}
		fmt.Printf("%-14s n=%-5d errors=%-3d p50=%6.1fms p95=%6.1fms p99=%6.1fms max=%6.1fms\n", tool, len(ds), errs[tool],
			ms(pct(ds, 0.50)), ms(pct(ds, 0.95)), ms(pct(ds, 0.99)), ms(ds[len(ds)-1]))
	}
	for _, e := range firstErr {
		fmt.Println("error:", e)
	}
	if *pid != 0 {
		fmt.Printf("server RSS: peak (VmHWM) %d MB, max sampled %d MB, mean sampled %d MB\n", rss.hwm()>>10, rss.max>>10, rss.mean()>>10)
	}
	if sum(errs) > 0 {
		os.Exit(1)
	}
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	s := b.String()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func pct(ds []time.Duration, q float64) time.Duration {
	return ds[min(len(ds)-1, int(q*float64(len(ds)-1)+0.5))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// rssSampler reads the server's resident set size once a second.
type rssSampler struct {
	pid      int
	mu       sync.Mutex
	max, tot int64 // KB
	n        int64
}

func (r *rssSampler) start() func() {
	if r.pid == 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if kb := r.status("VmRSS:"); kb > 0 {
					r.mu.Lock()
					r.max, r.tot, r.n = max(r.max, kb), r.tot+kb, r.n+1
					r.mu.Unlock()
				}
			}
		}
	}()
	return func() { close(done) }
}

func (r *rssSampler) status(key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", r.pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb
		}
	}
	return 0
}

func (r *rssSampler) hwm() int64 { return r.status("VmHWM:") }

func (r *rssSampler) mean() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return 0
	}
	return r.tot / r.n
}
