package treesitter

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer/walk"
)

// TestFillChunkTexts: the texts of every fixture file's chunks come back
// from the content and the stored ranges and hashes alone (nested chunks
// cut out as Extract cuts them), and other content is refused.
func TestFillChunkTexts(t *testing.T) {
	x := New(Options{})
	defer x.Close()
	n := 0
	filepath.WalkDir("testdata/src", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, _ := os.ReadFile(p)
		lang, skip, _ := walk.Classify(p, walk.LanguageOf(p), src)
		if skip != graph.SkipNone {
			return nil
		}
		ff, _ := x.Extract(context.Background(), p, lang, src)
		if ff == nil || len(ff.Chunks) == 0 {
			return nil
		}
		stored := make([]graph.Chunk, len(ff.Chunks))
		copy(stored, ff.Chunks)
		for i := range stored {
			stored[i].Text = ""
		}
		if !FillChunkTexts(src, stored) {
			t.Errorf("%s: texts not restored", p)
			return nil
		}
		for i := range stored {
			if stored[i].Text != ff.Chunks[i].Text {
				t.Errorf("%s chunk %d (%s): %q, want %q", p, i, stored[i].Name, stored[i].Text, ff.Chunks[i].Text)
			}
		}
		other := append([]byte("// changed\n"), src...)
		if len(stored) > 0 && FillChunkTexts(other, stored) {
			t.Errorf("%s: other content accepted", p)
		}
		n++
		return nil
	})
	if n < 5 {
		t.Fatalf("only %d fixture files checked", n)
	}
}
