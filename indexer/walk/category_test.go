package walk

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-dev/cairn/graph"
)

// TestCategory is the table of the category rules: the decisions search
// made from paths at query time before categories were stored (fuse's
// isTestPath, isVendored and codeExts), which rankings depend on.
func TestCategory(t *testing.T) {
	// the indexed files the Python vendoring rule looks at
	files := map[string]bool{
		"requests/__init__.py": true, "requests/packages/__init__.py": true,
		"lonely/packages/__init__.py": true, // no package around it
		"__init__.py":                 true, "packages/__init__.py": true,
		"src/pip/__init__.py": true, "src/pip/_internal/packages/__init__.py": true, // no __init__.py in _internal
	}
	isFile := func(p string) bool { return files[p] }
	const (
		code     graph.FileCategory = 0
		test                        = graph.FileTest
		vendored                    = graph.FileVendored
		docs                        = graph.FileDocs
	)
	for _, tc := range []struct {
		path string
		want graph.FileCategory
	}{
		// code
		{"main.go", code},
		{"pkg/server/server.go", code},
		{"src/app.tsx", code},
		{"lib/contest.py", code},       // not conftest.py
		{"pkg/attest/attest.go", code}, // "test" inside a name is not a directory of tests
		{"pkg/latest/x.go", code},
		{"src/Testing.java", code},
		{"include/foo.hpp", code},
		{"mod.pyx", code},

		// tests, by name
		{"pkg/server/server_test.go", test},
		{"test_views.py", test},
		{"app/views_test.py", test},
		{"conftest.py", test},
		{"src/button.test.tsx", test},
		{"src/button.spec.js", test},
		{"src/main/java/FooTest.java", test},
		{"src/main/java/FooTests.java", test},
		{"test_data.json", docs}, // test_ names a test only in Python
		// tests, by directory at any depth
		{"test/helpers.go", test},
		{"tests/unit/a.py", test},
		{"internal/testing/fake.go", test},
		{"web/src/__tests__/a.js", test},
		{"retrieval/fuse/testdata/ranking/jobq/queue.go", test},
		{"a/b/c/tests/d/e.rs", test},

		// vendored, at any depth
		{"vendor/github.com/x/y/y.go", vendored},
		{"third_party/zlib/inflate.c", vendored},
		{"src/lib/vendor/left/pad.go", vendored},
		{"a/b/third_party/c/d.go", vendored},
		{"web/app/node_modules/left-pad/index.js", vendored},
		{"deep/er/_vendor/x.py", vendored},
		{"x/bower_components/y.js", vendored},
		{"x/3rdparty/y.cc", vendored},
		{"x/extern/y.h", vendored},
		{"vendorlike/x.go", code}, // the name must be the whole directory's
		{"x/vendor.go", code},     // a file named so is not a directory of copies
		// vendored: a Python package named packages inside a package
		{"requests/packages/__init__.py", vendored},
		{"requests/packages/urllib3/poolmanager.py", vendored},
		{"packages/chardet/x.py", vendored}, // top-level: __init__.py at the root
		{"lonely/packages/x.py", code},
		{"src/pip/_internal/packages/x.py", code},
		{"requests/api.py", code},

		// docs: anything not of a parsed language's extension, as written
		{"README.md", docs},
		{"docs/guide.rst", docs},
		{"config/settings.yaml", docs},
		{"templates/page.html", docs},
		{"Makefile", docs},
		{"src/weird.C", docs},  // upper-case extension
		{"src/impl.ipp", docs}, // C++ to LanguageOf, not code to search
		{"src/impl.hxx", docs},

		// combinations
		{"vendor/x/y_test.go", vendored | test},
		{"tests/fixtures/data.json", test | docs},
		{"node_modules/a/test/README.md", vendored | test | docs},
	} {
		if got := Category(tc.path, isFile); got != tc.want {
			t.Errorf("Category(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestVendoredNested fails if the vendored rule looks only at the top
// directory (or only at the file's own directory).
func TestVendoredNested(t *testing.T) {
	var got []string
	for _, p := range []string{
		"vendor/a.go",                           // top
		"services/api/vendor/a.go",              // below the top
		"services/api/vendor/github.com/x/a.go", // several levels below the vendor directory
		"lib/third_party/zlib/src/inflate.c",
		"frontend/packages/ui/node_modules/react/index.js",
	} {
		if IsVendored(p, nil) {
			got = append(got, p)
		}
	}
	want := []string{"vendor/a.go", "services/api/vendor/a.go", "services/api/vendor/github.com/x/a.go",
		"lib/third_party/zlib/src/inflate.c", "frontend/packages/ui/node_modules/react/index.js"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vendored paths (-want +got):\n%s", diff)
	}
}

func TestFileCategoryString(t *testing.T) {
	for c, want := range map[graph.FileCategory]string{
		0:                                        "code",
		graph.FileTest:                           "test",
		graph.FileVendored | graph.FileDocs:      "vendored|docs",
		graph.FileTest | graph.FileVendored | 64: "test|vendored|FileCategory(0x40)",
	} {
		if got := c.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint8(c), got, want)
		}
	}
}
