package engine_test

// Real-code cases of the impact and pack classes of issue 19: test
// selectors a runner collects (go test's names: grpc's suite methods
// func (s) TestX are no -run names, its benchmarks go to -bench), and packs
// without import blocks whose signature items are whole. Each answer was
// checked by reading the pinned source (the comments say where).

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

func init() {
	realCases = append(realCases,
		realCase{Name: "selectors/encode's tests are go test names", View: "grpc-core", Check: func(t *testing.T, s *engine.Snapshot) {
			// rpc_util.go:814 func encode; rpc_util_test.go:348 bmEncode calls
			// it and BenchmarkEncode1B…1MiB (361-383) call bmEncode;
			// rpc_util_test.go:257 func (s) TestEncode is a method of the
			// grpctest suite s, run by grpc_test.go:31 Test through
			// grpctest.RunSubTests: go test -run '^TestEncode$' would run
			// nothing.
			res, err := s.Impact(context.Background(), engine.ImpactOptions{Name: "encode", Path: "rpc_util.go"})
			if err != nil {
				t.Fatal(err)
			}
			declared := goTestFuncs(t, s.Root)
			var benches int
			for _, c := range res.Commands {
				for _, m := range regexp.MustCompile(`-(run|bench) '\^(?:\(([^)]*)\)|([^$']*))\$'`).FindAllStringSubmatch(c, -1) {
					for _, n := range strings.Split(m[2]+m[3], "|") {
						if n == "" {
							continue // -run '^$': no test, the benchmarks only
						}
						if !declared[n] {
							t.Errorf("%q names %s, which is no top-level test function of the package", c, n)
						}
						if m[1] == "bench" && strings.HasPrefix(n, "BenchmarkEncode") {
							benches++
						}
					}
				}
			}
			if benches != 6 {
				t.Errorf("%d of the 6 BenchmarkEncode* under -bench: %q", benches, res.Commands)
			}
			for _, tt := range res.Tests {
				if tt.Name == "TestEncode" {
					t.Errorf("the suite method (s) TestEncode is selected as a test: %s", tt.Selector)
				}
				if len(tt.Chain) == 0 || tt.Chain[len(tt.Chain)-1].ToName != "encode" {
					t.Errorf("%s: its chain does not reach encode: %+v", tt.Name, tt.Chain)
				}
			}
		}},
		realCase{Name: "packs/requests without import blocks, whole signatures", View: "requests", Check: func(t *testing.T, s *engine.Snapshot) {
			// requests/sessions.py:1-… opens with a docstring and 30 lines
			// of imports; sessions.py:500-518 is the 19-line head of
			// Session.request (def request( … json=None, ):).
			ctx := context.Background()
			task := "Session.request prepares the request with params, headers, cookies, files, auth, timeout and proxies, then sends it and returns the response"
			for _, budget := range []int{2000, 8000} {
				p, err := s.Context(ctx, engine.ContextOptions{Task: task, Budget: budget, FullShare: 0.1})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range p.Items {
					for _, l := range strings.Split(it.Content, "\n") {
						if l = strings.TrimSpace(l); strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from ") && strings.Contains(l, " import ") {
							t.Errorf("budget %d: %s:%d-%d holds an import line %q", budget, it.Path, it.StartLine, it.EndLine, l)
							break
						}
					}
					if it.Kind == contextpack.KindSignature && strings.HasPrefix(strings.TrimSpace(lastCodeLine(it.Content)), "def ") && strings.HasSuffix(strings.TrimSpace(lastCodeLine(it.Content)), "(") {
						t.Errorf("budget %d: %s:%d: a signature cut at its first line:\n%s", budget, it.Path, it.StartLine, it.Content)
					}
					if it.Kind == contextpack.KindSignature && it.Symbol == "Session.request" && !strings.Contains(it.Content, "json=None,") {
						t.Errorf("budget %d: Session.request's signature is not whole:\n%s", budget, it.Content)
					}
				}
			}
		}},
	)
}

// goTestFuncs reads the names of the top-level func TestX(t *testing.T),
// BenchmarkX(b *testing.B) … of the _test.go files at root, from their
// source.
func goTestFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(\w* \*testing\.[TBFM]\)`)
	out := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
	}
	return out
}

// lastCodeLine is the last line of a signature item's code (before a doc
// summary that follows it).
func lastCodeLine(content string) string {
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"""`) || strings.HasPrefix(strings.TrimSpace(l), "#") {
			if i > 0 {
				return lines[i-1]
			}
		}
	}
	return lines[len(lines)-1]
}
