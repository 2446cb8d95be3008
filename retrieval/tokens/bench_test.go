package tokens

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// corpus reads up to 32 MB of source from $CAIRN_TOKENS_CORPUS (a tree such
// as a benchmark corpus), or this module's own sources without it.
func corpus(b *testing.B) [][]byte {
	root := os.Getenv("CAIRN_TOKENS_CORPUS")
	if root == "" {
		root = "../.."
	}
	var out [][]byte
	total := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || total > 32<<20 {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".py", ".java", ".ts", ".js":
			if data, err := os.ReadFile(p); err == nil {
				out = append(out, data)
				total += len(data)
			}
		}
		return nil
	})
	b.SetBytes(int64(total))
	return out
}

func benchmarkTokens(b *testing.B, f func([]byte, func(Token))) {
	files := corpus(b)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		for _, data := range files {
			f(data, func(Token) { n++ })
		}
	}
}

func BenchmarkCode(b *testing.B)         { benchmarkTokens(b, Code) }
func BenchmarkText(b *testing.B)         { benchmarkTokens(b, Text) }
func BenchmarkUncachedCode(b *testing.B) { benchmarkTokens(b, uncachedCode) }
func BenchmarkUncachedText(b *testing.B) { benchmarkTokens(b, uncachedText) }
