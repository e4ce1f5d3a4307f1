//go:build unix

package rootfs

import "syscall"

// Open flags that make opening a checked file safe: nonBlock never blocks
// (a FIFO swapped in after the check), noFollow never follows a symlink in
// the last element (for a path already resolved).
const (
	nonBlock = syscall.O_NONBLOCK
	noFollow = syscall.O_NOFOLLOW
)
