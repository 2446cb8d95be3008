package lsp

import "testing"

func TestColumns(t *testing.T) {
	line := `x := "é😀" + Greet()` // é: 2 bytes, 1 unit; 😀: 4 bytes, 2 units
	for _, c := range []struct{ bytes, units int }{
		{0, 0}, {6, 6}, {8, 7}, {12, 9}, {13, 10}, {16, 13}, {len(line), 20},
	} {
		if got := utf16Col(line, c.bytes); got != c.units {
			t.Errorf("utf16Col(%d) = %d, want %d", c.bytes, got, c.units)
		}
		if got := byteCol(line, c.units); got != c.bytes {
			t.Errorf("byteCol(%d) = %d, want %d", c.units, got, c.bytes)
		}
	}
	// Inside a surrogate pair: rounds up to the next rune; past the end: clamps.
	if got := byteCol(line, 8); got != 12 {
		t.Errorf("byteCol inside a pair = %d", got)
	}
	if byteCol(line, 99) != len(line) || utf16Col(line, 99) != 20 {
		t.Error("no clamping")
	}
}
