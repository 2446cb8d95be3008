//go:build !unix

package repofs

const openFlags = 0
