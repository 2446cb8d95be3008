package embedtest

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

type Config struct {
	Vocab        []string // token strings; index = id
	Hidden       int      // hidden size
	Heads        int      // attention heads (Hidden % Heads == 0)
	Intermediate int      // FFN size
	Layers       int      // encoder layers
	MaxPositions int      // position embedding rows (max sequence length)
	Seed         uint64
}

// BuildModel returns the serialised ONNX ModelProto.
func BuildModel(c Config) []byte { b, _ := BuildModelWeights(c); return b }

// BuildModelWeights also returns the float initializers by name (for reference checks).
func BuildModelWeights(c Config) ([]byte, map[string][]float32) {
	weights := map[string][]float32{}
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	randn := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * std)
		}
		return out
	}
	fill := func(n int, v float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	H, V, P, I, nh := int64(c.Hidden), int64(len(c.Vocab)), int64(c.MaxPositions), int64(c.Intermediate), int64(c.Heads)
	hd := H / nh

	g := &graphBuilder{}
	weight := func(name string, dims []int64, std float64) string {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		w := randn(int(n), std)
		weights[name] = w
		g.init(floatTensor(name, dims, w))
		return name
	}
	lnParams := func(prefix string) (string, string) {
		weights[prefix+".gamma"], weights[prefix+".beta"] = fill(int(H), 1), fill(int(H), 0)
		g.init(floatTensor(prefix+".gamma", []int64{H}, weights[prefix+".gamma"]))
		g.init(floatTensor(prefix+".beta", []int64{H}, weights[prefix+".beta"]))
		return prefix + ".gamma", prefix + ".beta"
	}
	layerNorm := func(x, prefix string) string {
		gm, bt := lnParams(prefix)
		return g.op("LayerNormalization", []string{x, gm, bt}, attrInt("axis", -1), attrFloat("epsilon", 1e-12))
	}
	linear := func(x, prefix string, in, out int64) string {
		w := weight(prefix+".weight", []int64{in, out}, 1/math.Sqrt(float64(in)))
		b := weight(prefix+".bias", []int64{out}, 0.02)
		return g.op("Add", []string{g.op("MatMul", []string{x, w}), b})
	}

	// Small integer constants: onnx-gomlx only "materialises" (treats as static) int initializers
	// of <= 100 elements, or larger if the name contains "const".
	g.init(int64Tensor("const_split_heads", []int64{4}, []int64{0, 0, nh, hd}))
	g.init(int64Tensor("const_merge_heads", []int64{3}, []int64{0, 0, H}))
	g.init(int64Tensor("const_axes_1_2", []int64{2}, []int64{1, 2}))
	g.init(int64Tensor("const_i0", nil, []int64{0}))
	g.init(int64Tensor("const_i1", nil, []int64{1}))
	g.init(floatTensor("const_f_one", nil, []float32{1}))
	g.init(floatTensor("const_f_half", nil, []float32{0.5}))
	g.init(floatTensor("const_f_inv_sqrt2", nil, []float32{float32(1 / math.Sqrt2)}))
	g.init(floatTensor("const_f_mask_neg", nil, []float32{-1e4}))
	g.init(floatTensor("const_f_attn_scale", nil, []float32{float32(1 / math.Sqrt(float64(hd)))}))

	// Inputs / output.
	batch, seq := Dim{Param: "batch_size"}, Dim{Param: "sequence_length"}
	g.inputs = append(g.inputs,
		valueInfo("input_ids", dtInt64, batch, seq),
		valueInfo("attention_mask", dtInt64, batch, seq),
		valueInfo("token_type_ids", dtInt64, batch, seq),
	)
	g.outputs = append(g.outputs, valueInfo("last_hidden_state", dtFloat, batch, seq, Dim{Value: H}))

	// Embeddings: word + position + token type, then LayerNorm.
	wordEmb := weight("embeddings.word", []int64{V, H}, 1)
	posEmb := weight("embeddings.position", []int64{P, H}, 0.5)
	typeEmb := weight("embeddings.token_type", []int64{2, H}, 0.5)
	seqLen := g.op("Gather", []string{g.op("Shape", []string{"input_ids"}), "const_i1"}, attrInt("axis", 0)) // scalar S
	posIDs := g.op("Range", []string{"const_i0", seqLen, "const_i1"})                                        // [S]
	x := g.op("Add", []string{
		g.op("Add", []string{
			g.op("Gather", []string{wordEmb, "input_ids"}),      // [B,S,H]
			g.op("Gather", []string{typeEmb, "token_type_ids"}), // [B,S,H]
		}),
		g.op("Gather", []string{posEmb, posIDs}), // [S,H] broadcast
	})
	x = layerNorm(x, "embeddings.ln")

	// Additive attention-mask bias: (1 - mask) * -1e4, shape [B,1,1,S].
	maskF := g.op("Cast", []string{"attention_mask"}, attrInt("to", dtFloat))
	mask4 := g.op("Unsqueeze", []string{maskF, "const_axes_1_2"})
	maskBias := g.op("Mul", []string{g.op("Sub", []string{"const_f_one", mask4}), "const_f_mask_neg"})

	for l := 0; l < c.Layers; l++ {
		p := "layer" + itoa(l)
		heads := func(t string, perm ...int64) string { // [B,S,H] -> [B,nh,S,hd] (or perm)
			return g.op("Transpose", []string{g.op("Reshape", []string{t, "const_split_heads"})}, attrInts("perm", perm...))
		}
		q := heads(linear(x, p+".attn.q", H, H), 0, 2, 1, 3) // [B,nh,S,hd]
		k := heads(linear(x, p+".attn.k", H, H), 0, 2, 3, 1) // [B,nh,hd,S]
		v := heads(linear(x, p+".attn.v", H, H), 0, 2, 1, 3) // [B,nh,S,hd]
		scores := g.op("Mul", []string{g.op("MatMul", []string{q, k}), "const_f_attn_scale"})
		scores = g.op("Add", []string{scores, maskBias})
		probs := g.op("Softmax", []string{scores}, attrInt("axis", -1))
		ctx := g.op("MatMul", []string{probs, v})                            // [B,nh,S,hd]
		ctx = g.op("Transpose", []string{ctx}, attrInts("perm", 0, 2, 1, 3)) // [B,S,nh,hd]
		ctx = g.op("Reshape", []string{ctx, "const_merge_heads"})            // [B,S,H]
		attnOut := linear(ctx, p+".attn.out", H, H)
		x = layerNorm(g.op("Add", []string{attnOut, x}), p+".attn.ln")

		// Feed-forward with exact GELU: 0.5*h*(1+erf(h/sqrt2)).
		h := linear(x, p+".ffn.in", H, I)
		erf := g.op("Erf", []string{g.op("Mul", []string{h, "const_f_inv_sqrt2"})})
		gelu := g.op("Mul", []string{g.op("Mul", []string{h, "const_f_half"}), g.op("Add", []string{erf, "const_f_one"})})
		ffn := linear(gelu, p+".ffn.out", I, H)
		x = layerNorm(g.op("Add", []string{ffn, x}), p+".ffn.ln")
	}
	g.opNamed("last_hidden_state", "Identity", []string{x})
	return g.model("tinybert", 8, 17), weights
}

// DefaultVocab: BERT special tokens at 0..4, then lower-case words and some ## pieces.
func DefaultVocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	v = append(v, ".", ",", "(", ")", "{", "}", "_", "-", "/", "=", ":", "'", "\"")
	for c := 'a'; c <= 'z'; c++ {
		v = append(v, string(c))
	}
	v = append(v, "the", "a", "func", "return", "error", "go", "file", "parse", "read", "write",
		"package", "import", "type", "struct", "string", "int", "test", "http", "server", "client",
		"token", "model", "embed", "##s", "##ing", "##ed", "##er", "##s", "##ize", "##ion")
	// de-dup while preserving order
	seen := map[string]bool{}
	out := v[:0]
	for _, t := range v {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// WriteDir writes model.onnx, tokenizer.json and config.json into dir.
func WriteDir(dir string, c Config) error {
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), BuildModel(c), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), TokenizerJSON(c.Vocab, c.MaxPositions), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), ConfigJSON(c), 0o644)
}
