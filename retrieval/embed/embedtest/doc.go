// Package embedtest writes a tiny random-weight BERT-style encoder (model.onnx) and a matching
// WordPiece tokenizer.json into a directory, for tests.
package embedtest
