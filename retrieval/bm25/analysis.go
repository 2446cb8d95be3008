package bm25

import (
	"bytes"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// Analyzer names registered with bleve.
const (
	CodeAnalyzer = "cairn_code"
	TextAnalyzer = "cairn_text"
	PathAnalyzer = "cairn_path"
)

type analyzer func(b []byte, fn func(tokens.Token))

// Analyze implements analysis.Analyzer. The stream's tokens and their
// terms' bytes are carved from three allocations per call, not two per token.
func (a analyzer) Analyze(input []byte) analysis.TokenStream {
	toks := make([]tokens.Token, 0, len(input)/6+1)
	size := 0
	a(input, func(t tokens.Token) {
		toks = append(toks, t)
		size += len(t.Term)
	})
	buf := make([]byte, 0, size)
	slab := make([]analysis.Token, len(toks))
	out := make(analysis.TokenStream, len(toks))
	pos := 0
	for i, t := range toks {
		if !t.Part {
			pos++
		}
		at := len(buf)
		buf = append(buf, t.Term...)
		slab[i] = analysis.Token{Term: buf[at:len(buf):len(buf)], Start: t.Start, End: t.End, Position: max(pos, 1), Type: analysis.AlphaNumeric}
		out[i] = &slab[i]
	}
	return out
}

// pathTokens splits a path at separators too: "src/http_client/Pool.go" →
// src, http_client, http, client, pool, go.
func pathTokens(b []byte, fn func(tokens.Token)) {
	b = bytes.ReplaceAll(b, []byte{'.'}, []byte{' '})
	tokens.Code(b, fn)
}

func init() {
	for name, a := range map[string]analyzer{CodeAnalyzer: tokens.Code, TextAnalyzer: tokens.Text, PathAnalyzer: pathTokens} {
		a := a
		registry.RegisterAnalyzer(name, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
			return a, nil
		})
	}
}
