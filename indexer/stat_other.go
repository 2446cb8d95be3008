//go:build !linux

package indexer

import (
	"errors"
	"io/fs"
)

// statSupported: without change times and inodes the stat snapshot is not
// kept, and every freshness check is a full scan.
const statSupported = false

func lstatPath(string) (fstat, error) { return fstat{}, errors.New("no stat snapshot on this system") }

func statOfInfo(fs.FileInfo) (fstat, bool) { return fstat{}, false }

func (s fstat) regular() bool { return false }
