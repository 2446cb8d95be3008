package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// filesReader is a graph.Reader answering Files only.
type filesReader struct {
	graph.Reader
	files []graph.File
}

func (r filesReader) Files(context.Context) ([]graph.File, error) { return r.files, nil }

// TestUnknownBounded: an answer lists at most maxUnknown files it could
// not analyse and counts them all, and the text form does not read them
// (a read of every file's record: 78,311 on the Linux kernel).
func TestUnknownBounded(t *testing.T) {
	var files []graph.File
	for i := range 1000 {
		st := []graph.ParseStatus{graph.ParseOK, graph.ParseTimeout, graph.ParsePartial, graph.ParseFailed}[i%4]
		files = append(files, graph.File{Path: fmt.Sprintf("f%04d.c", i), Lang: graph.LangC, Status: st})
	}
	files = append(files, graph.File{Path: "notes.txt", Lang: graph.LangText, Status: graph.ParseOK})
	r := filesReader{files: files}
	g := &globals{json: true}
	env := &envelope{}
	g.setUnknown(context.Background(), r, env)
	if len(env.Unknown) != maxUnknown || env.UnknownCount != 500 {
		t.Fatalf("listed %d, counted %d; want %d and 500", len(env.Unknown), env.UnknownCount, maxUnknown)
	}
	if env.Unknown[0] != "f0001.c (timeout)" {
		t.Fatalf("first: %q", env.Unknown[0])
	}
	text := &envelope{}
	(&globals{}).setUnknown(context.Background(), filesReader{}, text) // Files of a nil Reader would panic
	if text.Unknown != nil || text.UnknownCount != 0 {
		t.Fatalf("text answer: %+v", text)
	}
}
