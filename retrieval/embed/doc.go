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
// Vectors of different models never mix: every embedder names its model,
// and the index records the model its vectors came from.
package embed
