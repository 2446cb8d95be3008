package contextpack

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktokenRef is tiktoken-go's cl100k_base, the reference for cairn's own
// counter.
func tiktokenRef(t *testing.T) *tiktoken.Tiktoken {
	t.Helper()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestCl100kMatchesTiktoken: the pre-tokenizer written as code and the
// merges count exactly what tiktoken-go counts, on every source file of
// the repository, its test fixtures in several languages, and generated
// text mixing the classes the pattern tells apart (letters of several
// scripts, digits, apostrophes, punctuation, every kind of white space,
// bytes that are not UTF-8).
func TestCl100kMatchesTiktoken(t *testing.T) {
	ref := tiktokenRef(t)
	tok, err := NewTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	fast := tok.(*bpeTokenizer).fast
	check := func(what, s string) {
		t.Helper()
		if got, want := fast.count(s), len(ref.EncodeOrdinary(s)); got != want {
			t.Errorf("%s: %d tokens, tiktoken %d: %.120q", what, got, want, s)
		}
	}
	files := 0
	filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == ".cairn" || d.Name() == "node_modules") {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 200_000 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			files++
			check(p, string(b))
		}
		return nil
	})
	if files < 200 {
		t.Fatalf("only %d files compared", files)
	}
	alphabet := []string{"a", "Z", "é", "ß", "Ж", "λ", "中", "ア", "ﾟ", "٣", "5", "½", "Ⅻ", "'", "'S", "'re", "'Ll", "'VE", "'d", "'m", "'t",
		" ", "  ", "\\t", "\t", "\n", "\r", "\r\n", "\u00a0", "\u2003", "\u2028", "\u0085", "\v", "\f", ".", "::", "{", "}", "(", "\"", "_", "-", "😀", "🇫🇷",
		"\xff", "\xc3", "<|endoftext|>", "0x1F", "123456", "x1", "é9", "--", "->", "#!"}
	rng := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(12); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check("generated", b.String())
	}
	// every rune class boundary of the first planes, one rune at a time
	// between letters and spaces
	for r := rune(0); r < 0x3000; r++ {
		if utf8.ValidRune(r) {
			check("rune", "a"+string(r)+" b"+string(r)+string(r)+"\n "+string(r))
		}
	}
}

// Counting line by line (with the cache) gives exactly the count of the
// whole text, on real sources, renderings and awkward whitespace.
func TestCountPiecewiseIsExact(t *testing.T) {
	tok, err := NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	ref := tiktokenRef(t)
	whole := func(s string) int { return len(ref.EncodeOrdinary(s)) }
	texts := []string{
		"", "\n", "\n\n\n", "a\n\nb", "  \n  x\n\t\ty\r\n\r\nz", "},\n{\"path\":\"a.go\"}\n",
		"func f() {\n\treturn\n}\n\n\n// done\n", "x = 1  \n   \n    y", "emoji 😀\nnext\n\n",
		"<|endoftext|>\nfoo", "'s\n're\n\n'll", "1234567\n890\n",
	}
	for _, dir := range []string{".", "../fuse", "../../graph"} {
		ms, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	for i, s := range texts {
		if got, want := tok.Count(s), whole(s); got != want {
			t.Errorf("text %d (%q…): piecewise %d, whole %d", i, s[:min(len(s), 40)], got, want)
		}
		// again, from the cache
		if got, want := tok.Count(s), whole(s); got != want {
			t.Errorf("text %d cached: %d, whole %d", i, got, want)
		}
	}
	big := strings.Repeat("{\"path\":\"x.go\",\"content\":\"a\\nb\"},\n", 300)
	if tok.Count(big) != whole(big) {
		t.Errorf("rendering")
	}
}

// BenchmarkCount counts this package's sources, uncached: cairn's cl100k
// against tiktoken-go's.
func BenchmarkCount(b *testing.B) {
	var text strings.Builder
	ms, _ := filepath.Glob("*.go")
	for _, m := range ms {
		bs, _ := os.ReadFile(m)
		text.Write(bs)
	}
	s := text.String()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	ref, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		b.Fatal(err)
	}
	tok, _ := NewTokenizer("cl100k_base")
	fast := tok.(*bpeTokenizer).fast
	b.Run("cairn", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			fast.count(s)
		}
	})
	b.Run("tiktoken-go", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			ref.EncodeOrdinary(s)
		}
	})
}
