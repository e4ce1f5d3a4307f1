//go:build unix

package vector

import (
	"io/fs"
	"syscall"
)

// fileID identifies one version of a file: a rename over the path changes
// the inode, and an in-place rewrite changes the size or mtime.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

func idOf(st fs.FileInfo) fileID {
	id := fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(s.Dev), uint64(s.Ino)
	}
	return id
}
