package graph

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// GoTestFunc is what `go test` makes of a function of a _test.go file.
type GoTestFunc uint8

const (
	// GoNotTest: a helper; go test never calls it by itself.
	GoNotTest GoTestFunc = iota
	// GoTest: TestXxx(t *testing.T), selected by -run.
	GoTest
	// GoTestMain: TestMain(m *testing.M), the package's entry point: every
	// test of the package runs through it; -run cannot select it.
	GoTestMain
	// GoBenchmark: BenchmarkXxx, selected by -bench.
	GoBenchmark
	// GoFuzz: FuzzXxx; -run runs its seed corpus.
	GoFuzz
	// GoExample: ExampleXxx; -run runs it when it has an output comment.
	GoExample
)

// GoTestKind is the one rule for which Go functions are tests, the go
// tool's (cmd/go's isTest): in a _test.go file, a name that is the prefix
// (Test, Benchmark, Fuzz, Example) alone or the prefix followed by a
// character that is not a lower-case letter — TestFoo and Test_foo are
// tests, Testify is not. Methods are never tests; the caller passes
// top-level functions only.
func GoTestKind(path, name string) GoTestFunc {
	if !strings.HasSuffix(path, "_test.go") {
		return GoNotTest
	}
	if name == "TestMain" {
		return GoTestMain
	}
	for _, k := range []struct {
		prefix string
		kind   GoTestFunc
	}{{"Test", GoTest}, {"Benchmark", GoBenchmark}, {"Fuzz", GoFuzz}, {"Example", GoExample}} {
		if !strings.HasPrefix(name, k.prefix) {
			continue
		}
		rest := name[len(k.prefix):]
		if rest == "" {
			return k.kind
		}
		r, _ := utf8.DecodeRuneInString(rest)
		if !unicode.IsLower(r) {
			return k.kind
		}
	}
	return GoNotTest
}

// IsGoTest reports whether a function of a file is a test `go test -run`
// selects: TestXxx in a _test.go file, not TestMain (the package's entry
// point) and not benchmarks, fuzz targets or examples.
func IsGoTest(path, name string) bool {
	return GoTestKind(path, name) == GoTest
}
