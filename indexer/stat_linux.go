//go:build linux

package indexer

import (
	"io/fs"
	"syscall"
)

// statSupported: the stat snapshot needs change times and inodes.
const statSupported = true

func fromSys(st *syscall.Stat_t) fstat {
	return fstat{
		size:  st.Size,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		ino:   st.Ino,
		dev:   st.Dev,
		mode:  st.Mode,
	}
}

// lstatPath is os.Lstat without the allocation of a FileInfo.
func lstatPath(abs string) (fstat, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(abs, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fstat{}, err
		}
		return fromSys(&st), nil
	}
}

// statOfInfo is the snapshot's stat of a FileInfo the walk made.
func statOfInfo(info fs.FileInfo) (fstat, bool) {
	if info == nil {
		return fstat{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fstat{}, false
	}
	return fromSys(st), true
}

func (s fstat) regular() bool { return s.mode&syscall.S_IFMT == syscall.S_IFREG }
