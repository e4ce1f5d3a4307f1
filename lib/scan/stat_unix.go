//go:build unix

package scan

import "golang.org/x/sys/unix"

// lstatMeta lstats path into a stack-allocated stat buffer: the scan's one
// syscall per file, without the FileInfo os.Lstat allocates.
func lstatMeta(path string) (meta, error) {
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	for err == unix.EINTR {
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		return meta{}, err
	}
	return meta{regular: uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG, size: st.Size,
		mtimeNs: st.Mtim.Nano(), mtimeSec: int64(st.Mtim.Sec)}, nil
}
