package main

import (
	"cmp"
	"os"
	"strconv"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/embed"
)

// The environment is read here, in main, and reaches the libraries as
// Options: no library reads CAIRN_* variables.

// embedHTTP is the http embedder's configuration: CAIRN_EMBED_URL,
// CAIRN_EMBED_MODEL, CAIRN_EMBED_KEY (or OPENAI_API_KEY) and
// CAIRN_EMBED_DIMENSIONS.
func embedHTTP() embed.HTTPOptions {
	o := embed.HTTPOptions{
		URL:    os.Getenv("CAIRN_EMBED_URL"),
		Model:  os.Getenv("CAIRN_EMBED_MODEL"),
		APIKey: cmp.Or(os.Getenv("CAIRN_EMBED_KEY"), os.Getenv("OPENAI_API_KEY")),
	}
	if d, err := strconv.Atoi(os.Getenv("CAIRN_EMBED_DIMENSIONS")); err == nil {
		o.Dimensions = d
	}
	return o
}

// embedding is the embedder --embedder (or CAIRN_EMBEDDER) names, with the
// http embedder's configuration from the environment.
func embedding(name string) engine.Embedding {
	return engine.Embedding{Name: name, HTTP: embedHTTP()}
}

// searchSlots is CAIRN_SEARCH_SLOTS, how many searches run at once (0: the
// default, two per core).
func searchSlots() int {
	if v, err := strconv.Atoi(os.Getenv("CAIRN_SEARCH_SLOTS")); err == nil && v > 0 {
		return v
	}
	return 0
}
