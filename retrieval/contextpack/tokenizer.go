package contextpack

import (
	"fmt"
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
	name string
	enc  *tiktoken.Tiktoken
	mu   sync.Mutex
}

// NewTokenizer returns the named BPE encoding: cl100k_base (default) or
// o200k_base.
func NewTokenizer(name string) (Tokenizer, error) {
	if name == "" {
		name = "cl100k_base"
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
	return &bpeTokenizer{name: name, enc: enc}, nil
}

func (t *bpeTokenizer) Name() string { return t.name }

// Count implements Tokenizer. Special-token spellings in repository text
// ("<|endoftext|>") are counted as ordinary text, as a model would see them.
func (t *bpeTokenizer) Count(text string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.enc.EncodeOrdinary(text))
}
