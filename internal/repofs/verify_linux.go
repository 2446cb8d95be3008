package repofs

import (
	"io/fs"
	"os"
	"strconv"
)

// verify checks the opened file: its real path, as the kernel names the
// descriptor, must be under the root and outside .git. (os.Root already
// refused links out; this also catches a link inside the root into .git.)
func (f *FS) verify(file *os.File, info fs.FileInfo, rel string) Reason {
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(file.Fd())))
	if err != nil {
		return verifyByName(f, info, rel)
	}
	return f.located(real)
}
