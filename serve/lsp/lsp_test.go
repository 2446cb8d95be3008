package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine/enginetest"
)

// client is a minimal LSP client over pipes to an in-process server.
type client struct {
	t    *testing.T
	c    *conn
	id   int
	msgs chan *message
	done chan error
	root string

	mu    sync.Mutex
	notes []*message // notifications received
}

func startClient(t *testing.T) *client {
	root := enginetest.Repo(t)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	cl := &client{t: t, c: newConn(cr, cw), msgs: make(chan *message, 100), done: make(chan error, 1), root: root}
	go func() { cl.done <- Serve(context.Background(), sr, sw, Options{Debounce: 20 * time.Millisecond}) }()
	go func() {
		for {
			m, err := cl.c.read()
			if err != nil {
				close(cl.msgs)
				return
			}
			cl.msgs <- m
		}
	}()
	var res map[string]any
	cl.call("initialize", map[string]any{"rootUri": cl.uri(""), "capabilities": map[string]any{}}, &res)
	cl.c.notify("initialized", map[string]any{})
	t.Cleanup(func() {
		cl.call("shutdown", nil, nil)
		cl.c.notify("exit", nil)
		select {
		case <-cl.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not exit")
		}
	})
	return cl
}

func (cl *client) uri(rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(cl.root, rel))}).String()
}

// call sends a request and waits for its response (skipping notifications).
func (cl *client) call(method string, params, out any) *respError {
	cl.t.Helper()
	cl.id++
	id := json.RawMessage(fmt.Sprint(cl.id))
	b, err := json.Marshal(params)
	if err != nil {
		cl.t.Fatal(err)
	}
	if err := cl.c.write(&message{ID: &id, Method: method, Params: b}); err != nil {
		cl.t.Fatal(err)
	}
	for {
		select {
		case m := <-cl.msgs:
			if m == nil {
				cl.t.Fatalf("%s: connection closed", method)
			}
			if m.ID == nil {
				cl.mu.Lock()
				cl.notes = append(cl.notes, m)
				cl.mu.Unlock()
				continue
			}
			if string(*m.ID) != string(id) {
				continue
			}
			if m.Error != nil {
				return m.Error
			}
			if out != nil {
				rb, err := json.Marshal(m.Result)
				if err != nil {
					cl.t.Fatal(err)
				}
				if err := json.Unmarshal(rb, out); err != nil {
					cl.t.Fatalf("%s: %v", method, err)
				}
			}
			return nil
		case <-time.After(20 * time.Second):
			cl.t.Fatalf("%s: no response", method)
		}
	}
}

func pos(rel string, cl *client, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": cl.uri(rel)}, "position": map[string]any{"line": line, "character": char}}
}

func TestLSPNavigation(t *testing.T) {
	cl := startClient(t)
	// Banner's line: func Banner() string { return "é😀 " + Greet() }
	// "Greet" starts at byte 42, UTF-16 column 39 (é is 2 bytes, 1 unit; 😀 4 bytes, 2 units).
	var locs []location
	if err := cl.call("textDocument/definition", pos("server/greet.go", cl, 6, 39), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "server/greet.go") || locs[0].Range.Start.Line != 3 || locs[0].Range.Start.Character != 5 {
		t.Fatalf("definition of Greet = %+v", locs)
	}
	if err := cl.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go")},
		"position": map[string]any{"line": 3, "character": 6}, "context": map[string]any{"includeDeclaration": false}}, &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].Range.Start != (position{6, 39}) || locs[0].Range.End != (position{6, 44}) {
		t.Fatalf("references of Greet = %+v (UTF-16 columns 39-44 expected)", locs)
	}
	var h hover
	if err := cl.call("textDocument/hover", pos("server/server.go", cl, 11, 18), &h); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"func (s *Server) Serve() string", "Serve handles requests", "1 caller", "owners: git:t", "server/server.go:12"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	var impls []location
	if err := cl.call("textDocument/implementation", pos("store/store.go", cl, 3, 6), &impls); err != nil {
		t.Fatal(err)
	}
	if len(impls) != 1 || impls[0].Range.Start.Line != 8 {
		t.Fatalf("implementations of Store = %+v", impls)
	}
	var syms []documentSymbol
	if err := cl.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": cl.uri("store/store.go")}}, &syms); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
		if s.Name == "Store" && (len(s.Children) != 1 || s.Children[0].Name != "Get") {
			t.Errorf("Store's children = %+v", s.Children)
		}
	}
	if strings.Join(names, ",") != "Store,MemStore,NewMemStore,Get" {
		t.Fatalf("document symbols = %v", names)
	}
	var ws []symbolInformation
	if err := cl.call("workspace/symbol", map[string]any{"query": "MemStore"}, &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws) == 0 || ws[0].Name != "MemStore" || !strings.HasSuffix(ws[0].Location.URI, "store/store.go") {
		t.Fatalf("workspace/symbol = %+v", ws)
	}
	// Call hierarchy around Server.Serve.
	var items []callHierarchyItem
	if err := cl.call("textDocument/prepareCallHierarchy", pos("server/server.go", cl, 11, 18), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Name != "Server.Serve" {
		t.Fatalf("prepare = %+v", items)
	}
	var in []callHierarchyIncomingCall
	if err := cl.call("callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &in); err != nil {
		t.Fatal(err)
	}
	if len(in) != 1 || in[0].From.Name != "Run" || len(in[0].FromRanges) != 1 || in[0].FromRanges[0].Start.Line != 21 {
		t.Fatalf("incoming = %+v", in)
	}
	var out []callHierarchyOutgoingCall
	if err := cl.call("callHierarchy/outgoingCalls", map[string]any{"item": items[0]}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].To.Name != "Server.handle" {
		t.Fatalf("outgoing = %+v", out)
	}
	// Errors carry the category.
	if err := cl.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": "file:///etc/passwd"},
		"position": map[string]any{"line": 0, "character": 0}}, &locs); err == nil || !strings.Contains(fmt.Sprint(err.Data), "outside_repository") {
		t.Fatalf("outside file: %+v", err)
	}
	if err := cl.call("textDocument/formatting", map[string]any{}, nil); err == nil || err.Code != codeMethodNotFound {
		t.Fatalf("unknown method: %+v", err)
	}
}

func TestLSPEditReindexes(t *testing.T) {
	cl := startClient(t)
	p := filepath.Join(cl.root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	content := string(b) + "\n// Farewell says goodbye.\nfunc Farewell() string { return Greet() }\n"
	cl.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go"), "languageId": "go", "version": 1, "text": string(b)}})
	cl.c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go"), "version": 2},
		"contentChanges": []map[string]any{{"text": content}}})
	os.WriteFile(p, []byte(content), 0o644)
	cl.c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go")}})
	deadline := time.Now().Add(15 * time.Second)
	for {
		var ws []symbolInformation
		if err := cl.call("workspace/symbol", map[string]any{"query": "Farewell"}, &ws); err != nil {
			t.Fatal(err)
		}
		if len(ws) > 0 && ws[0].Name == "Farewell" {
			if ws[0].Location.Range.Start.Line != 9 {
				t.Fatalf("Farewell at %+v", ws[0].Location)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the edit never reached the index")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The new call is in the graph: Greet now has two callers.
	var h hover
	if err := cl.call("textDocument/hover", pos("server/greet.go", cl, 3, 6), &h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.Contents.Value, "2 callers") {
		t.Fatalf("hover after edit:\n%s", h.Contents.Value)
	}
}

// indexedNotes returns the cairn/indexed notifications received so far.
func (cl *client) indexedNotes() []map[string]any {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var out []map[string]any
	for _, m := range cl.notes {
		if m.Method == "cairn/indexed" {
			var p map[string]any
			json.Unmarshal(m.Params, &p)
			out = append(out, p)
		}
	}
	return out
}

// TestLSPFollowsUnsavedBuffer: after didChange with unsaved edits, answers
// follow the buffer — a definition that moved, a call at a moved position,
// a definition typed but not saved, references and document symbols in the
// buffer — while the file on disk (and the index) is unchanged.
func TestLSPFollowsUnsavedBuffer(t *testing.T) {
	cl := startClient(t)
	p := filepath.Join(cl.root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	orig := string(b)
	// two lines above Greet: everything moves down by two; Hello is new
	edited := strings.Replace(orig, "// Greet says hello.", "// moved down\n\n// Greet says hello.", 1) +
		"\n// Hello is typed but not saved.\nfunc Hello() string { return Greet() }\n\nfunc Use() string { return Hello() }\n"
	doc := map[string]any{"uri": cl.uri("server/greet.go")}
	cl.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go"), "languageId": "go", "version": 1, "text": orig}})
	cl.c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go"), "version": 2},
		"contentChanges": []map[string]any{{"text": edited}}})
	// Banner's call to Greet moved from line 6 to line 8 (UTF-16 column 39)
	var locs []location
	if err := cl.call("textDocument/definition", pos("server/greet.go", cl, 8, 40), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].Range.Start != (position{5, 5}) {
		t.Fatalf("definition of Greet at its moved call = %+v, want line 5 (the buffer's)", locs)
	}
	// the call to Hello, which only the buffer defines (line 13: func Use)
	if err := cl.call("textDocument/definition", pos("server/greet.go", cl, 13, 29), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].Range.Start != (position{11, 5}) {
		t.Fatalf("definition of the unsaved Hello = %+v, want line 11", locs)
	}
	// references of Greet from its moved definition: the buffer's calls
	if err := cl.call("textDocument/references", map[string]any{"textDocument": doc,
		"position": map[string]any{"line": 5, "character": 6}, "context": map[string]any{"includeDeclaration": false}}, &locs); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, l := range locs {
		lines = append(lines, l.Range.Start.Line)
	}
	if fmt.Sprint(lines) != "[8 11]" {
		t.Fatalf("references of Greet in the buffer on lines %v, want [8 11]", lines)
	}
	var syms []documentSymbol
	if err := cl.call("textDocument/documentSymbol", map[string]any{"textDocument": doc}, &syms); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		got = append(got, fmt.Sprintf("%s@%d", s.Name, s.SelectionRange.Start.Line))
	}
	if strings.Join(got, ",") != "Greet@5,Banner@8,Hello@11,Use@13" {
		t.Fatalf("document symbols of the buffer = %v", got)
	}
	if b, _ := os.ReadFile(p); string(b) != orig {
		t.Fatal("the file on disk changed")
	}
	// closed without saving: answers come from the index again
	cl.c.notify("textDocument/didClose", map[string]any{"textDocument": doc})
	if err := cl.call("textDocument/definition", pos("server/greet.go", cl, 6, 40), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].Range.Start != (position{3, 5}) {
		t.Fatalf("definition of Greet after close = %+v, want line 3", locs)
	}
}

// TestLSPIndexedNotification: cairn/indexed names the generation the
// server's re-index committed and how many files it parsed.
func TestLSPIndexedNotification(t *testing.T) {
	cl := startClient(t)
	p := filepath.Join(cl.root, "server", "greet.go")
	b, _ := os.ReadFile(p)
	content := string(b) + "\nfunc Farewell() string { return Greet() }\n"
	os.WriteFile(p, []byte(content), 0o644)
	cl.c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/greet.go")}})
	deadline := time.Now().Add(15 * time.Second)
	for len(cl.indexedNotes()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no cairn/indexed notification")
		}
		var ws []symbolInformation
		cl.call("workspace/symbol", map[string]any{"query": "Farewell"}, &ws) // (lets notifications in)
		time.Sleep(20 * time.Millisecond)
	}
	n := cl.indexedNotes()[0]
	if n["generation"] != float64(2) || n["parsed"] != float64(1) || fmt.Sprint(n["paths"]) != "[server/greet.go]" {
		t.Fatalf("cairn/indexed = %v, want generation 2 (the fixture's index is 1), parsed 1", n)
	}
}

// TestReferencesOfOneSymbol: the references of Server.Serve are its own,
// not those of app/serve.py's Serve, which is spelled the same.
func TestReferencesOfOneSymbol(t *testing.T) {
	cl := startClient(t)
	var locs []location
	if err := cl.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": cl.uri("server/server.go")},
		"position": map[string]any{"line": 11, "character": 18}, "context": map[string]any{"includeDeclaration": true}}, &locs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range locs {
		rel := strings.TrimPrefix(l.URI, cl.uri("")+"/")
		got = append(got, fmt.Sprintf("%s:%d", rel, l.Range.Start.Line))
	}
	slices.Sort(got)
	if want := []string{"server/server.go:11", "server/server.go:21"}; !slices.Equal(got, want) {
		t.Fatalf("references of Server.Serve = %v, want %v (its definition and the call in Run)", got, want)
	}
}
