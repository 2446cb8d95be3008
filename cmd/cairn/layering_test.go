package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layers orders cairn's top-level packages: a package may import packages of
// a lower layer or of its own subtree, never a higher layer or a sibling of
// the same layer (indexer and retrieval do not know each other).
var layers = map[string]int{
	"schema":    0,
	"internal":  0, // utilities that are not vocabulary: they import no other layer
	"graph":     1,
	"indexer":   2,
	"retrieval": 2,
	"engine":    3,
	"gate":      4, // sandbox, policy, contract, verification, evidence
	"eval":      4, // the engine's evaluations
	"agent":     5,
	"serve":     6, // the servers: lsp, mcp, web
	"clients":   6, // the agent clients cairn sets itself up in, and their hooks
	"cmd":       7,
	"bench":     8,
}

// stores are the concrete stores: none imports another, and only the one
// Open (graph/store) and their own tests and benchmarks name them.
var stores = []string{"graph/embedded", "graph/postgres"}

// storeOpeners may import the concrete stores.
var storeOpeners = []string{"graph/store", "graph/embedded", "graph/postgres", "bench"}

// adapters are the protocol surfaces: they ask the engine and its
// catalogue (engine/catalog), never the indexer's or retrieval's packages
// directly (the engine re-exports the types its answers are made of).
var adapters = []string{"serve", "clients"}

const module = "github.com/cairn-dev/cairn"

func rel(pkg string) string {
	return strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
}

func topOf(pkg string) string {
	top, _, _ := strings.Cut(rel(pkg), "/")
	return top
}

// under reports whether pkg (relative) is dir or inside it.
func under(pkg string, dirs ...string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return pkg == d || strings.HasPrefix(pkg, d+"/") })
}

type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func listPackages(t *testing.T) []listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []listed
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module+"/tmp/") {
			continue // tmp/ is git-ignored scratch space, not part of cairn
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("only %d packages listed", len(pkgs))
	}
	return pkgs
}

// layerViolations lists the reasons an import of imp by from (both
// relative paths; test says whether a test file imports it) breaks the
// layering.
func layerViolations(from, imp string, test bool) []string {
	var out []string
	ft, tt := topOf(from), topOf(imp)
	lf, ok := layers[ft]
	if !ok {
		return []string{"package " + from + " is outside the known layers"}
	}
	if ft != tt && !(test && ft == "retrieval" && tt == "indexer") {
		// (retrieval's tests build their fixture indexes with the indexer;
		// retrieval's code never imports it)
		if lt := layers[tt]; lt >= lf && !(test && strings.HasSuffix(imp, "test") && lt == lf) {
			out = append(out, ft+" may not depend on "+tt)
		}
	}
	if under(imp, stores...) && !under(from, storeOpeners...) && !(test && under(from, "engine", "indexer", "retrieval", "cmd")) {
		out = append(out, "only graph/store opens a concrete store")
	}
	for _, s := range stores {
		if under(from, s) && under(imp, stores...) && !under(imp, s) {
			out = append(out, "a store imports another store")
		}
	}
	if under(from, adapters...) && under(imp, "indexer") {
		out = append(out, "an adapter imports the indexer (ask the engine)")
	}
	if under(from, adapters...) && under(imp, "retrieval") {
		out = append(out, "an adapter imports retrieval (ask the engine or the catalogue)")
	}
	return out
}

// TestImportDirection fails on any import edge, of the code or of its
// tests, against schema, internal ← graph ← indexer, retrieval ← engine ←
// gate, eval ← agent ← serve, clients ← cmd; on a store importing another store or a package outside
// graph/store naming one; and on an adapter importing the indexer or
// retrieval.
func TestImportDirection(t *testing.T) {
	for _, p := range listPackages(t) {
		from := rel(p.ImportPath)
		check := func(imps []string, test bool) {
			for _, imp := range imps {
				if !strings.HasPrefix(imp, module+"/") {
					continue
				}
				for _, why := range layerViolations(from, rel(imp), test) {
					what := "imports"
					if test {
						what = "tests import"
					}
					t.Errorf("%s %s %s: %s", from, what, rel(imp), why)
				}
			}
		}
		check(p.Imports, false)
		check(p.TestImports, true)
		check(p.XTestImports, true)
	}
}

// TestLayerRules checks the rules themselves on edges that must pass and
// edges that must fail, so a rule that stopped biting is noticed.
func TestLayerRules(t *testing.T) {
	for _, c := range []struct {
		from, imp string
		test, bad bool
	}{
		{"graph", "schema", false, false},
		{"graph", "indexer/walk", false, true},
		{"indexer/walk", "retrieval/fuse", false, true},
		{"engine", "retrieval/fuse", false, false},
		{"retrieval/fuse", "engine", false, true},
		{"serve/mcp", "engine", false, false},
		{"serve/mcp", "indexer/walk", false, true},
		{"serve/web", "serve/mcp", false, false},
		{"serve/web", "agent/state", false, false},
		{"serve/mcp", "gate/verify", false, false},
		{"gate/verify", "agent/loop", false, true},
		{"gate/verify", "eval", false, true},
		{"agent/eval", "eval", false, false},
		{"eval", "engine", false, false},
		{"eval", "agent/eval", false, true},
		{"eval", "gate/verify", false, true},
		{"internal/redact", "graph", false, true},
		{"graph", "internal/redact", false, false},
		{"serve/mcp", "clients/setup", false, true},
		{"serve/web", "indexer/walk", false, true},
		{"serve/mcp", "retrieval/trace", false, true},
		{"serve/lsp", "retrieval/fuse", false, true},
		{"serve/web", "retrieval/contextpack", true, true},
		{"clients/setup", "retrieval/bm25", false, true},
		{"serve/mcp", "engine/catalog", false, false},
		{"agent/tools", "engine/catalog", false, false},
		{"engine/catalog", "retrieval/contextpack", false, false},
		{"agent/loop", "serve/web", false, true},
		{"engine", "serve/lsp", false, true},
		{"graph/postgres", "graph/embedded", false, true},
		{"graph/postgres", "graph/facts", false, false},
		{"retrieval/fuse", "graph/embedded", false, true},
		{"retrieval/fuse", "graph/embedded", true, false},
		{"graph/store", "graph/postgres", false, false},
		{"indexer/fleet", "graph/postgres", false, true},
		{"indexer/fleet", "graph/postgres", true, false},
		{"cmd/cairn", "graph/postgres", false, true},
		{"engine", "engine/enginetest", true, false},
		{"retrieval/fuse", "serve/mcp", true, true},
	} {
		got := len(layerViolations(c.from, c.imp, c.test)) > 0
		if got != c.bad {
			t.Errorf("%s → %s (test %v): violation %v, want %v", c.from, c.imp, c.test, got, c.bad)
		}
	}
}
