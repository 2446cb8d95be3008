package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/cairn-dev/cairn/graph"
)

// indexView states which index generation answered, so every answer is
// fresh or flagged.
type indexView struct {
	Generation int64     `json:"generation"`
	Revision   string    `json:"revision,omitempty"`
	Dirty      bool      `json:"dirty"`
	IndexedAt  time.Time `json:"indexed_at"`
}

func viewIndex(m graph.Meta) indexView {
	return indexView{Generation: m.Generation, Revision: m.Revision, Dirty: m.Dirty, IndexedAt: m.IndexedAt}
}

// envelope is the top level of every JSON answer.
type envelope struct {
	Query   string    `json:"query,omitempty"`
	Index   indexView `json:"index"`
	Results any       `json:"results"`
	// Unknown lists files that could not be analysed and may hide answers.
	Unknown []string `json:"unknown,omitempty"`
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// unanalysed lists the files whose facts are missing or partial.
func unanalysed(ctx context.Context, r graph.Reader) []string {
	files, err := r.Files(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range files {
		if f.Lang.HasParser() && !f.Status.Analysed() {
			out = append(out, fmt.Sprintf("%s (%s)", f.Path, f.Status))
		}
	}
	return out
}

func revShort(m graph.Meta) string {
	rev := m.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		rev = "no-git"
	}
	if m.Dirty {
		rev += "+dirty"
	}
	return rev
}
