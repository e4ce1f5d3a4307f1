//go:build !unix

package rootfs

// openFlags: no extra open flags where the unix ones do not exist.
const openFlags = 0
