package contextpack_test

import "github.com/cairn-dev/cairn/retrieval/embed"

// embedPPMI keeps the built-in embedder trainable on a tiny repository.
func embedPPMI() embed.PPMIOptions { return embed.PPMIOptions{Dim: 8, MinCount: 1, Oversample: 4} }
