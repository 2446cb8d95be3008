package repofs

import (
	"io/fs"
	"os"
	"path/filepath"
)

// verifyByName checks an opened file where the descriptor's path cannot be
// asked: the name, resolved now, must lead under the root, outside .git,
// to the same file that was opened.
func verifyByName(f *FS, info fs.FileInfo, rel string) Reason {
	real, err := filepath.EvalSymlinks(filepath.Join(f.root, filepath.FromSlash(rel)))
	if err != nil {
		return Escapes
	}
	if r := f.located(real); r != 0 {
		return r
	}
	now, err := os.Stat(real)
	if err != nil || !os.SameFile(now, info) {
		return Escapes
	}
	return 0
}
