//go:build unix

package mmapfile

import (
	"io/fs"
	"syscall"
)

func inode(st fs.FileInfo) (dev, ino uint64) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), uint64(s.Ino)
	}
	return 0, 0
}
