package vector

import (
	"bytes"
	"testing"
	"unsafe"
)

// FuzzDecode feeds arbitrary file images to the decoder: it must reject
// them or return a consistent, searchable index, and never panic.
func FuzzDecode(f *testing.F) {
	for _, n := range []int{0, 1, 3} {
		ix, _ := randomIndex(f, int64(n), n, 4)
		var b bytes.Buffer
		b.Write(encodeHeader(ix.model, ix.dim, len(ix.labels)))
		sum, _ := ix.writeBody(&b)
		b.Write(encodeTrailer(sum))
		f.Add(b.Bytes())
	}
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		words := make([]uint64, (len(data)+7)/8+1)
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(data))
		copy(buf, data)
		ix, err := decode(buf)
		if err != nil {
			return
		}
		if len(ix.vecs) != len(ix.labels)*ix.dim || len(ix.slots) != len(ix.labels) {
			t.Fatalf("inconsistent index: %d labels, %d elements, dim %d", len(ix.labels), len(ix.vecs), ix.dim)
		}
		if _, err := ix.Search(make([]float32, ix.dim), 3, nil); err != nil {
			t.Fatal(err)
		}
	})
}
