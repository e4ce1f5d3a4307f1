//go:build unix

package vector

import (
	"os"
	"syscall"
)

// mapFile maps the whole file at path read-only and shared; release
// unmaps it. Pages are read on first touch, so opening costs no I/O
// beyond what is looked at. An empty file maps to nil.
func mapFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 {
		return nil, func() {}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}

// evictMapping drops the process's resident pages of a mapping made by
// mapFile (they stay in the page cache and fault back in when touched),
// so a pass over a large file does not grow the resident set by its size.
func evictMapping(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
