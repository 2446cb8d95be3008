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

// Analyze implements analysis.Analyzer.
func (a analyzer) Analyze(input []byte) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input)/6+1)
	pos := 0
	a(input, func(t tokens.Token) {
		if !t.Part {
			pos++
		}
		out = append(out, &analysis.Token{Term: []byte(t.Term), Start: t.Start, End: t.End, Position: max(pos, 1), Type: analysis.AlphaNumeric})
	})
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
