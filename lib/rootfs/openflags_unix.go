//go:build unix

package rootfs

import "syscall"

// openFlags make opening a checked file safe: it never blocks (a FIFO
// swapped in after the check) and never follows a symlink in the last
// element (the path is already resolved).
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
