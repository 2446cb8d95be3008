package treesitter

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden extracts every file under testdata/src and compares an annotated
// rendering of its facts with testdata/golden/<path>.golden. Refresh the
// goldens with `go test ./indexer/treesitter -run TestGolden -update` and
// review the diff.
func TestGolden(t *testing.T) {
	root := filepath.Join("testdata", "src")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	x := New(Options{})
	defer x.Close()
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lang, _, _ := walk.Classify(rel, walk.LanguageOf(rel), src)
			ff, err := x.Extract(context.Background(), rel, lang, src)
			if err != nil {
				t.Fatal(err)
			}
			got := Render(ff, src)
			golden := filepath.Join("testdata", "golden", rel+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("facts differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// Render prints facts as annotated source: every line of the file, and below
// it one line per occurrence starting there, marking its columns with '^'.
// A header lists the file, symbols, imports, bindings and chunks.
func Render(ff *graph.FileFacts, src []byte) string {
	var b strings.Builder
	f := ff.File
	fmt.Fprintf(&b, "file %s lang=%s status=%s package=%q lines=%d\n", f.Path, f.Lang, f.Status, f.Package, f.Lines)
	if f.Error != "" {
		fmt.Fprintf(&b, "error %s\n", f.Error)
	}
	for _, s := range ff.Symbols {
		fmt.Fprintf(&b, "symbol %s %s L%d-%d name=%s container=%q\n", s.Kind, s.ID, s.Range.StartLine, s.Range.EndLine, s.Name, s.Container)
		if s.Signature != "" {
			fmt.Fprintf(&b, "  signature %s\n", s.Signature)
		}
		if s.Doc != "" {
			fmt.Fprintf(&b, "  doc %q\n", s.Doc)
		}
		if s.Type != "" {
			fmt.Fprintf(&b, "  type %s\n", s.Type)
		}
		if len(s.Extends) > 0 {
			fmt.Fprintf(&b, "  extends %s\n", strings.Join(s.Extends, ", "))
		}
		if len(s.Implements) > 0 {
			fmt.Fprintf(&b, "  implements %s\n", strings.Join(s.Implements, ", "))
		}
		var flags []string
		if s.Exported {
			flags = append(flags, "exported")
		}
		if s.IsTest {
			flags = append(flags, "test")
		}
		if len(flags) > 0 {
			fmt.Fprintf(&b, "  %s\n", strings.Join(flags, " "))
		}
	}
	for _, im := range ff.Imports {
		fmt.Fprintf(&b, "import module=%q name=%q alias=%q local=%s L%d\n", im.Module, im.Name, im.Alias, im.LocalName(), im.Range.StartLine)
	}
	for _, bd := range ff.Bindings {
		scope := "-"
		if bd.Scope >= 0 {
			scope = ff.Symbols[bd.Scope].QualifiedName()
		}
		fmt.Fprintf(&b, "binding %s: %s in %s L%d\n", bd.Name, bd.Type, scope, bd.Range.StartLine)
	}
	for _, c := range ff.Chunks {
		fmt.Fprintf(&b, "chunk %s %q L%d-%d %d bytes\n", c.Kind, c.Name, c.Range.StartLine, c.Range.EndLine, len(c.Text))
	}
	b.WriteString("\n")

	byLine := map[uint32][]graph.Occurrence{}
	for _, o := range ff.Occurrences {
		byLine[o.Range.StartLine] = append(byLine[o.Range.StartLine], o)
	}
	lines := strings.Split(string(src), "\n")
	for i, line := range lines {
		if i == len(lines)-1 && line == "" {
			break
		}
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(line, "\t", "    "))
		occs := byLine[uint32(i+1)]
		sort.SliceStable(occs, func(a, c int) bool { return occs[a].Range.StartCol < occs[c].Range.StartCol })
		for _, o := range occs {
			col := visualCol(line, int(o.Range.StartCol))
			n := len(o.Name)
			if o.Range.EndLine == o.Range.StartLine {
				n = int(o.Range.EndCol - o.Range.StartCol)
			}
			fmt.Fprintf(&b, "# %s%s %s %s", strings.Repeat(" ", col), strings.Repeat("^", max(n, 1)), o.Role, o.Name)
			if o.Qualifier != "" {
				fmt.Fprintf(&b, " qual=%s", o.Qualifier)
			}
			if o.Enclosing >= 0 {
				fmt.Fprintf(&b, " in=%s", ff.Symbols[o.Enclosing].QualifiedName())
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func visualCol(line string, byteCol int) int {
	if byteCol > len(line) {
		byteCol = len(line)
	}
	return len(strings.ReplaceAll(line[:byteCol], "\t", "    "))
}

func TestQueriesCompile(t *testing.T) {
	if err := CheckQueries(); err != nil {
		t.Fatal(err)
	}
}
