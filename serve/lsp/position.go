package lsp

import (
	"strings"
	"unicode/utf8"
)

// Positions: LSP counts columns in UTF-16 code units; cairn's index counts
// bytes. These two functions are the only place the two meet.

// byteCol converts a UTF-16 column in line to a byte offset (clamped to
// the line).
func byteCol(line string, utf16 int) int {
	units := 0
	for i, r := range line {
		if units >= utf16 {
			return i
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return len(line)
}

// utf16Col converts a byte offset in line to a UTF-16 column (clamped).
func utf16Col(line string, bytes int) int {
	if bytes > len(line) {
		bytes = len(line)
	}
	units := 0
	for i := 0; i < bytes; {
		r, n := utf8.DecodeRuneInString(line[i:])
		if i+n > bytes {
			break
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += n
	}
	return units
}

// text is a file's content split into lines (without line breaks).
type text []string

func splitText(s string) text {
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// line returns line n (0-based), "" past the end.
func (t text) line(n int) string {
	if n < 0 || n >= len(t) {
		return ""
	}
	return t[n]
}
