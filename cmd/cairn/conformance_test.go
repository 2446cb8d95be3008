package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/cairn-dev/cairn/graph/postgres/pgtest"
)

// TestStoreConformance indexes each fixture into the embedded store and into
// PostgreSQL (one database, each fixture a repository of its own, split
// into several jobs), asks both the same questions through the command line
// — status, symbols, def, refs, callers and callees three levels deep, map,
// search, context packs — and requires the same answers. Then it changes
// the fixture (an edit, a new file, a deletion), re-indexes both
// incrementally, and asks again.
//
// Only what must differ is left out of the comparison: the generation
// number, where the index lives, when it was indexed; scores are compared to
// 9 significant digits (fusion sums floating-point numbers in map order, in
// either store).
func TestStoreConformance(t *testing.T) {
	pg := pgtest.NewDB(t)
	t.Setenv("CAIRN_STORE", "")
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_WORKTREE_CHECK", "0")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if out, code := cli("migrate", "--store", pg); code != 0 {
		t.Fatalf("migrate: %s", out)
	}
	fixtures := map[string]string{}
	txtars, _ := filepath.Glob("../../indexer/testdata/graph/*.txtar")
	for _, f := range txtars {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, af := range ar.Files {
			writeFile(t, filepath.Join(dir, af.Name), af.Data)
		}
		fixtures[strings.TrimSuffix(filepath.Base(f), ".txtar")] = dir
	}
	fixtures["app"] = copyTree(t, "../../testdata/apps/artifact-dropped", nil)
	// Real code, enough text to train the built-in embedding model.
	fixtures["graph-src"] = copyTree(t, "../../graph", func(p string) bool {
		return strings.Contains(p, "testdata") || strings.HasSuffix(p, "_test.go")
	})
	if len(fixtures) < 7 {
		t.Fatalf("fixtures: %v", fixtures)
	}
	names := make([]string, 0, len(fixtures))
	for n := range fixtures {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		dir := fixtures[name]
		t.Run(name, func(t *testing.T) {
			emb := t.TempDir()
			indexBoth(t, dir, emb, pg)
			compareStores(t, dir, emb, pg)
			if name == "graph-src" {
				// Enough text for vectors: the vector generator takes part.
				out, _ := cli("search", "--dump-generators", "--repo", dir, "--store", pg, "generation of an index committed by the writer")
				if !strings.Contains(out, `"gen":"vector"`) && !strings.Contains(out, `"gen": "vector"`) {
					t.Fatalf("no vector generator over the PostgreSQL store:\n%.500s", out)
				}
			}
			changeFixture(t, dir)
			indexBoth(t, dir, emb, pg)
			compareStores(t, dir, emb, pg)
		})
	}
}

// cli runs cairn in-process and returns its stdout (stderr appended when it
// fails) and exit code.
func cli(args ...string) (string, int) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	if code != 0 {
		return out.String() + errb.String(), code
	}
	return out.String(), code
}

func indexBoth(t *testing.T, dir, emb, pg string) {
	t.Helper()
	if out, code := cli("index", "-q", "--repo", dir, "--index-dir", emb); code != 0 {
		t.Fatalf("embedded index: %s", out)
	}
	if out, code := cli("index", "-q", "--repo", dir, "--store", pg, "--jobs", "3"); code != 0 {
		t.Fatalf("postgres index: %s", out)
	}
}

// compareStores asks both stores the same questions.
func compareStores(t *testing.T, dir, emb, pg string) {
	t.Helper()
	symOut, code := cli("symbols", "--json", "--repo", dir, "--index-dir", emb)
	if code != 0 {
		t.Fatalf("symbols: %s", symOut)
	}
	var syms struct {
		Results []struct{ Name, Kind, Path string }
	}
	if err := json.Unmarshal([]byte(symOut), &syms); err != nil {
		t.Fatal(err)
	}
	var all, funcs []string
	for _, s := range syms.Results {
		all = append(all, s.Name)
		if s.Kind == "function" || s.Kind == "method" {
			funcs = append(funcs, s.Name)
		}
	}
	all, funcs = spread(all, 20), spread(funcs, 12)
	queries := [][]string{{"status", "--json"}, {"symbols", "--json"}, {"map", "--json"}}
	for _, n := range all {
		queries = append(queries, []string{"def", "--json", n}, []string{"refs", "--json", "--definitions", n})
	}
	for _, n := range funcs {
		queries = append(queries, []string{"callers", "--json", "--all", "--depth", "3", n}, []string{"callees", "--json", "--all", "--depth", "3", n})
	}
	for i := 0; i+1 < len(all) && i < 10; i += 2 {
		q := all[i] + " " + all[i+1]
		queries = append(queries, []string{"search", "--json", "--limit", "15", q},
			[]string{"search", "--dump-generators", q})
	}
	if len(all) > 1 {
		queries = append(queries, []string{"search", "--json", "where is " + all[0] + " handled"},
			[]string{"context", "--json", "--budget", "1500", "change " + all[0] + " and " + all[len(all)-1]})
	}
	if len(queries) < 10 {
		t.Fatalf("only %d questions", len(queries))
	}
	for _, q := range queries {
		a, ca := cli(append(slices.Clone(q), "--repo", dir, "--index-dir", emb)...)
		b, cb := cli(append(slices.Clone(q), "--repo", dir, "--store", pg)...)
		if ca != cb {
			t.Errorf("%v: exit %d (embedded) vs %d (postgres)\n%s\n%s", q, ca, cb, a, b)
			continue
		}
		if d := cmp.Diff(normalize(t, a), normalize(t, b)); d != "" {
			t.Errorf("%v: embedded (-) and postgres (+) differ:\n%s", q, d)
		}
	}
}

// spread picks up to n of the distinct values, evenly.
func spread(vs []string, n int) []string {
	slices.Sort(vs)
	vs = slices.Compact(vs)
	if len(vs) <= n {
		return vs
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, vs[i*len(vs)/n])
	}
	return out
}

// varying are the JSON keys whose values legitimately differ by store.
var varying = map[string]bool{"chunk": true, "generation": true, "index_dir": true, "indexed_at": true, "store": true, "worktree": true, "watcher": true}

func normalize(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s // not JSON: compare as text
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k := range x {
				if varying[k] {
					delete(x, k)
				} else {
					x[k] = walk(x[k])
				}
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case float64:
			if x != float64(int64(x)) {
				return strconv.FormatFloat(x, 'g', 9, 64)
			}
		}
		return v
	}
	return walk(v)
}

// changeFixture edits the first source file, adds one and deletes the
// last, so that the incremental paths of both stores run.
func changeFixture(t *testing.T, dir string) {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(".go.py.ts.java", filepath.Ext(p)) && filepath.Ext(p) != "" {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	if len(files) < 2 {
		return
	}
	first, last := files[0], files[len(files)-1]
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	var add string
	switch filepath.Ext(first) {
	case ".go":
		add = "\nfunc conformanceAdded() int { return 1 }\n"
	case ".py":
		add = "\ndef conformance_added():\n    return 1\n"
	case ".ts":
		add = "\nexport function conformanceAdded(): number { return 1 }\n"
	case ".java":
		add = "\nclass ConformanceAdded { int added() { return 1; } }\n"
	}
	writeFile(t, first, append(b, add...))
	writeFile(t, filepath.Join(filepath.Dir(first), "conformance_new"+filepath.Ext(first)), b)
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies src into a temporary directory, leaving out what skip
// says.
func copyTree(t *testing.T, src string, skip func(rel string) bool) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip != nil && rel != "." && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(fmt.Errorf("copy %s: %w", src, err))
	}
	return dst
}
