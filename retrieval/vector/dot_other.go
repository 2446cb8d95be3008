//go:build !amd64

package vector

// simd: no vector kernel on this architecture; dot is used.
var simd = false

func dotSIMD(r, q []int8) int32 { return dot(r, q) }
