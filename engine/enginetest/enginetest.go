package enginetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/engine"
)

// Files are the fixture repository's files.
var Files = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"store/store.go": `package store

// Store keeps values by key.
type Store interface {
	Get(key string) string
}

// MemStore is a Store in memory.
type MemStore struct{ m map[string]string }

// NewMemStore makes an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{m: map[string]string{}} }

// Get returns the value of key.
func (s *MemStore) Get(key string) string { return s.m[key] }
`,
	"server/server.go": `package server

import "example.com/shop/store"

// Server answers requests from a Store.
type Server struct{ st store.Store }

// NewServer makes a Server over a fresh MemStore.
func NewServer() *Server { return &Server{st: store.NewMemStore()} }

// Serve handles requests until stopped.
func (s *Server) Serve() string {
	return s.handle("index")
}

func (s *Server) handle(path string) string {
	return s.st.Get(path)
}

// Run starts a server.
func Run() string {
	return NewServer().Serve()
}
`,
	"server/greet.go": `package server

// Greet says hello.
func Greet() string { return "hello" }

// Banner greets with flowers.
func Banner() string { return "é😀 " + Greet() }
`,
	"server/log.go": `package server

import "fmt"

func logf(msg string) { fmt.Println(msg) }
`,
	"app/serve.py": `"""A Python server with its own Serve."""


def Serve(port):
    """Serve on a port."""
    return start(port)


def start(port):
    return port
`,
	"app/settings.py": `API_KEY = "sk-proj-abcdefghijklmnopqrstuvwx1234"
DEBUG = True
`,
	"web/client.ts": `export interface Fetcher {
  fetchAll(): string[];
}

export class HttpFetcher implements Fetcher {
  fetchAll(): string[] {
    return [];
  }
}
`,
}

// Repo writes the fixture into a new git repository, commits it and
// indexes it; it returns the repository root (index in <root>/.cairn).
func Repo(t testing.TB) string {
	t.Helper()
	return repoOf(t, Files)
}

// RepoOf writes files (path → content) into a new git repository,
// commits and indexes them; it returns the repository root.
func RepoOf(t testing.TB, files map[string]string) string {
	t.Helper()
	return repoOf(t, files)
}

// repoOf writes files into a new git repository, commits and indexes them.
func repoOf(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, root, "init", "-q")
	Git(t, root, "add", ".")
	Git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "fixture")
	Index(t, root)
	return root
}

// Index (re-)indexes root fully.
func Index(t testing.TB, root string) {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reindex(context.Background(), nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// Git runs git in dir.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
