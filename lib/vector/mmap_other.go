//go:build !unix

package vector

import (
	"os"
	"unsafe"
)

// mapFile reads the whole file into 8-byte aligned heap memory (no mmap
// on this platform).
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

// evictMapping does nothing: mapFile made a heap copy.
func evictMapping([]byte) {}
