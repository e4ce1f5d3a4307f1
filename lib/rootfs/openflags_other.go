//go:build !unix

package rootfs

// No extra open flags where the unix ones do not exist.
const (
	nonBlock = 0
	noFollow = 0
)
