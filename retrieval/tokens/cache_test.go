package tokens

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// uncachedCode is the tokenizer as written before the cache: the reference
// the cached one must agree with token for token.
func uncachedCode(b []byte, fn func(Token)) {
	Words(b, func(start, end int) {
		if ideographicRun(b[start:end]) {
			bigrams(b, start, end, nil, fn)
			return
		}
		w := string(b[start:end])
		if len(w) > 64 {
			return
		}
		fn(Token{Term: lower(w), Start: start, End: end})
		parts := 0
		Split(w, func(string, int) { parts++ })
		if parts > 1 {
			Split(w, func(p string, off int) {
				if len(p) > 1 || unicode.IsDigit(rune(p[0])) {
					fn(Token{Term: lower(p), Start: start + off, End: start + off + len(p), Part: true})
				}
			})
		}
	})
}

func uncachedText(b []byte, fn func(Token)) {
	uncachedCode(b, func(t Token) {
		if Stop[t.Term] || len(t.Term) < 2 {
			return
		}
		t.Term = Stem(t.Term)
		fn(t)
	})
}

func collect(f func([]byte, func(Token)), b []byte) []Token {
	var out []Token
	f(b, func(t Token) { out = append(out, t) })
	return out
}

// The cache changes nothing: this package's and its neighbours' sources
// (real code and prose), plus spellings whose parts change length when
// lower-cased or stemmed, come out the same as from the uncached reference —
// on a cold cache, a warm one, one that overflows its bound, and from many
// goroutines at once.
func TestCacheMatchesUncached(t *testing.T) {
	var inputs [][]byte
	files, _ := filepath.Glob("../*/*.go")
	if len(files) > 40 {
		files = files[:40]
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	if len(inputs) < 10 {
		t.Fatalf("only %d source files found", len(inputs))
	}
	inputs = append(inputs, []byte("İstanbulConnectionsRefreshing ÜberCLASSFactories running_jumps parseHTTPRequests2xx KİLOMETERS"),
		[]byte("调用status.FromError时返回的错误码不对，使用WithKeepaliveParams设置后连接没有保持 キャッシュを使うgetUserName 사용WithBlock옵션"))

	check := func(t *testing.T) {
		t.Helper()
		for i, b := range inputs {
			if d := cmp.Diff(collect(uncachedCode, b), collect(Code, b)); d != "" {
				t.Errorf("Code, input %d (-uncached +cached):\n%s", i, d)
				return
			}
			if d := cmp.Diff(collect(uncachedText, b), collect(Text, b)); d != "" {
				t.Errorf("Text, input %d (-uncached +cached):\n%s", i, d)
				return
			}
		}
	}
	t.Run("cold and warm", func(t *testing.T) { check(t); check(t) })
	t.Run("overflowing", func(t *testing.T) {
		defer func(n int) { cacheWords = n }(cacheWords)
		for i := range caches {
			caches[i].code, caches[i].text = nil, nil
		}
		cacheWords = 7
		check(t)
		for i := range caches {
			c := &caches[i]
			c.mu.Lock()
			if len(c.code) > cacheWords || len(c.text) > cacheWords {
				t.Errorf("cache %d holds %d code and %d text words, bound %d", i, len(c.code), len(c.text), cacheWords)
			}
			c.mu.Unlock()
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 3 * len(caches) {
			wg.Go(func() { check(t) })
		}
		wg.Wait()
	})
}
