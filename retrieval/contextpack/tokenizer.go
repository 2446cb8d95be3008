package contextpack

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer counts tokens the way a model will.
type Tokenizer interface {
	Name() string
	Count(text string) int
}

var (
	bpeOnce sync.Once
	bpe     map[string]*tiktoken.Tiktoken
	bpeMu   sync.Mutex
)

// bpeTokenizer is an OpenAI BPE encoding (cl100k_base, o200k_base), loaded
// from files embedded in the binary: no network at run time.
type bpeTokenizer struct {
	name  string
	enc   *tiktoken.Tiktoken // o200k_base
	fast  *cl100k            // cl100k_base
	mu    sync.Mutex
	cache map[string]int
}

// cl100kRanks are the cl100k_base ranks, loaded once.
var cl100kRanks = sync.OnceValues(func() (map[string]int, error) {
	return tiktokenloader.NewOfflineLoader().LoadTiktokenBpe("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken")
})

// encodings are the BPE encodings NewTokenizer knows.
var encodings = []string{tiktoken.MODEL_CL100K_BASE, tiktoken.MODEL_O200K_BASE, tiktoken.MODEL_P50K_BASE,
	tiktoken.MODEL_P50K_EDIT, tiktoken.MODEL_R50K_BASE}

// TokenizerName checks an encoding name without loading it and returns it
// as NewTokenizer's tokenizer names itself ("" is cl100k_base).
func TokenizerName(name string) (string, error) {
	if name == "" {
		return tiktoken.MODEL_CL100K_BASE, nil
	}
	if !slices.Contains(encodings, name) {
		return "", fmt.Errorf("unknown tokenizer %q (want cl100k_base or o200k_base)", name)
	}
	return name, nil
}

// NewTokenizer returns the named BPE encoding: cl100k_base (default) or
// o200k_base.
func NewTokenizer(name string) (Tokenizer, error) {
	name, err := TokenizerName(name)
	if err != nil {
		return nil, err
	}
	if name == "cl100k_base" {
		ranks, err := cl100kRanks()
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", name, err)
		}
		return &bpeTokenizer{name: name, fast: &cl100k{ranks: ranks}, cache: map[string]int{}}, nil
	}
	bpeOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		bpe = map[string]*tiktoken.Tiktoken{}
	})
	bpeMu.Lock()
	defer bpeMu.Unlock()
	enc, ok := bpe[name]
	if !ok {
		var err error
		enc, err = tiktoken.GetEncoding(name)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", name, err)
		}
		bpe[name] = enc
	}
	return &bpeTokenizer{name: name, enc: enc, cache: map[string]int{}}, nil
}

func (t *bpeTokenizer) Name() string { return t.name }

// Count implements Tokenizer. Special-token spellings in repository text
// ("<|endoftext|>") are counted as ordinary text, as a model would see them.
//
// The text is counted line by line, each line's count remembered: a pack
// is counted many times while it is built (each item, then the whole
// rendering until used_tokens settles), and its lines repeat. Splitting
// after a newline that is followed by anything but another line break
// never cuts a pre-token of the cl100k/o200k patterns (a letter run does
// not take a preceding newline, a punctuation run ends at the newlines
// that follow it, and a whitespace run holding a newline ends there), so
// the sum is the exact count of the whole.
func (t *bpeTokenizer) Count(text string) int {
	n := 0
	for len(text) > 0 {
		i := 0
		for {
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				i = len(text)
				break
			}
			i += j + 1
			if i >= len(text) || (text[i] != '\n' && text[i] != '\r') {
				break
			}
		}
		n += t.countPiece(text[:i])
		text = text[i:]
	}
	return n
}

// countPiece counts one piece, from the cache when it was seen before.
func (t *bpeTokenizer) countPiece(piece string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.cache[piece]; ok {
		return n
	}
	var n int
	if t.fast != nil {
		n = t.fast.count(piece)
	} else {
		n = len(t.enc.EncodeOrdinary(piece))
	}
	if len(t.cache) >= maxCachedPieces {
		clear(t.cache)
	}
	t.cache[piece] = n
	return n
}

// maxCachedPieces bounds a tokenizer's memory of counted lines.
const maxCachedPieces = 200_000
