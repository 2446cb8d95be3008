package contextpack

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestSignatureEnd: the head of a declaration ends where its brackets
// close and its body opens, however many lines it takes; a name line that
// is not the definition's own (an overload's, of the same symbol ID) is
// found again from the definition's start, past its decorators.
func TestSignatureEnd(t *testing.T) {
	long := "def configure(\n" + strings.Repeat("    option: int = 0,\n", 60) + "):\n    pass\n"
	tests := []struct {
		desc        string
		src         string
		lang        graph.Language
		start, name int // lines; name 0: another definition's line
		want        int
	}{
		{"python params with defaults and annotations", `def open_dataset(
    path: str | None = None,
    mode: Literal["w", "a"] = "w",
    sep: str = "\")",
    chunks: dict[str, int] | None = None,  # (unbalanced in a comment
) -> Dataset:
    return Dataset()
`, graph.LangPython, 1, 1, 6},
		{"python overload stub, the first overload's name line", `@overload
def to_netcdf(
    self,
    path: None = None,
) -> bytes: ...
`, graph.LangPython, 1, 0, 5},
		{"python decorator with arguments over lines", `@pytest.mark.parametrize(
    "mode", ["w", "a"],
)
@overload
def write(
    mode,
): ...
`, graph.LangPython, 1, 0, 7},
		{"python head longer than forty lines", long, graph.LangPython, 1, 1, 62},
		{"go multi-line params and results", `// Write writes.
func Write(
	path string,
	opts ...Option,
) (
	n int,
	err error,
) {
	return 0, nil
}
`, graph.LangGo, 1, 2, 8},
		{"go interface method", `	Write(
		path string,
	) error
	Close() error
`, graph.LangGo, 1, 1, 3},
		{"typescript overload declaration", `  write(
    ds: Dataset,
    path: string,
  ): void;
  write(ds: Dataset): Uint8Array;
`, graph.LangTypeScript, 1, 1, 4},
		{"typescript implementation, a decorator above", `@logged()
export function toNetCDF(
  ds: Dataset,
  opts: { path?: string } = {},
): Uint8Array | void {
  return;
}
`, graph.LangTypeScript, 1, 0, 5},
		{"brackets that never close: the definition whole", "def broken(\n    a,\n    b\n", graph.LangPython, 1, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(tt.src, "\n"), "\n")
			name := tt.name
			if tt.name == 0 {
				name = len(lines) + 10 // another overload's, below this one
			}
			if got := signatureEnd(lines, tt.start, name, len(lines), tt.lang); got != tt.want {
				t.Errorf("signatureEnd = %d, want %d:\n%s", got, tt.want, numbered(lines, tt.start, got))
			}
		})
	}
}

func numbered(lines []string, from, to int) string {
	var b strings.Builder
	for n := from; n <= to && n <= len(lines); n++ {
		fmt.Fprintf(&b, "%3d %s\n", n, lines[n-1])
	}
	return b.String()
}
