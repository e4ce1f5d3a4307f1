package postings

/*
#cgo LDFLAGS: -lm
#include "tokenize.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// tokenizeDocument is FTS5_TOKENIZE_DOCUMENT (fts5.h). This tokenizer
// ignores the flags: a query's terms are tokenized the same way.
const tokenizeDocument = 4

// tokenizer is one instance of FTS5's "porter unicode61 remove_diacritics
// 2 tokenchars '_'" tokenizer (tokenize.c). It is not safe for concurrent
// use; take one from the pool.
type tokenizer struct {
	c *C.d2mTok
}

// tokenizers holds idle instances; an instance costs a few kilobytes of
// C memory, freed when the pool is full.
var tokenizers = make(chan *tokenizer, 4*runtime.GOMAXPROCS(0))

// getTokenizer returns an idle instance or a new one.
func getTokenizer() (*tokenizer, error) {
	select {
	case t := <-tokenizers:
		return t, nil
	default:
	}
	var rc C.int
	c := C.d2mTokNew(&rc)
	if c == nil {
		return nil, errcode.New(errcode.BuildUnsupported, "full-text tokenizer unavailable (SQLite result code %d): build with -tags sqlite_fts5", int(rc))
	}
	return &tokenizer{c: c}, nil
}

// putTokenizer returns t to the pool.
func putTokenizer(t *tokenizer) {
	select {
	case tokenizers <- t:
	default:
		C.d2mTokFree(t.c)
	}
}

// each calls fn with every token of text in order. The token's bytes are
// valid only during the call.
func (t *tokenizer) each(text string, fn func(tok []byte)) error {
	if text == "" {
		return nil
	}
	rc := C.d2mTokRun(t.c, tokenizeDocument, (*C.char)(unsafe.Pointer(unsafe.StringData(text))), C.int(len(text)))
	if rc != 0 {
		return fmt.Errorf("tokenize: SQLite result code %d", int(rc))
	}
	n := int(t.c.n)
	if n == 0 {
		return nil
	}
	bytes := unsafe.Slice((*byte)(unsafe.Pointer(t.c.bytes)), int(t.c.len))
	ends := unsafe.Slice((*C.int)(unsafe.Pointer(t.c.ends)), n)
	start := 0
	for _, e := range ends {
		fn(bytes[start:int(e)])
		start = int(e)
	}
	return nil
}

// Tokens returns the terms FTS5 would make of s, in order, as a document
// or as a query term (the same for this tokenizer).
func Tokens(s string) ([]string, error) {
	t, err := getTokenizer()
	if err != nil {
		return nil, err
	}
	defer putTokenizer(t)
	var out []string
	err = t.each(s, func(tok []byte) { out = append(out, string(tok)) })
	return out, err
}

// clog is the C library's natural logarithm (see d2mLog).
func clog(x float64) float64 { return float64(C.d2mLog(C.double(x))) }
