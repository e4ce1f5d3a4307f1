//go:build !unix

package vector

import "io/fs"

// fileID identifies one version of a file by size and mtime.
type fileID struct {
	size  int64
	mtime int64
}

func idOf(st fs.FileInfo) fileID {
	return fileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
}
