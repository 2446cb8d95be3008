package history

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/query"
)

// BenchmarkOpen: CAIRN_HISTORY_BENCH=DIR/history-….gob (a real history).
func BenchmarkOpen(b *testing.B) {
	p := os.Getenv("CAIRN_HISTORY_BENCH")
	if p == "" {
		b.Skip("CAIRN_HISTORY_BENCH names no history file")
	}
	meta := map[string]string{KeyFile: filepath.Base(p)}
	for b.Loop() {
		x, err := Open(filepath.Dir(p), meta)
		if err != nil {
			b.Fatal(err)
		}
		x.Files("fits header card long string value is truncated when written", 50, nil)
	}
}

// opened is the history CAIRN_HISTORY_BENCH names, open.
func opened(b *testing.B) *Index {
	p := os.Getenv("CAIRN_HISTORY_BENCH")
	if p == "" {
		b.Skip("CAIRN_HISTORY_BENCH names no history file")
	}
	x, err := Open(filepath.Dir(p), map[string]string{KeyFile: filepath.Base(p)})
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkQuery: one query of an open history (CAIRN_HISTORY_BENCH).
func BenchmarkQuery(b *testing.B) {
	x := opened(b)
	for b.Loop() {
		x.Files("fits header card long string value is truncated when written", 50, nil)
	}
}

// BenchmarkNamed: a query naming a pull request and a commit, from an open
// history whose merges are read (CAIRN_HISTORY_BENCH).
func BenchmarkNamed(b *testing.B) {
	x := opened(b)
	x.Named([]query.Ref{{Number: 1}}) // reads the merges
	for b.Loop() {
		if _, err := x.Named([]query.Ref{{Hash: "2a0c5c6f"}, {Number: 12644}, {Number: 7215}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenMerges: opening a history and reading its merges, as the
// first query naming a change does (CAIRN_HISTORY_BENCH).
func BenchmarkOpenMerges(b *testing.B) {
	p := os.Getenv("CAIRN_HISTORY_BENCH")
	if p == "" {
		b.Skip("CAIRN_HISTORY_BENCH names no history file")
	}
	for b.Loop() {
		x, err := Open(filepath.Dir(p), map[string]string{KeyFile: filepath.Base(p)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := x.Named([]query.Ref{{Number: 12644}}); err != nil {
			b.Fatal(err)
		}
	}
}
