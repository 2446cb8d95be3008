package embedtest

import "encoding/json"

// TokenizerJSON returns a HuggingFace tokenizers-format (tokenizer.json) BERT WordPiece tokenizer.
// vocab[0..4] must be [PAD],[UNK],[CLS],[SEP],[MASK]. maxLen truncates (incl. [CLS]/[SEP]).
func TokenizerJSON(vocab []string, maxLen int) []byte {
	vm := make(map[string]int, len(vocab))
	for i, t := range vocab {
		vm[t] = i
	}
	type addedToken struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	var added []addedToken
	for i := 0; i < 5; i++ {
		added = append(added, addedToken{ID: i, Content: vocab[i], Special: true})
	}
	doc := map[string]any{
		"version": "1.0",
		"truncation": map[string]any{
			"direction": "Right", "max_length": maxLen, "strategy": "LongestFirst", "stride": 0,
		},
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{
			"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": false, "lowercase": true,
		},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{
			"type": "BertProcessing",
			"sep":  []any{"[SEP]", vm["[SEP]"]},
			"cls":  []any{"[CLS]", vm["[CLS]"]},
		},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vm,
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// ConfigJSON: hugot reads max_position_embeddings (-> tokenizer truncation limit) and pad_token_id.
func ConfigJSON(c Config) []byte {
	b, err := json.MarshalIndent(map[string]any{
		"model_type":              "bert",
		"vocab_size":              len(c.Vocab),
		"hidden_size":             c.Hidden,
		"num_attention_heads":     c.Heads,
		"intermediate_size":       c.Intermediate,
		"max_position_embeddings": c.MaxPositions,
		"type_vocab_size":         2,
		"pad_token_id":            0,
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}
