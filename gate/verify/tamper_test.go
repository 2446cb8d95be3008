package verify

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/gate/sandbox"
)

const goBase = `package m

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/google/go-cmp/cmp"
)

func TestA(t *testing.T) {
	if got := A(); got != 1 {
		t.Errorf("A() = %d", got)
	}
	assert.Equal(t, 1, A())
	if d := cmp.Diff(1, A()); d != "" {
		t.Fatal(d)
	}
}

func TestB(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		if B() != 2 {
			t.Fatal("B")
		}
	})
}
`

func TestTamperGo(t *testing.T) {
	for _, tc := range []struct {
		name, cand string
		want       []string // finding kinds, in order
	}{
		{"unchanged", goBase, nil},
		{"assertion deleted", replace(goBase, "\tassert.Equal(t, 1, A())\n", ""), []string{"fewer_assertions TestA"}},
		{"assertion added", replace(goBase, "\tassert.Equal(t, 1, A())\n", "\tassert.Equal(t, 1, A())\n\trequire.NoError(t, nil)\n"), nil},
		{"if false", replace(goBase, "\tassert.Equal(t, 1, A())\n", "\tif false {\n\t\tassert.Equal(t, 1, A())\n\t}\n"), []string{"fewer_assertions TestA", "unreachable_assertions TestA"}},
		{"if !true && x", replace(goBase, "\tassert.Equal(t, 1, A())\n", "\tif (!true && x) {\n\t\tassert.Equal(t, 1, A())\n\t}\n"), []string{"fewer_assertions TestA", "unreachable_assertions TestA"}},
		{"if false, else kept", replace(goBase, "\tassert.Equal(t, 1, A())\n", "\tif false {\n\t} else {\n\t\tassert.Equal(t, 1, A())\n\t}\n"), nil},
		{"after return", replace(goBase, "func TestA(t *testing.T) {\n", "func TestA(t *testing.T) {\n\treturn\n"), []string{"fewer_assertions TestA", "unreachable_assertions TestA"}},
		{"in a subtest after return", replace(goBase, "\t\tif B() != 2 {", "\t\treturn\n\t\tif B() != 2 {"), []string{"fewer_assertions TestB", "unreachable_assertions TestB"}},
		{"t.Skip", replace(goBase, "func TestB(t *testing.T) {\n", "func TestB(t *testing.T) {\n\tt.Skip(\"later\")\n"), []string{"fewer_assertions TestB", "skip_added TestB", "unreachable_assertions TestB"}},
		{"testing.Short", replace(goBase, "func TestB(t *testing.T) {\n", "func TestB(t *testing.T) {\n\tif testing.Short() {\n\t\treturn\n\t}\n"), []string{"skip_added TestB"}},
		{"build tag", replace(goBase, "package m\n", "//go:build never\n\npackage m\n"), []string{"build_constraint_added"}},
		{"old build tag", replace(goBase, "package m\n", "// +build never\n\npackage m\n"), []string{"build_constraint_added"}},
		{"deleted", goBase[:len(goBase)-len("func TestB(t *testing.T) {\n\tt.Run(\"sub\", func(t *testing.T) {\n\t\tif B() != 2 {\n\t\t\tt.Fatal(\"B\")\n\t\t}\n\t})\n}\n")], []string{"test_deleted TestB"}},
		{"renamed", replace(goBase, "func TestB(", "func TestBRenamed("), []string{"test_renamed TestB"}},
		// a new test has no base to compare with: assertions it can never
		// run are flagged all the same
		{"new test with if false", goBase + "\nfunc TestC(t *testing.T) {\n\tif C() != 3 {\n\t\tif false {\n\t\t\tt.Errorf(\"C\")\n\t\t}\n\t}\n}\n", []string{"unreachable_assertions TestC"}},
		{"new test", goBase + "\nfunc TestC(t *testing.T) {\n\tif C() != 3 {\n\t\tt.Errorf(\"C\")\n\t}\n}\n", nil},
		// suite methods (grpc-go's grpctest) are tests too
		{"suite method assertion deleted", goBase + "\nfunc (s) TestD(t *testing.T) {\n\tt.Fatal(\"D\")\n}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kinds(t, "m_test.go", goBase, tc.cand)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

const pyBase = `import pytest

def test_a():
    assert a() == 1
    assert a() != 2

class TestB:
    def test_b(self):
        self.assertEqual(b(), 2)
`

func TestTamperPython(t *testing.T) {
	for _, tc := range []struct {
		name, cand string
		want       []string
	}{
		{"unchanged", pyBase, nil},
		{"fewer asserts", replace(pyBase, "    assert a() != 2\n", ""), []string{"fewer_assertions test_a"}},
		{"assert True", replace(pyBase, "    assert a() != 2\n", "    assert True\n"), []string{"fewer_assertions test_a"}},
		{"mark.skip", replace(pyBase, "def test_a():", "@pytest.mark.skip(reason=\"later\")\ndef test_a():"), []string{"skip_added test_a"}},
		{"xfail", replace(pyBase, "    def test_b(self):", "    @pytest.mark.xfail\n    def test_b(self):"), []string{"skip_added test_b"}},
		{"pytest.skip", replace(pyBase, "    assert a() == 1\n", "    pytest.skip()\n    assert a() == 1\n"), []string{"skip_added test_a"}},
		{"deleted", replace(pyBase, "def test_a():\n    assert a() == 1\n    assert a() != 2\n", ""), []string{"test_deleted test_a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kinds(t, "test_m.py", pyBase, tc.cand)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

const tsBase = `import { describe, it, expect } from "vitest";

describe("render", () => {
  it("shows the link", () => {
    expect(render(task)).toContain("a.zip");
    expect(render(task)).toContain("href");
  });
  test("hides it while running", () => {
    expect(render(running)).not.toContain("href");
  });
});
`

func TestTamperTS(t *testing.T) {
	for _, tc := range []struct {
		name, cand string
		want       []string
	}{
		{"unchanged", tsBase, nil},
		{"fewer expects", replace(tsBase, "    expect(render(task)).toContain(\"href\");\n", ""), []string{"fewer_assertions render shows the link"}},
		{"it.skip", replace(tsBase, "  it(\"shows", "  it.skip(\"shows"), []string{"skip_added", "skip_added render shows the link"}},
		{"xit", replace(tsBase, "  it(\"shows", "  xit(\"shows"), []string{"skip_added", "skip_added render shows the link"}},
		{"xdescribe", replace(tsBase, "describe(\"render\"", "xdescribe(\"render\""), []string{"skip_added"}},
		{"test.only", replace(tsBase, "  test(\"hides", "  test.only(\"hides"), []string{"only_added"}},
		{"deleted", replace(tsBase, "  test(\"hides it while running\", () => {\n    expect(render(running)).not.toContain(\"href\");\n  });\n", ""), []string{"test_deleted render hides it while running"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, kinds(t, "render.test.ts", tsBase, tc.cand)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func replace(s, old, new string) string {
	i := indexOf(s, old)
	if i < 0 {
		panic("no " + old)
	}
	return s[:i] + new + s[i+len(old):]
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestTamperGoSuiteMethod(t *testing.T) {
	base := goBase + "\nfunc (s) TestD(t *testing.T) {\n\tt.Fatal(\"D\")\n}\n"
	if diff := cmp.Diff([]string{"fewer_assertions TestD"}, kinds(t, "m_test.go", base, replace(base, "\tt.Fatal(\"D\")\n", ""))); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestTamperGoPackageCalls: fmt.Errorf builds an error, it asserts
// nothing — a closure's error checks rewritten as t.Fatalf calls are not
// fewer assertions (grpc-go-3361's upstream test patch was flagged), while
// an Errorf of the test's own T still counts.
func TestTamperGoPackageCalls(t *testing.T) {
	base := `package m

import (
	"fmt"
	"testing"
)

func TestE(t *testing.T) {
	check := func() error {
		if E() != 5 {
			return fmt.Errorf("E = %d", E())
		}
		if F() != 6 {
			return fmt.Errorf("F = %d", F())
		}
		return nil
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
}
`
	cand := replace(base, "\tif err := check(); err != nil {\n\t\tt.Fatal(err)\n\t}\n", "\tif E() != 5 {\n\t\tt.Fatalf(\"E\")\n\t}\n")
	cand = replace(cand, "\t\tif F() != 6 {\n\t\t\treturn fmt.Errorf(\"F = %d\", F())\n\t\t}\n", "")
	if diff := cmp.Diff([]string(nil), kinds(t, "m_test.go", base, cand)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// the only real assertion removed is still found
	if diff := cmp.Diff([]string{"fewer_assertions TestE"}, kinds(t, "m_test.go", base, replace(base, "\t\tt.Fatal(err)\n", ""))); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func kinds(t *testing.T, p, base, cand string) []string {
	t.Helper()
	b, ok1 := analyzeTest(p, []byte(base))
	c, ok2 := analyzeTest(p, []byte(cand))
	if !ok1 || !ok2 {
		t.Fatalf("%s: not a test file the tamper check reads", p)
	}
	var out []string
	for _, f := range compareTests(p, b, c) {
		k := f.Kind
		if f.Test != "" {
			k += " " + f.Test
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestPatchChanges: a path the workspace shows changed that the patch does
// not name (the harness's go mod download rewrote go.mod) is not the
// candidate's; quoted names still match.
func TestPatchChanges(t *testing.T) {
	patch := []byte("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/new_test.go b/new_test.go\nnew file mode 100644\n")
	changed := []sandbox.Change{{Status: "M", Path: "a.go"}, {Status: "M", Path: "go.mod"}, {Status: "A", Path: "new_test.go"}, {Status: "A", Path: "é.go"}}
	want := []sandbox.Change{{Status: "M", Path: "a.go"}, {Status: "A", Path: "new_test.go"}, {Status: "A", Path: "é.go"}}
	if diff := cmp.Diff(want, patchChanges(changed, patch)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
