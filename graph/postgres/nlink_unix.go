//go:build unix

package postgres

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of hard links to a file (0 if unknown).
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
