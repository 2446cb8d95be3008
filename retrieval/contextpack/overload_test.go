package contextpack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/contextpack"
)

// signatureFixture: definitions whose heads take several lines — Python
// overload stubs and a long parameter list with defaults and annotations,
// a Go function with its parameters on lines of their own, TypeScript
// overload declarations — each with a body long enough that a small pack
// can hold only its signature.
var signatureFixture = map[string]string{
	"dataset.py": `from typing import Literal, overload


class Dataset:
    """A dataset that can be written to netCDF."""

    @overload
    def to_netcdf(
        self,
        path: None = None,
        mode: Literal["w", "a"] = "w",
        format: str | None = None,
    ) -> bytes: ...

    @overload
    def to_netcdf(
        self,
        path: str,
        mode: Literal["w", "a"] = "w",
        format: str | None = None,
    ) -> None: ...

    def to_netcdf(
        self,
        path: str | None = None,
        mode: Literal["w", "a"] = "w",
        format: str | None = None,
    ) -> bytes | None:
        """Write the dataset to a netCDF file."""
` + strings.Repeat("        path = self._netcdf_write(path, mode, format)  # netcdf dataset write\n", 150) + `        return None


def open_netcdf(
    path: str,
    *,
    engine: str = "netcdf4",
    chunks: dict[str, int] | None = None,
    decode_times: bool = True,
):
    """Open a netCDF dataset."""
` + strings.Repeat("    engine = engine.strip()  # netcdf dataset open\n", 150) + `    return Dataset()
`,
	"netcdf.go": `package netcdf

// WriteNetCDF writes a dataset to a netCDF file.
func WriteNetCDF(
	path string,
	mode string,
	format string,
	opts ...Option,
) (int, error) {
` + strings.Repeat("\tpath = path + mode // netcdf dataset write\n", 150) + `	return 0, nil
}

// Option configures a netCDF write.
type Option func()
`,
	"netcdf.ts": `export class Dataset {}

export class Writer {
  write(
    ds: Dataset,
    path: string,
  ): void;
  write(
    ds: Dataset,
  ): Uint8Array;
  write(
    ds: Dataset,
    path?: string,
  ): Uint8Array | void {
` + strings.Repeat("    path = path + \"netcdf dataset write\";\n", 150) + `    return;
  }
}

export function toNetCDF(
  ds: Dataset,
  path: string,
): void;
export function toNetCDF(
  ds: Dataset,
): Uint8Array;
export function toNetCDF(
  ds: Dataset,
  path?: string,
): Uint8Array | void {
` + strings.Repeat("  path = path + \"netcdf dataset write\";\n", 150) + `  return;
}
`,
}

// TestSignaturesWhole: an item that comes as its signature holds the whole
// head — every line up to the body, Python's colon or the declaration's
// end, with the decorators above it — never `def to_netcdf(` alone.
func TestSignaturesWhole(t *testing.T) {
	root := t.TempDir()
	for p, c := range signatureFixture {
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, done := build(t, root)
	defer done()
	p, err := b.Build(context.Background(), contextpack.Request{Task: "write the netcdf dataset to_netcdf open_netcdf WriteNetCDF toNetCDF", Budget: 1500, Format: "json", FullShare: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string]bool{}
	for _, it := range p.Items {
		if it.Kind != contextpack.KindSignature {
			continue
		}
		lines := strings.Split(signatureFixture[it.Path], "\n")
		if l := strings.TrimSpace(lines[it.StartLine-2]); strings.HasPrefix(l, "@") {
			t.Errorf("%s:%d: the decorator %q above the signature is left out:\n%s", it.Path, it.StartLine, l, it.Content)
		}
		head := lines[it.StartLine-1 : it.EndLine]
		if !headComplete(head, filepath.Ext(it.Path)) {
			t.Errorf("%s:%d-%d: the signature is cut:\n%s", it.Path, it.StartLine, it.EndLine, it.Content)
		}
		for _, l := range head {
			if !strings.Contains(it.Content, l) {
				t.Errorf("%s:%d-%d: line %q of the signature is not in the item:\n%s", it.Path, it.StartLine, it.EndLine, l, it.Content)
			}
		}
		langs[filepath.Ext(it.Path)] = true
	}
	for _, ext := range []string{".py", ".go", ".ts"} {
		if !langs[ext] {
			t.Errorf("no signature item of a %s file: %+v", ext, p.Items)
		}
	}
}

// headComplete: the lines' brackets balance and the last one ends the
// head — Python's colon, a brace language's "{" or ";".
func headComplete(head []string, ext string) bool {
	depth := 0
	for _, l := range head {
		if strings.HasPrefix(strings.TrimSpace(l), "//") || strings.HasPrefix(strings.TrimSpace(l), "@") {
			continue
		}
		depth += strings.Count(l, "(") + strings.Count(l, "[") - strings.Count(l, ")") - strings.Count(l, "]")
	}
	last := strings.TrimSpace(head[len(head)-1])
	if ext == ".py" {
		last = strings.TrimSpace(strings.TrimSuffix(last, "..."))
		return depth == 0 && strings.HasSuffix(last, ":")
	}
	return depth == 0 && (strings.HasSuffix(last, "{") || strings.HasSuffix(last, ";"))
}
