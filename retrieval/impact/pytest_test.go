package impact

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type mapFiles map[string]string

func (m mapFiles) ReadFile(p string) ([]byte, error) {
	if c, ok := m[p]; ok {
		return []byte(c), nil
	}
	return nil, os.ErrNotExist
}

// TestPytestConfig: each of pytest's ini-files configures collection, the
// first found looking up wins (pytest.ini even without a section), and a
// file without a pytest section is passed over.
func TestPytestConfig(t *testing.T) {
	for _, c := range []struct {
		name  string
		files mapFiles
		dir   string
		want  pytestConfig
	}{
		{"defaults", mapFiles{}, "tests", pytestDefaults},
		{"pytest.ini", mapFiles{"pytest.ini": "[pytest]\npython_classes = Test* Check\npython_functions =\n    test_*\n    check_*\ntestpaths = tests\n"}, "tests",
			pytestConfig{Root: ".", Files: pytestDefaults.Files, Classes: []string{"Test*", "Check"}, Functions: []string{"test_*", "check_*"}, TestPaths: []string{"tests"}}},
		{"pyproject", mapFiles{"sub/pyproject.toml": "[project]\nname='x'\n[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\npython_functions = \"t_*\"\n"}, "sub/tests",
			pytestConfig{Root: "sub", Files: []string{"check_*.py"}, Classes: []string{"Test"}, Functions: []string{"t_*"}}},
		{"pyproject without pytest, setup.cfg above", mapFiles{"sub/pyproject.toml": "[project]\nname='x'\n", "setup.cfg": "[metadata]\nname=x\n[tool:pytest]\npython_classes = Suite\n"}, "sub",
			pytestConfig{Root: ".", Files: pytestDefaults.Files, Classes: []string{"Suite"}, Functions: []string{"test"}}},
		{"tox.ini", mapFiles{"tox.ini": "[tox]\nenvlist=py3\n[pytest]\ntestpaths = a b\n"}, "a",
			pytestConfig{Root: ".", Files: pytestDefaults.Files, Classes: []string{"Test"}, Functions: []string{"test"}, TestPaths: []string{"a", "b"}}},
		{"empty pytest.ini wins over tox.ini above", mapFiles{"x/pytest.ini": "", "tox.ini": "[pytest]\npython_classes = Nope\n"}, "x",
			pytestConfig{Root: "x", Files: pytestDefaults.Files, Classes: []string{"Test"}, Functions: []string{"test"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := newSelectors(c.files, nil).pytestFor(c.dir)
			if d := cmp.Diff(c.want, *got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestPytestCollectsFile(t *testing.T) {
	c := pytestConfig{Root: ".", Files: []string{"test_*.py", "*_test.py"}, TestPaths: []string{"tests", "src/*/tests"}}
	for p, want := range map[string]bool{
		"tests/test_a.py": true, "tests/sub/b_test.py": true, "src/pkg/tests/test_c.py": true,
		"docs/test_d.py": false, "tests/helpers.py": false, "tests/conftest.py": false,
	} {
		if got := c.collectsFile(p); got != want {
			t.Errorf("collectsFile(%s) = %v, want %v", p, got, want)
		}
	}
	if !matchName([]string{"Test"}, "TestX") || matchName([]string{"Test"}, "XTest") || !matchName([]string{"*Suite"}, "IOSuite") {
		t.Error("python_classes: a plain pattern is a prefix, one with * a glob")
	}
}

// TestPytestArgsScale: a large selection is grouped by file and split into
// lines of bounded length (a 1,207-test selection came out as one 83 KB
// line).
func TestPytestArgsScale(t *testing.T) {
	var ids []string
	for f := 0; f < 300; f++ {
		n := 3
		if f%10 == 0 {
			n = 40 // a file with many selected tests is named whole
		}
		for i := 0; i < n; i++ {
			ids = append(ids, fmt.Sprintf("tests/area%03d/test_mod%03d.py::TestThing::test_case_%03d", f, f, i))
		}
	}
	lines := pytestArgs(ids)
	if len(lines) < 2 {
		t.Fatalf("%d ids in %d lines", len(ids), len(lines))
	}
	seen := 0
	for _, l := range lines {
		if len(l) > maxCommand {
			t.Errorf("a line of %d bytes", len(l))
		}
		for _, a := range strings.Fields(l) {
			if strings.HasSuffix(a, "test_mod010.py") {
				seen++
			}
			if strings.HasPrefix(a, "tests/area010/test_mod010.py::") {
				t.Errorf("a file with 40 selected tests is named by id: %s", a)
			}
		}
	}
	if seen != 1 {
		t.Errorf("test_mod010.py named %d times", seen)
	}
	if got := pytestArgs([]string{"b.py::t", "a.py::T::t", "a.py::u"}); len(got) != 1 || got[0] != "a.py::T::t a.py::u b.py::t" {
		t.Errorf("a short selection: %q", got)
	}
}
