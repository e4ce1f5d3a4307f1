package store

// #cgo LDFLAGS: -lm
// int d2mBm25AutoExtension(void);
import "C"

// The d2m_bm25 ranking function (bm25.c) is added to every SQLite
// connection the process opens; it is registered before the first one.
func init() {
	if rc := C.d2mBm25AutoExtension(); rc != 0 {
		panic("store: cannot register d2m_bm25")
	}
}
