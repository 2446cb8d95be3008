package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Price is what a model costs in US dollars per million tokens.
type Price struct {
	InputPerMTok      float64 `json:"input_per_mtok" yaml:"input_per_mtok"`
	OutputPerMTok     float64 `json:"output_per_mtok" yaml:"output_per_mtok"`
	CacheReadPerMTok  float64 `json:"cache_read_per_mtok" yaml:"cache_read_per_mtok"`
	CacheWritePerMTok float64 `json:"cache_write_per_mtok" yaml:"cache_write_per_mtok"`
}

// Prices maps a model name, or a prefix of model names, to its price.
type Prices map[string]Price

// DefaultPrices is a small table for current Claude and GPT model names.
//
// Source: the vendors' public pricing pages (anthropic.com/pricing,
// openai.com/api/pricing) as they stood in late 2025, standard (not batch)
// rates; Anthropic's cache write is the 5-minute rate (1.25× input), OpenAI
// has no cache-write charge. Prices change: a price file (ParsePrices) is the
// way to correct them, and a model missing here is reported unpriced, never
// guessed.
func DefaultPrices() Prices {
	return Prices{
		// Anthropic.
		"claude-opus-4-5":    {InputPerMTok: 5, OutputPerMTok: 25, CacheReadPerMTok: 0.50, CacheWritePerMTok: 6.25},
		"claude-opus-4-1":    {InputPerMTok: 15, OutputPerMTok: 75, CacheReadPerMTok: 1.50, CacheWritePerMTok: 18.75},
		"claude-opus-4-0":    {InputPerMTok: 15, OutputPerMTok: 75, CacheReadPerMTok: 1.50, CacheWritePerMTok: 18.75},
		"claude-opus-4-2025": {InputPerMTok: 15, OutputPerMTok: 75, CacheReadPerMTok: 1.50, CacheWritePerMTok: 18.75}, // Opus 4's dated snapshot, claude-opus-4-20250514
		"claude-sonnet-4":    {InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.30, CacheWritePerMTok: 3.75},
		"claude-3-7-sonnet":  {InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.30, CacheWritePerMTok: 3.75},
		"claude-haiku-4-5":   {InputPerMTok: 1, OutputPerMTok: 5, CacheReadPerMTok: 0.10, CacheWritePerMTok: 1.25},
		"claude-3-5-haiku":   {InputPerMTok: 0.80, OutputPerMTok: 4, CacheReadPerMTok: 0.08, CacheWritePerMTok: 1},
		// OpenAI.
		"gpt-5":        {InputPerMTok: 1.25, OutputPerMTok: 10, CacheReadPerMTok: 0.125},
		"gpt-5-mini":   {InputPerMTok: 0.25, OutputPerMTok: 2, CacheReadPerMTok: 0.025},
		"gpt-5-nano":   {InputPerMTok: 0.05, OutputPerMTok: 0.40, CacheReadPerMTok: 0.005},
		"gpt-4.1":      {InputPerMTok: 2, OutputPerMTok: 8, CacheReadPerMTok: 0.50},
		"gpt-4.1-mini": {InputPerMTok: 0.40, OutputPerMTok: 1.60, CacheReadPerMTok: 0.10},
		"gpt-4.1-nano": {InputPerMTok: 0.10, OutputPerMTok: 0.40, CacheReadPerMTok: 0.025},
		"gpt-4o":       {InputPerMTok: 2.50, OutputPerMTok: 10, CacheReadPerMTok: 1.25},
		"gpt-4o-mini":  {InputPerMTok: 0.15, OutputPerMTok: 0.60, CacheReadPerMTok: 0.075},
		"o3":           {InputPerMTok: 2, OutputPerMTok: 8, CacheReadPerMTok: 0.50},
		"o4-mini":      {InputPerMTok: 1.10, OutputPerMTok: 4.40, CacheReadPerMTok: 0.275},
	}
}

// ParsePrices reads a price table, YAML or JSON, shaped as Prices:
//
//	claude-sonnet-4: {input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75}
//
// Unknown fields, empty model names and negative or non-finite prices are
// errors.
func ParsePrices(data []byte) (Prices, error) {
	var p Prices
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("parse prices: empty")
	}
	if trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("parse prices (JSON): %w", err)
		}
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(trimmed))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("parse prices (YAML): %w", err)
		}
	}
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("parse prices: a model name is empty")
		}
		pr := p[name]
		for field, v := range map[string]float64{
			"input_per_mtok": pr.InputPerMTok, "output_per_mtok": pr.OutputPerMTok,
			"cache_read_per_mtok": pr.CacheReadPerMTok, "cache_write_per_mtok": pr.CacheWritePerMTok,
		} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("parse prices: %s: %s is %v, want a finite number ≥ 0", name, field, v)
			}
		}
	}
	return p, nil
}

// Lookup finds model's price: the exact name, else the longest name in p
// that is a prefix of model (so "claude-sonnet-4" prices
// "claude-sonnet-4-5-20250929").
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	for name := range p {
		if strings.HasPrefix(model, name) && (len(name) > len(best) || !found) {
			best, found = name, true
		}
	}
	if !found {
		return Price{}, false
	}
	return p[best], true
}

// Cost is what usage u of model costs in US dollars; ok is false when the
// model has no price.
func (p Prices) Cost(model string, u Usage) (usd float64, ok bool) {
	pr, ok := p.Lookup(model)
	if !ok {
		return 0, false
	}
	usd = (float64(u.InputTokens)*pr.InputPerMTok +
		float64(u.OutputTokens)*pr.OutputPerMTok +
		float64(u.CacheReadTokens)*pr.CacheReadPerMTok +
		float64(u.CacheWriteTokens)*pr.CacheWritePerMTok) / 1e6
	return usd, true
}

// Price fills r.CostUSD and r.Priced from p (DefaultPrices when p is nil),
// pricing by the model the caller asked for when the response names none.
func (p Prices) Price(r *Response, asked string) {
	if p == nil {
		p = DefaultPrices()
	}
	model := r.Model
	if model == "" {
		model = asked
	}
	r.CostUSD, r.Priced = p.Cost(model, r.Usage)
	if !r.Priced && model != asked {
		r.CostUSD, r.Priced = p.Cost(asked, r.Usage)
	}
}
