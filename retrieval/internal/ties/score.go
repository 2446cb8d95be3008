package ties

import (
	"cmp"
	"math"
)

// Compare compares scores to 36 significant bits (about 11 decimal
// digits): scores that are equal in exact arithmetic come out of
// floating-point sums (over maps, over index segments, in another order)
// with different last bits, and must tie all the same.
func Compare(a, b float64) int {
	return cmp.Compare(Round(a), Round(b))
}

// Round rounds v's mantissa to 36 bits, half up; it runs in every
// comparison of a sort, so it works on the bits rather than in decimal.
func Round(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	const drop = 52 - 36
	b := math.Float64bits(v)
	b += 1 << (drop - 1)
	b &^= 1<<drop - 1
	return math.Float64frombits(b)
}
