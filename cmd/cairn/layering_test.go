package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// layers orders cairn's top-level packages: a package may import packages of
// a lower layer or of its own subtree, never a higher layer or a sibling of
// the same layer (indexer and retrieval do not know each other).
var layers = map[string]int{
	"schema":    0,
	"graph":     1,
	"indexer":   2,
	"retrieval": 2,
	"agent":     3,
	"lsp":       4,
	"cmd":       5,
	"bench":     6,
}

const module = "github.com/cairn-dev/cairn"

func topOf(pkg string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	top, _, _ := strings.Cut(rest, "/")
	return top
}

// TestImportDirection fails on any import edge against
// schema ← graph ← indexer, retrieval ← agent ← lsp, cmd.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, module+"/tmp/") {
			continue // tmp/ is git-ignored scratch space, not part of cairn
		}
		n++
		from := topOf(p.ImportPath)
		lf, ok := layers[from]
		if !ok {
			t.Errorf("package %s is outside the known layers", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := topOf(imp)
			if to == from {
				continue
			}
			if lt := layers[to]; lt >= lf {
				t.Errorf("%s imports %s: %s (layer %d) may not depend on %s (layer %d)", p.ImportPath, imp, from, lf, to, lt)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d packages listed", n)
	}
}
