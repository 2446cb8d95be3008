package treesitter

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
)

// TestFloor is the cold index's floor, for bench/index/floor.sh: the files
// a cold index of a corpus reads (the walk's, with their content-decided
// languages), taken only as far as CAIRN_FLOOR's stage says — read, parse
// (the grammar's tree, freed), query (the extraction's query matches over
// it too) or extract (the whole of Extract: every fact but resolution) —
// on runtime.NumCPU() workers, as the indexer runs them. The process's CPU
// time is the measurement; the test prints what it covered.
//
//	CAIRN_FLOOR=parse:/path/to/corpus go test -run TestFloor ./indexer/treesitter
func TestFloor(t *testing.T) {
	v := os.Getenv("CAIRN_FLOOR")
	if v == "" {
		t.Skip("CAIRN_FLOOR=STAGE:DIR measures a corpus (bench/index/floor.sh)")
	}
	stage, dir, ok := strings.Cut(v, ":")
	if !ok || !map[string]bool{"read": true, "parse": true, "query": true, "extract": true}[stage] {
		t.Fatalf("CAIRN_FLOOR=%q: want read|parse|query|extract:DIR", v)
	}
	ctx := context.Background()
	w, err := walk.New(walk.Options{Root: dir, ExcludeDirs: []string{".cairn"}})
	if err != nil {
		t.Fatal(err)
	}
	var entries []walk.Entry
	if err := w.Walk(ctx, func(e walk.Entry) error { entries = append(entries, e); return nil },
		func(graph.Skip) error { return nil }); err != nil {
		t.Fatal(err)
	}
	jobs := make(chan walk.Entry)
	var mu sync.Mutex
	var files, parsed, bytes, matches int
	// time in each step by language (a worker's wall time in the call,
	// which on a busy worker is its CPU time)
	type cost struct {
		files         int
		parse, search time.Duration
	}
	byLang := map[graph.Language]*cost{}
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := New(Options{})
			defer x.Close()
			var nf, np, nb, nm int
			mine := map[graph.Language]*cost{}
			for e := range jobs {
				src, err := os.ReadFile(filepath.Join(w.Root(), filepath.FromSlash(e.Path)))
				if err != nil {
					continue
				}
				lang, skip, _ := walk.Classify(e.Path, e.Lang, src)
				if skip != graph.SkipNone {
					continue
				}
				nf++
				nb += len(src)
				spec := specFor(lang)
				switch {
				case stage == "read" || spec == nil:
					continue
				case stage == "extract":
					if _, err := x.Extract(ctx, e.Path, lang, src); err == nil {
						np++
					}
					continue
				}
				parser := x.parsers[lang]
				if parser == nil {
					parser = sitter.NewParser()
					parser.SetLanguage(spec.tsLang())
					x.parsers[lang] = parser
				}
				c := mine[lang]
				if c == nil {
					c = &cost{}
					mine[lang] = c
				}
				t0 := time.Now()
				tree, err := parser.ParseCtx(ctx, nil, src)
				c.parse += time.Since(t0)
				if err != nil {
					parser.Reset()
					continue
				}
				np++
				c.files++
				if stage == "query" {
					q, err := spec.query()
					if err != nil {
						t.Error(err)
					} else {
						t1 := time.Now()
						qc := sitter.NewQueryCursor()
						qc.Exec(q.q, tree.RootNode())
						for {
							m, ok := qc.NextMatch()
							if !ok {
								break
							}
							nm += len(m.Captures)
						}
						qc.Close()
						c.search += time.Since(t1)
					}
				}
				tree.Close()
			}
			mu.Lock()
			files, parsed, bytes, matches = files+nf, parsed+np, bytes+nb, matches+nm
			for l, c := range mine {
				if byLang[l] == nil {
					byLang[l] = &cost{}
				}
				b := byLang[l]
				b.files, b.parse, b.search = b.files+c.files, b.parse+c.parse, b.search+c.search
			}
			mu.Unlock()
		}()
	}
	start := time.Now()
	for _, e := range entries {
		jobs <- e
	}
	close(jobs)
	wg.Wait()
	t.Logf("%s: %d files read (%d MB), %d parsed, %d captures, %s wall", stage, files, bytes>>20, parsed, matches,
		time.Since(start).Round(time.Millisecond))
	for l, c := range byLang {
		t.Logf("  %-12s %5d files  parse %6s  query %6s", l, c.files, c.parse.Round(time.Millisecond), c.search.Round(time.Millisecond))
	}
}
