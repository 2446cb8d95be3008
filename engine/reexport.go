package engine

import (
	"github.com/cairn-dev/cairn/retrieval/contextpack"
	"github.com/cairn-dev/cairn/retrieval/embed"
	"github.com/cairn-dev/cairn/retrieval/fuse"
	"github.com/cairn-dev/cairn/retrieval/trace"
)

// The types of retrieval's answers that the adapters (serve, clients) name.
// They ask the engine and the catalogue, never retrieval itself
// (cmd/cairn/layering_test.go), so the engine re-exports what its answers
// are made of; each is an alias, the same type.
type (
	// Pack is a context pack (Snapshot.Context).
	Pack = contextpack.Pack
	// TraceSite is a write or read site of a trace, with its call paths.
	TraceSite = trace.Site
	// Trace is a trace's answer (TraceResult.Result).
	Trace = trace.Result
	// EntryPoint is where execution starts (Snapshot.EntryPoints).
	EntryPoint = trace.Entry
	// ANNMode chooses when vector search uses a shared store's HNSW index
	// (Options.ANN).
	ANNMode = fuse.ANNMode
	// EmbedHTTPOptions configure the http embedder (Options.EmbedHTTP).
	EmbedHTTPOptions = embed.HTTPOptions
)
