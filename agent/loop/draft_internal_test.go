package loop

import "testing"

// TestTestGlob: a reached test's directory enters a draft's write scope
// only as its test files, never its code.
func TestTestGlob(t *testing.T) {
	for in, want := range map[string]string{
		"server/api/handler_test.go": "server/api/*_test.go",
		"x_test.go":                  "*_test.go",
		"tests/unit/test_io.py":      "tests/unit/test_*.py",
		"pkg/io_test.py":             "pkg/*_test.py",
		"web/src/render.test.ts":     "web/src/*.test.ts",
		"web/src/api.spec.tsx":       "web/src/*.spec.tsx",
	} {
		if got := testGlob(in); got != want {
			t.Errorf("testGlob(%q) = %q, want %q", in, got, want)
		}
	}
}
