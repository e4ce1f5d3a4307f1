package mmapfile

import "io/fs"

// FileID identifies one version of a file, to tell whether a path still
// names the file last read: a rename over the path changes the inode
// (where the system has inodes), an in-place rewrite the size or mtime.
// IDs compare with ==.
type FileID struct {
	dev, ino    uint64 // 0 without inodes
	size, mtime int64
}

// IDOf returns the identity of the file st describes.
func IDOf(st fs.FileInfo) FileID {
	id := FileID{size: st.Size(), mtime: st.ModTime().UnixNano()}
	id.dev, id.ino = inode(st)
	return id
}
