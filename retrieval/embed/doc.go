// Package embed turns text into vectors, behind one small interface with
// three implementations:
//
//   - PPMI, the built-in offline embedder (the default; nothing to download):
//     static word vectors trained on the indexed repository itself —
//     positive pointwise mutual information over co-occurrences of
//     identifier sub-tokens and comment words in a small window (with
//     frequent-word subsampling and context-distribution smoothing, after
//     Levy, Goldberg and Dagan, TACL 2015), factored by truncated SVD
//     (randomized, Halko, Martinsson and Tropp, SIAM Review 2011), and
//     averaged per text with smooth inverse frequency weights and the common
//     component removed (Arora, Liang and Ma, ICLR 2017);
//   - HTTP, any OpenAI-compatible /v1/embeddings server (OpenAI, Ollama,
//     vLLM, TEI, LM Studio), with batching, retries with backoff and a clear
//     error when the server cannot be reached;
//   - ONNX, a local model directory (model.onnx + tokenizer.json) run by
//     hugot's pure-Go backend.
//
// Training cost (mono1m, 6,046 files: the cold index's CPU profile): the
// counts keep each unordered pair of terms once (counts are symmetric;
// half the map updates), the SVD's products with the sparse matrix gather
// rows (Aᵀ is built once, so neither product scatters) through gonum's
// vector kernels, and blocks are orthonormalized by Cholesky QR twice
// (products and a triangular solve on two goroutines; Gram-Schmidt when
// the block is rank-deficient). Training fell from 17 s to 8 s CPU of a
// cold index (BenchmarkRandomizedSVD: 10.2 → 4.9 s on a random
// 30,000-term matrix), with the same model up to the signs of its
// components: pairwise cosines of texts and search answers identical.
//
// Vectors of different models never mix: every embedder names its model,
// and the index records the model its vectors came from.
package embed
