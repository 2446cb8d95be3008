package vector

import "golang.org/x/sys/cpu"

// simd says whether dotSIMD may be used: AVX2 is there.
var simd = cpu.X86.HasAVX2

//go:noescape
func dotAVX2(r, q []int8) int32

// dotSIMD is dot with AVX2 for each 32 bytes, q free of -128.
func dotSIMD(r, q []int8) int32 {
	n := len(q) &^ 31
	acc := dotAVX2(r[:n], q[:n])
	if n < len(q) {
		acc += dot(r[n:len(q)], q[n:])
	}
	return acc
}
