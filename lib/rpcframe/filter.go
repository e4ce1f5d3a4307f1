package rpcframe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// DefaultMaxLine bounds a message on a Filter when maxLine is 0 (16 MiB,
// the SDK's own stdio default).
const DefaultMaxLine = 16 << 20

// SyncWriter serializes writes to w, so the error answers a Filter writes
// never interleave with the SDK's messages (each is one Write of a line).
func SyncWriter(w io.Writer) io.Writer { return &syncWriter{w: w} }

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Filter reads newline-delimited JSON-RPC messages from in and yields the
// ones Check accepts, each on one line. It answers every other line on
// answers itself (a SyncWriter shared with the SDK's output) and goes on
// reading: one bad line never ends the stream. A line longer than maxLine
// bytes (0: DefaultMaxLine) is discarded unbuffered and answered -32600;
// blank lines are skipped. Batches are refused unless the client's
// initialize asked for one of batchVersions (protocol versions that still
// have them); then CheckBatch applies. Closing the filter closes in if it
// is an io.Closer.
func Filter(in io.Reader, answers io.Writer, maxLine int, batchVersions ...string) io.ReadCloser {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &filter{in: in, br: bufio.NewReaderSize(in, 64<<10), out: answers, max: maxLine, batchVersions: batchVersions}
}

type filter struct {
	in      io.Reader
	br      *bufio.Reader
	out     io.Writer
	max     int
	pending []byte // the rest of an accepted line, newline included
	line    []byte

	batchVersions []string
	batches       bool // the session's protocol version has batches
}

func (f *filter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.next()
		if err != nil {
			return 0, err
		}
		f.pending = line
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next returns the next accepted line with its newline, answering the
// refused ones.
func (f *filter) next() ([]byte, error) {
	for {
		line, tooLong, err := f.readLine()
		if err != nil && !(errors.Is(err, io.EOF) && (tooLong || len(line) > 0)) {
			return nil, err // a last line without a newline is still served
		}
		var r *Refusal
		switch {
		case tooLong:
			r = invalid(nil, "the message is longer than %d bytes (the limit of one message, server.max_body_bytes)", f.max)
		case len(bytes.TrimSpace(line)) == 0:
			continue
		case f.batches && bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
			r = CheckBatch(line)
		default:
			if r = Check(line); r == nil {
				f.noteInitialize(line)
			}
		}
		if r == nil {
			return append(bytes.TrimSpace(line), '\n'), nil
		}
		if _, werr := f.out.Write(append(r.Response(), '\n')); werr != nil {
			return nil, fmt.Errorf("answering a malformed message: %w", werr)
		}
	}
}

// readLine reads up to the next newline. A line over the limit is read to
// its end and dropped (tooLong), never held in memory whole.
func (f *filter) readLine() (line []byte, tooLong bool, err error) {
	f.line = f.line[:0]
	for {
		chunk, err := f.br.ReadSlice('\n')
		if !tooLong {
			if len(f.line)+len(chunk) > f.max+1 { // +1: the newline
				tooLong, f.line = true, f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		switch {
		case err == nil:
			return f.line, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case tooLong:
			return nil, true, err
		default:
			return f.line, false, err
		}
	}
}

func (f *filter) Close() error {
	if c, ok := f.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// noteInitialize records whether an initialize request asks for a protocol
// version with batches (the SDK then negotiates that version).
func (f *filter) noteInitialize(line []byte) {
	if len(f.batchVersions) == 0 || !bytes.Contains(line, []byte(`"initialize"`)) {
		return
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) == nil && m.Method == "initialize" {
		f.batches = slices.Contains(f.batchVersions, m.Params.ProtocolVersion)
	}
}
