//go:build !unix

package mmapfile

import (
	"os"
	"unsafe"
)

// Without mmap the file is read into 8-byte aligned heap memory.
func mapFile(path string) ([]byte, func(), error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(raw) == 0 {
		return nil, func() {}, nil
	}
	words := make([]uint64, (len(raw)+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(raw))
	copy(b, raw)
	return b, func() {}, nil
}

func evict([]byte) {}
