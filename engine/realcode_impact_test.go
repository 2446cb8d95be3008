package engine_test

// Real-code cases of the impact and pack classes of issue 19: test
// selectors a runner collects (go test's names: grpc's suite methods
// func (s) TestX are no -run names, its benchmarks go to -bench; pytest's
// node ids: numpy's base class of test methods runs only through its
// Test* subclasses), and packs
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
	// numpy's save/load tests: a base class of test methods (RoundtripTest)
	// that pytest collects only through its Test* subclasses. The
	// package ships no pytest.ini (numpy's is in its source tree), so
	// pytest's defaults apply: python_classes Test, python_functions test.
	realViews = append(realViews, realView{Name: "numpy-io", Corpus: "numpy", Paths: []string{"numpy/__init__.py", "numpy/conftest.py", "numpy/lib/__init__.py", "numpy/lib/npyio.py", "numpy/lib/tests/__init__.py", "numpy/lib/tests/test_io.py"}})
	realCases = append(realCases,
		realCase{Name: "selectors/RoundtripTest's tests run through its collected subclasses", View: "numpy-io", Check: func(t *testing.T, s *engine.Snapshot) {
			// numpy/lib/tests/test_io.py:125 RoundtripTest.check_roundtrips
			// is called by RoundtripTest's test_array (135),
			// test_array_object (151), test_record (170) and
			// test_format_2_0 (174) — test_1D and test_mmap call
			// roundtrip only. RoundtripTest (76) matches no
			// python_classes prefix, so pytest runs those methods only in
			// TestSaveLoad(RoundtripTest) (183) and
			// TestSavezLoad(RoundtripTest) (191), which override none of
			// them: test_io.py::RoundtripTest::test_array collects
			// nothing.
			res, err := s.Impact(context.Background(), engine.ImpactOptions{Name: "RoundtripTest.check_roundtrips"})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, k := range []string{"TestSaveLoad", "TestSavezLoad"} {
				for _, m := range []string{"test_array", "test_array_object", "test_record", "test_format_2_0"} {
					want = append(want, "numpy/lib/tests/test_io.py::"+k+"::"+m)
				}
			}
			var got []string
			for _, tt := range res.Tests {
				sels := tt.Selectors
				if len(sels) == 0 {
					sels = []string{tt.Selector}
				}
				got = append(got, sels...)
				if len(tt.Chain) == 0 || tt.Chain[len(tt.Chain)-1].ToName != "RoundtripTest.check_roundtrips" {
					t.Errorf("%s: its chain does not reach check_roundtrips: %+v", tt.Name, tt.Chain)
				}
			}
			sameSet(t, "pytest node ids of the tests reaching RoundtripTest.check_roundtrips", got, want)
			for _, c := range res.Commands {
				if strings.Contains(c, "::RoundtripTest::") {
					t.Errorf("%q names a method of RoundtripTest, which pytest does not collect", c)
				}
				for _, w := range want {
					if !strings.Contains(c, w) {
						t.Errorf("%q does not run %s", c, w)
					}
				}
			}
			if len(res.Commands) != 1 {
				t.Errorf("commands %q, want one pytest command", res.Commands)
			}
		}},
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
