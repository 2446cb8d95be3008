package contextpack

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/internal/redact"
	"github.com/cairn-dev/cairn/internal/repofs"
)

// TestJoinCoversTheGap: two strong candidates a few lines apart join into
// one item; a weaker candidate lying in the lines between them is then
// already in the pack and must not come again as an item of its own.
func TestJoinCoversTheGap(t *testing.T) {
	root := t.TempDir()
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := 0; i < 3; i++ { // f0 lines 3-5, f1 lines 7-9, f2 lines 11-13
		fmt.Fprintf(&src, "func f%d() {\n\tprintln(%d)\n}\n\n", i, i)
	}
	os.WriteFile(filepath.Join(root, "p.go"), []byte(src.String()), 0o644)
	tok, err := NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Root: root, Tokenizer: tok}
	fc := &fileCache{repo: repofs.New(root), files: map[string]graph.File{"p.go": {Path: "p.go", Lang: graph.LangGo}}, content: map[string][]string{}}
	cands := []cand{
		{path: "p.go", start: 3, end: 5, kind: KindDefinition, symbol: "f0", reason: "a", score: 0.9, lang: graph.LangGo, sigEnd: 3},
		{path: "p.go", start: 11, end: 13, kind: KindDefinition, symbol: "f2", reason: "b", score: 0.8, lang: graph.LangGo, sigEnd: 11},
		{path: "p.go", start: 7, end: 9, kind: KindDefinition, symbol: "f1", reason: "c", score: 0.1, lang: graph.LangGo, sigEnd: 7},
	}
	p := &Pack{Budget: 2000, Format: "json", Items: []Item{}, Omitted: []Omitted{}, Redactions: []redact.Redaction{}}
	b.pack(p, cands, fc, tok, 1)
	seen := map[int]bool{}
	for _, it := range p.Items {
		for l := it.StartLine; l <= it.EndLine; l++ {
			if seen[l] {
				t.Errorf("line %d in two items: %+v", l, p.Items)
			}
			seen[l] = true
		}
	}
	for l := 3; l <= 13; l++ {
		if !seen[l] {
			t.Errorf("line %d missing: %+v", l, p.Items)
		}
	}
}
