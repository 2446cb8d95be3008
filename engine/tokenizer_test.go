package engine

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

// TestTokenizers: the remembered and the lazily loaded counts are the
// encoding's own.
func TestTokenizers(t *testing.T) {
	long := strings.Repeat("func (s *Server) Serve() string { return s.handle(\"index\") }\n", 5)
	for _, name := range []string{"", "cl100k_base", "o200k_base"} {
		plain, err := contextpack.NewTokenizer(name)
		if err != nil {
			t.Fatal(err)
		}
		want := plain.Count(long)
		cached, err := cachedTokenizer(name)
		if err != nil {
			t.Fatal(err)
		}
		s := &Snapshot{}
		lazy, err := s.tokenizer(name)
		if err != nil {
			t.Fatal(err)
		}
		if c1, c2, c3 := cached.Count(long), cached.Count(long), lazy.Count(long); c1 != want || c2 != want || c3 != want || want < 50 {
			t.Errorf("%q: counts %d, %d (cached), %d (lazy), want %d", name, c1, c2, c3, want)
		}
		if lazy.Name() != plain.Name() || lazy.wait() != nil {
			t.Errorf("%q: lazy tokenizer %s (%v), want %s", name, lazy.Name(), lazy.wait(), plain.Name())
		}
	}
	if _, err := (&Snapshot{}).tokenizer("bogus"); err == nil || Classify(err).Category != InvalidArgument {
		t.Errorf("tokenizer(bogus) = %v, want invalid_argument", err)
	}
}
