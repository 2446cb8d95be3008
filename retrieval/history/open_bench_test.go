package history

import (
	"os"
	"path/filepath"
	"testing"
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

// BenchmarkQuery: one query of an open history (CAIRN_HISTORY_BENCH).
func BenchmarkQuery(b *testing.B) {
	p := os.Getenv("CAIRN_HISTORY_BENCH")
	if p == "" {
		b.Skip("CAIRN_HISTORY_BENCH names no history file")
	}
	x, err := Open(filepath.Dir(p), map[string]string{KeyFile: filepath.Base(p)})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		x.Files("fits header card long string value is truncated when written", 50, nil)
	}
}
