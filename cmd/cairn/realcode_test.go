package main

// The CLI's part of the real-code answer suite (engine/realcode_test.go
// holds the engine's): answers whose bug was in how the command line
// prints them, checked on the same pinned real code, installed by
// .ci/realcode.sh as engine/testdata/realcode/corpora.txt lists it. Under
// `make test` (CAIRN_TEST_PG_REQUIRED set) a missing corpus fails the test;
// elsewhere it skips, saying what to run.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine/enginetest"
)

// TestRealCodeTrees: callers and callees print trees in which every symbol
// is under the one it was reached from, on grpc's code (google.golang.org/grpc
// at the version corpora.txt pins; the same files as the engine suite's
// grpc-core view). The text tree must agree with the JSON's via and depth
// at every line, and the hand-checked chains must nest as the source has
// them. Printed in the engine's breadth-first order (as before 6f33b13),
// every depth-2 caller of status.FromError sat under the last depth-1 one.
func TestRealCodeTrees(t *testing.T) {
	t.Setenv("CAIRN_STORE", "")
	t.Setenv("CAIRN_INDEX_DIR", "")
	t.Setenv("CAIRN_WORKTREE_CHECK", "0")
	root := grpcView(t, "go.mod", "*.go", "status", "codes", "internal/status", "grpclog", "internal/grpclog")
	if out, code := cli("index", "-q", "--repo", root); code != 0 {
		t.Fatalf("cairn index: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		cmd, name string
		// chains are read in the source: each element is called by (for
		// callers) or calls (for callees) the one before it, at the lines
		// given as "name path:line" of its definition.
		chains [][]string
	}{
		{"callers", "status.FromError", [][]string{
			// rpc_util.go:1152 toRPCErr calls status.FromError;
			// stream.go:840 withRetry calls toRPCErr; SendMsg
			// (stream.go:1006) and CloseSend (stream.go:1068) call withRetry
			{"toRPCErr rpc_util.go:1133", "clientStream.withRetry stream.go:831", "clientStream.SendMsg stream.go:954"},
			{"toRPCErr rpc_util.go:1133", "clientStream.withRetry stream.go:831", "clientStream.CloseSend stream.go:1054"},
			// server.go:1445, 1858, 1078
			{"Server.processUnaryRPC server.go:1260", "Server.handleStream server.go:1800", "Server.serveStreams server.go:1053"},
		}},
		{"callees", "clientStream.withRetry", [][]string{
			// stream.go:840 withRetry calls toRPCErr, which calls
			// status.FromError (rpc_util.go:1152), which calls
			// internal/status.FromProto (status/status.go:124); toRPCErr
			// calls status.Error too (rpc_util.go:1142), which calls New
			// (status/status.go:59)
			{"toRPCErr rpc_util.go:1133", "FromError status/status.go:96", "FromProto internal/status/status.go:86"},
			{"toRPCErr rpc_util.go:1133", "Error status/status.go:58", "New status/status.go:48"},
		}},
	} {
		t.Run(c.cmd+"/"+c.name, func(t *testing.T) {
			text, code := cli(c.cmd, "--repo", root, "--depth", "3", c.name)
			if code != 0 {
				t.Fatalf("cairn %s %s: exit %d\n%s", c.cmd, c.name, code, text)
			}
			js, code := cliStdout(c.cmd, "--repo", root, "--depth", "3", "--json", c.name)
			if code != 0 {
				t.Fatalf("cairn %s --json %s: exit %d\n%s", c.cmd, c.name, code, js)
			}
			var res struct {
				Results []struct {
					SymbolID   string `json:"symbol_id"`
					Name       string
					Depth      int
					Via        string
					Definition *struct {
						Path      string
						StartLine int `json:"start_line"`
					}
				}
				Roots []struct {
					SymbolID string `json:"symbol_id"`
				}
			}
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				t.Fatalf("%v\n%s", err, js)
			}
			if len(res.Roots) != 1 {
				t.Fatalf("%s %s: %d roots, want 1", c.cmd, c.name, len(res.Roots))
			}
			// the JSON's answer: each symbol's line key, depth and parent
			key := map[string]string{res.Roots[0].SymbolID: ""}
			type node struct {
				depth  int
				parent string
			}
			want := map[string]node{}
			for _, r := range res.Results {
				if r.Definition != nil {
					key[r.SymbolID] = fmt.Sprintf("%s %s:%d", r.Name, r.Definition.Path, r.Definition.StartLine)
				}
			}
			for _, r := range res.Results {
				if k, ok := key[r.SymbolID]; ok && k != "" {
					want[k] = node{r.Depth, key[r.Via]}
				}
			}
			// the text's: a line's parent is the nearest line above it
			// one level less indented
			got := map[string]node{}
			var stack []string
			sc := bufio.NewScanner(strings.NewReader(text))
			lines := 0
			for sc.Scan() {
				l := sc.Text()
				if strings.HasPrefix(l, "cairn: ") || strings.TrimSpace(l) == "" {
					continue
				}
				trimmed := strings.TrimLeft(l, " ")
				depth := (len(l)-len(trimmed))/2 + 1
				f := strings.Split(trimmed, "\t")
				if len(f) < 2 {
					t.Fatalf("line %q is no tree line", l)
				}
				k := f[0] + " " + f[1]
				if depth > len(stack)+1 {
					t.Fatalf("line %q is indented deeper than the line above it", l)
				}
				stack = append(stack[:depth-1], k)
				parent := ""
				if depth > 1 {
					parent = stack[depth-2]
				}
				got[k] = node{depth, parent}
				lines++
			}
			if lines != len(res.Results) {
				t.Errorf("%d tree lines for %d results:\n%s", lines, len(res.Results), text)
			}
			for k, w := range want {
				if g, ok := got[k]; !ok {
					t.Errorf("%s is not in the tree", k)
				} else if g != w {
					t.Errorf("%s: in the tree at depth %d under %q; the JSON has depth %d via %q", k, g.depth, g.parent, w.depth, w.parent)
				}
			}
			for _, chain := range c.chains {
				for i, k := range chain {
					g, ok := got[k]
					switch {
					case !ok:
						t.Errorf("%s (chain %q) is not in the tree:\n%s", k, chain, text)
					case g.depth != i+1:
						t.Errorf("%s: depth %d, want %d (chain %q)", k, g.depth, i+1, chain)
					case i > 0 && g.parent != chain[i-1]:
						t.Errorf("%s: under %q, want under %q", k, g.parent, chain[i-1])
					}
				}
			}
		})
	}
}

// grpcView copies paths (files, directories, globs) of the pinned grpc
// module into a new git repository and returns its root.
func grpcView(t *testing.T, paths ...string) string {
	t.Helper()
	version := ""
	b, err := os.ReadFile(filepath.Join("..", "..", "engine", "testdata", "realcode", "corpora.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 5 && f[0] == "grpc" && f[1] == "gomod" {
			version = f[3]
		}
	}
	if version == "" {
		t.Fatal("corpora.txt pins no grpc module")
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(cache)), "google.golang.org", "grpc@"+version)
	if _, err := os.Stat(src); err != nil {
		msg := fmt.Sprintf("real-code corpus grpc %s is not installed at %s: run `bash .ci/realcode.sh` (make test does)", version, src)
		if os.Getenv("CAIRN_TEST_PG_REQUIRED") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root := filepath.Join(t.TempDir(), "grpc")
	for _, p := range paths {
		matches, err := filepath.Glob(filepath.Join(src, filepath.FromSlash(p)))
		if err != nil || len(matches) == 0 {
			t.Fatalf("%s matches nothing in %s (%v)", p, src, err)
		}
		for _, m := range matches {
			rel, err := filepath.Rel(src, m)
			if err != nil {
				t.Fatal(err)
			}
			if err := enginetest.CopyFiles(m, filepath.Join(root, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	enginetest.Git(t, root, "init", "-q")
	enginetest.Git(t, root, "add", ".")
	enginetest.Git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "grpc "+version)
	return root
}
