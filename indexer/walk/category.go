package walk

import (
	"path"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

// The rules below decide a file's category (graph.FileCategory) once, when
// it is indexed; search, packs and impact read the stored decision. They
// are the rules search applied to paths at query time before the category
// was stored, moved here unchanged, so that rankings did not move: where
// they differ from other rules in the indexer (the extractor's per-language
// test-file rules decide whether a symbol is a test, a different question;
// LanguageOf knows more C++ extensions than docs do), they keep search's
// decision.

// Category decides the category of the indexed file p. isFile reports
// whether a path is an indexed file of the same generation (the vendored
// rule for Python looks at the packages around p).
func Category(p string, isFile func(string) bool) graph.FileCategory {
	var c graph.FileCategory
	if IsTest(p) {
		c |= graph.FileTest
	}
	if IsVendored(p, isFile) {
		c |= graph.FileVendored
	}
	if IsDocs(p) {
		c |= graph.FileDocs
	}
	return c
}

// IsTest recognises test files by the conventions of the languages cairn
// indexes: by the file's name, or by a directory of tests or test data
// anywhere above it.
func IsTest(p string) bool {
	b := path.Base(p)
	switch {
	case strings.HasSuffix(b, "_test.go"), strings.HasPrefix(b, "test_") && strings.HasSuffix(b, ".py"),
		strings.HasSuffix(b, "_test.py"), b == "conftest.py", strings.Contains(b, ".test."), strings.Contains(b, ".spec."),
		strings.HasSuffix(b, "Test.java"), strings.HasSuffix(b, "Tests.java"),
		strings.HasSuffix(b, "_spec.rb"), strings.HasSuffix(b, "_test.rb"), strings.HasPrefix(b, "test_") && strings.HasSuffix(b, ".rb"),
		strings.HasSuffix(b, "Test.php"), strings.HasSuffix(b, "Test.cs"), strings.HasSuffix(b, "Tests.cs"):
		return true
	}
	sp := "/" + p
	for _, dir := range []string{"/test/", "/tests/", "/testing/", "/__tests__/", "/testdata/", "/spec/"} {
		if strings.Contains(sp, dir) {
			return true
		}
	}
	return false
}

// vendorDirs are the directory names under which projects keep copies of
// other projects' code.
var vendorDirs = map[string]bool{"vendor": true, "vendors": true, "_vendor": true, "vendored": true,
	"third_party": true, "thirdparty": true, "third-party": true, "3rdparty": true, "extern": true,
	"externals": true, "node_modules": true, "bower_components": true}

// IsVendored reports whether p lies in a copy of another project: below a
// directory named as vendorDirs are, at any depth, or in a Python package
// named "packages" inside another package (the idiom of requests and older
// pip: both packages/__init__.py and the parent's __init__.py are indexed
// files, by isFile; nil isFile skips this rule).
func IsVendored(p string, isFile func(string) bool) bool {
	dir := path.Dir(p)
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if vendorDirs[path.Base(d)] {
			return true
		}
	}
	if isFile == nil {
		return false
	}
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if path.Base(d) == "packages" && isFile(d+"/__init__.py") && isFile(path.Join(path.Dir(d), "__init__.py")) {
			return true
		}
	}
	return false
}

// VendoredBy reports whether a change to the presence of the indexed file p
// can change other files' IsVendored: p is a Python package's __init__.py.
func VendoredBy(p string) bool { return path.Base(p) == "__init__.py" }

// codeExts are the extensions of the languages cairn parses, as written
// (an upper-case extension is not code).
var codeExts = map[string]bool{".go": true, ".py": true, ".pyi": true, ".pyx": true, ".ts": true, ".tsx": true, ".mts": true, ".cts": true,
	".js": true, ".jsx": true, ".mjs": true, ".cjs": true, ".java": true, ".rs": true, ".c": true, ".h": true, ".cc": true,
	".cpp": true, ".cxx": true, ".hpp": true, ".hh": true}

// IsDocs reports whether p is not source code by its extension: prose,
// configuration, templates and data (the questions cairn answers are about
// behaviour, which code has).
func IsDocs(p string) bool { return !codeExts[path.Ext(p)] }
