package strarena

import "unsafe"

// DefaultBlock is the size of an arena's blocks when New is given 0.
const DefaultBlock = 1 << 20

// Arena copies strings into large blocks. The zero value is not usable:
// call New.
type Arena struct {
	block []byte
	size  int
}

// New returns an arena with blocks of size bytes (DefaultBlock when
// size <= 0).
func New(size int) *Arena {
	if size <= 0 {
		size = DefaultBlock
	}
	return &Arena{size: size}
}

// String returns a copy of s held in the arena. A string longer than a
// quarter of a block gets its own allocation (it would waste up to a
// block's tail otherwise), and the empty string stays empty.
func (a *Arena) String(s string) string {
	n := len(s)
	if n == 0 {
		return ""
	}
	if n > a.size/4 {
		b := make([]byte, n)
		copy(b, s)
		return unsafe.String(&b[0], n)
	}
	if cap(a.block)-len(a.block) < n {
		a.block = make([]byte, 0, a.size)
	}
	off := len(a.block)
	a.block = append(a.block, s...)
	// The block's bytes up to len are never written again: the string
	// is immutable as Go requires.
	return unsafe.String(&a.block[off], n)
}
