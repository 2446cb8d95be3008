//go:build unix

package repofs

import "syscall"

// openFlags: a FIFO swapped in must not block the open.
const openFlags = syscall.O_NONBLOCK
