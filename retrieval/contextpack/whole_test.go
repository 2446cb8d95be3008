package contextpack

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// TestWholeSmallFiles: the strongest candidate of a file no larger than a
// quarter of the budget brings the whole file (after its license notice),
// its other definitions with it, as one item; a larger file's candidate
// comes as its own lines; past the share of the budget whole items may
// fill, no file comes whole.
func TestWholeSmallFiles(t *testing.T) {
	root := t.TempDir()
	small := "// Copyright 2026 The Authors.\n// Licensed under the Apache License, Version 2.0.\n\npackage p\n\n"
	for i := 0; i < 3; i++ { // f0 lines 6-8, f1 10-12, f2 14-16
		small += fmt.Sprintf("func f%d() {\n\tprintln(%d)\n}\n\n", i, i)
	}
	small = strings.TrimSuffix(small, "\n")
	var big strings.Builder
	big.WriteString("package p\n\n")
	for i := 0; i < 60; i++ { // g0 lines 3-5, …: about 900 tokens
		fmt.Fprintf(&big, "func g%d() {\n\tprintln(\"g%d is one of many\")\n}\n\n", i, i)
	}
	var medium strings.Builder
	medium.WriteString("package p\n\n")
	for i := 0; i < 15; i++ { // h0 lines 3-5, …: about 250 tokens
		fmt.Fprintf(&medium, "func h%d() {\n\tprintln(\"h%d\")\n}\n\n", i, i)
	}
	os.WriteFile(filepath.Join(root, "medium.go"), []byte(medium.String()), 0o644)
	os.WriteFile(filepath.Join(root, "small.go"), []byte(small), 0o644)
	os.WriteFile(filepath.Join(root, "big.go"), []byte(big.String()), 0o644)
	tok, err := NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Root: root, Tokenizer: tok}
	files := map[string]graph.File{"small.go": {Path: "small.go", Lang: graph.LangGo}, "big.go": {Path: "big.go", Lang: graph.LangGo},
		"medium.go": {Path: "medium.go", Lang: graph.LangGo}}
	cands := func() []cand {
		return []cand{
			{path: "small.go", start: 6, end: 8, kind: KindDefinition, symbol: "f0", reason: "BM25 #1", score: 0.9, lang: graph.LangGo, sigEnd: 6},
			{path: "big.go", start: 3, end: 5, kind: KindDefinition, symbol: "g0", reason: "BM25 #2", score: 0.8, lang: graph.LangGo, sigEnd: 3},
			{path: "medium.go", start: 3, end: 5, kind: KindDefinition, symbol: "h0", reason: "BM25 #3", score: 0.7, lang: graph.LangGo, sigEnd: 3},
			{path: "small.go", start: 14, end: 16, kind: KindDefinition, symbol: "f2", reason: "BM25 #3", score: 0.1, lang: graph.LangGo, sigEnd: 14},
		}
	}
	pack := func(fullShare float64) *Pack {
		fc := &fileCache{repo: repofs.New(root), files: files, content: map[string][]string{}}
		p := &Pack{Budget: 2000, Format: "json", Items: []Item{}, Omitted: []Omitted{}, Redactions: []redact.Redaction{}}
		b.pack(p, cands(), fc, tok, fullShare)
		return p
	}
	p := pack(DefaultFullShare)
	byPath := func(p *Pack) map[string][]Item {
		m := map[string][]Item{}
		for _, it := range p.Items {
			m[it.Path] = append(m[it.Path], it)
		}
		return m
	}
	items := byPath(p)
	smallItems, bigItems := items["small.go"], items["big.go"]
	if len(smallItems) != 1 {
		t.Fatalf("small.go in %d items, want one whole file: %+v", len(smallItems), smallItems)
	}
	if w := smallItems[0]; w.Kind != KindFile || w.StartLine != 4 || w.EndLine != 16 || w.Symbol != "" ||
		!strings.Contains(w.Content, "func f1()") || strings.Contains(w.Content, "Copyright") ||
		!strings.HasPrefix(w.Reason, "the whole file, for f0: BM25 #1") {
		t.Errorf("small.go's item is not the whole file after its notice: %+v", w)
	}
	if len(bigItems) != 1 || bigItems[0].Kind != KindDefinition || bigItems[0].StartLine != 3 || bigItems[0].EndLine != 5 {
		t.Errorf("big.go (over a quarter of the budget) not as g0's lines: %+v", bigItems)
	}
	if p.UsedTokens > p.Budget {
		t.Errorf("used %d of %d", p.UsedTokens, p.Budget)
	}
	if m := items["medium.go"]; len(m) != 1 || m[0].Kind != KindFile {
		t.Errorf("medium.go (under a quarter of the budget) not whole: %+v", m)
	}
	// the share whole items may fill is spent before the first candidate:
	// a file comes whole only if it costs at most a 16th of the budget
	items = byPath(pack(0.001))
	if m := items["medium.go"]; len(m) != 1 || m[0].Kind == KindFile || m[0].StartLine != 3 {
		t.Errorf("medium.go (over a 16th of the budget) whole past the full share: %+v", m)
	}
	if s := items["small.go"]; len(s) != 1 || s[0].Kind != KindFile || s[0].Tokens > 2000/16 {
		t.Errorf("small.go (under a 16th of the budget) not whole past the full share: %+v", s)
	}
}

// TestLeftoverRoom: room left once every candidate had its turn gives the
// signature items their bodies, strongest first, but not a body larger
// than a quarter of the budget.
func TestLeftoverRoom(t *testing.T) {
	root := t.TempDir()
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := 0; i < 60; i++ { // g0 lines 3-10, g1 12-19, …: never whole
		fmt.Fprintf(&src, "func g%d() {\n", i)
		for k := 0; k < 6; k++ {
			fmt.Fprintf(&src, "\tprintln(\"g%d is one of many, line %d\")\n", i, k)
		}
		src.WriteString("}\n\n")
	}
	hugeStart := strings.Count(src.String(), "\n") + 1
	src.WriteString("func huge() {\n")
	for i := 0; i < 200; i++ { // well over a quarter of the budget
		fmt.Fprintf(&src, "\tprintln(\"line %d of a long body\")\n", i)
	}
	src.WriteString("}\n")
	hugeEnd := strings.Count(src.String(), "\n")
	os.WriteFile(filepath.Join(root, "p.go"), []byte(src.String()), 0o644)
	tok, err := NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Root: root, Tokenizer: tok}
	files := map[string]graph.File{"p.go": {Path: "p.go", Lang: graph.LangGo}}
	var cands []cand
	for i := 0; i < 6; i++ { // every third function: too far apart to join
		s := 3 + 27*i
		cands = append(cands, cand{path: "p.go", start: s, end: s + 7, kind: KindDefinition, symbol: fmt.Sprintf("g%d", 3*i),
			reason: fmt.Sprintf("BM25 #%d", i+1), score: 1 - float64(i)/10, lang: graph.LangGo, sigEnd: s})
	}
	cands = append(cands, cand{path: "p.go", start: hugeStart, end: hugeEnd, kind: KindDefinition, symbol: "huge", reason: "BM25 #7",
		score: 0.2, lang: graph.LangGo, sigEnd: hugeStart})
	pack := func(budget int) map[string]Item {
		fc := &fileCache{repo: repofs.New(root), files: files, content: map[string][]string{}}
		p := &Pack{Budget: budget, Format: "json", Items: []Item{}, Omitted: []Omitted{}, Redactions: []redact.Redaction{}}
		// a full share of almost nothing: past the three strongest, every
		// candidate comes as its signature in the first pass
		b.pack(p, slices.Clone(cands), fc, tok, 0.001)
		if p.UsedTokens > p.Budget {
			t.Errorf("used %d of %d", p.UsedTokens, p.Budget)
		}
		bySym := map[string]Item{}
		for _, it := range p.Items {
			bySym[it.Symbol] = it
		}
		return bySym
	}
	items := pack(2000)
	for i := 0; i < 6; i++ {
		it, ok := items[fmt.Sprintf("g%d", 3*i)]
		if !ok || it.Kind != KindDefinition || it.EndLine != it.StartLine+7 || strings.Contains(it.Reason, "signature only") {
			t.Errorf("g%d not given its body from the room left: %+v", 3*i, it)
		}
	}
	if it := items["huge"]; it.Kind != KindSignature {
		t.Errorf("huge (over a quarter of the budget) given its body: %+v", it)
	}
	// room for huge's body, but not a quarter of the budget
	if it := pack(6000)["huge"]; it.Kind != KindSignature {
		t.Errorf("huge (over a quarter of a 6,000-token budget) given its body: %s %d-%d", it.Kind, it.StartLine, it.EndLine)
	}
	// a budget with room for only some bodies: the strongest get them
	items = pack(1100)
	if it := items["g9"]; it.Kind != KindDefinition {
		t.Errorf("g9, the strongest signature, not given its body: %+v", it)
	}
	if it := items["g12"]; it.Kind != KindSignature {
		t.Errorf("g12, a weaker one, given its body before g9: %+v", it)
	}
}
