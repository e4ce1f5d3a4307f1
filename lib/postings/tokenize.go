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

// Tokenizer flags (fts5.h).
const (
	tokenizeQuery    = 1
	tokenizeDocument = 4
)

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
// valid only during the call. query selects query-mode tokenization
// (identical output for this tokenizer).
func (t *tokenizer) each(text string, query bool, fn func(tok []byte)) error {
	if text == "" {
		return nil
	}
	flags := C.int(tokenizeDocument)
	if query {
		flags = tokenizeQuery
	}
	rc := C.d2mTokRun(t.c, flags, (*C.char)(unsafe.Pointer(unsafe.StringData(text))), C.int(len(text)))
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

// Tokens returns the terms FTS5 would make of s, in order.
func Tokens(s string) ([]string, error) {
	t, err := getTokenizer()
	if err != nil {
		return nil, err
	}
	defer putTokenizer(t)
	var out []string
	err = t.each(s, false, func(tok []byte) { out = append(out, string(tok)) })
	return out, err
}

// clog is the C library's natural logarithm (see d2mLog).
func clog(x float64) float64 { return float64(C.d2mLog(C.double(x))) }
