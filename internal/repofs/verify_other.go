//go:build !linux

package repofs

import (
	"io/fs"
	"os"
)

func (f *FS) verify(file *os.File, info fs.FileInfo, rel string) Reason {
	return verifyByName(f, info, rel)
}
