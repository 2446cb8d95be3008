package contextpack

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// cl100k counts tokens of OpenAI's cl100k_base encoding without a regular
// expression engine. The encoding splits text into pieces with the pattern
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// and encodes each piece by byte-pair merges. tiktoken-go matches the
// pattern with a backtracking engine (regexp2), which took most of a
// 16k-token pack's time; cl100kPiece below is that pattern written out, one
// alternative after the other, as the engine would try them. The merges
// are the encoding's own, over its ranks (loaded offline, as tiktoken-go
// loads them). TestCl100kMatchesTiktoken compares the two on the
// repository's sources and on generated text.
type cl100k struct {
	ranks map[string]int
}

// count returns the number of tokens of text. Like tiktoken-go, it works on
// the text's runes: a byte that is not UTF-8 counts as U+FFFD.
func (c *cl100k) count(text string) int {
	rs := []rune(text)
	n := 0
	var buf []byte
	for i := 0; i < len(rs); {
		j := cl100kPiece(rs, i)
		buf = buf[:0]
		for _, r := range rs[i:j] {
			buf = utf8.AppendRune(buf, r)
		}
		n += c.pieceTokens(buf)
		i = j
	}
	return n
}

// pieceTokens is the number of tokens byte-pair merging leaves of piece.
func (c *cl100k) pieceTokens(piece []byte) int {
	if _, ok := c.ranks[string(piece)]; ok || len(piece) <= 1 {
		return 1
	}
	// parts[i] starts a part; rank[i] is the rank of parts i and i+1
	// merged (MaxInt: no such token). The lowest rank merges first, the
	// leftmost among equals.
	parts := make([]int, len(piece)+1)
	rank := make([]int, len(piece)+1)
	for i := range parts {
		parts[i] = i
		rank[i] = math.MaxInt
	}
	pair := func(i int) int { // rank of parts i, i+1 merged
		if i+2 < len(parts) {
			if r, ok := c.ranks[string(piece[parts[i]:parts[i+2]])]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i+2 < len(parts); i++ {
		rank[i] = pair(i)
	}
	for len(parts) > 1 {
		best, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if rank[i] < best {
				best, at = rank[i], i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		rank = append(rank[:at+1], rank[at+2:]...)
		rank[at] = pair(at)
		if at > 0 {
			rank[at-1] = pair(at - 1)
		}
	}
	return len(parts) - 1
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }
func isNumber(r rune) bool { return unicode.IsNumber(r) }
func isSpace(r rune) bool  { return unicode.IsSpace(r) }
func isLineBreak(r rune) bool {
	return r == '\r' || r == '\n'
}

// isOther: neither white space, a letter nor a number.
func isOther(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

// lowerASCII folds A-Z.
func lowerASCII(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// cl100kPiece returns the end of the piece that starts at rs[i] (i < len).
func cl100kPiece(rs []rune, i int) int {
	n := len(rs)
	at := func(k int) rune {
		if k < n {
			return rs[k]
		}
		return -1
	}
	r0 := rs[i]
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r0 == '\'' {
		switch a, b := lowerASCII(at(i+1)), lowerASCII(at(i+2)); {
		case a == 's' || a == 't' || a == 'm' || a == 'd':
			return i + 2
		case a == 'r' && b == 'e', a == 'v' && b == 'e', a == 'l' && b == 'l':
			return i + 3
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	j := i
	if !isLineBreak(r0) && !isLetter(r0) && !isNumber(r0) && i+1 < n && isLetter(rs[i+1]) {
		j = i + 1
	}
	if isLetter(rs[j]) {
		for j < n && isLetter(rs[j]) {
			j++
		}
		return j
	}
	// \p{N}{1,3}
	if isNumber(r0) {
		j = i + 1
		for j < n && j < i+3 && isNumber(rs[j]) {
			j++
		}
		return j
	}
	// ' '?[^\s\p{L}\p{N}]+[\r\n]*
	j = i
	if r0 == ' ' && i+1 < n && isOther(rs[i+1]) {
		j = i + 1
	}
	if isOther(rs[j]) {
		for j < n && isOther(rs[j]) {
			j++
		}
		for j < n && isLineBreak(rs[j]) {
			j++
		}
		return j
	}
	// the white space run from i
	k := i
	for k < n && isSpace(rs[k]) {
		k++
	}
	// \s*[\r\n]+: up to the run's last line break
	for m := k - 1; m >= i; m-- {
		if isLineBreak(rs[m]) {
			return m + 1
		}
	}
	// \s+(?!\S): the run, less its last character when something follows
	if k == n {
		return k
	}
	if k-i >= 2 {
		return k - 1
	}
	// \s+
	return k
}
