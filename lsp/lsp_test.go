package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
	b, _ := json.Marshal(params)
	if err := cl.c.write(&message{ID: &id, Method: method, Params: b}); err != nil {
		cl.t.Fatal(err)
	}
	for {
		select {
		case m := <-cl.msgs:
			if m == nil {
				cl.t.Fatalf("%s: connection closed", method)
			}
			if m.ID == nil || string(*m.ID) != string(id) {
				continue
			}
			if m.Error != nil {
				return m.Error
			}
			if out != nil {
				rb, _ := json.Marshal(m.Result)
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
