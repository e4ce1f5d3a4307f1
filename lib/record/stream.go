package record

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// MaxLineBytes bounds one NDJSON line a Reader accepts (chunk text included).
const MaxLineBytes = 64 << 20

// Writer writes records as NDJSON, one per line. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	bw  *bufio.Writer
	enc *json.Encoder
	// AutoFlush flushes after every record (for interactive pipelines).
	AutoFlush bool
}

// NewWriter returns a Writer on w. Call Flush when done.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{bw: bw, enc: enc}
}

// Write encodes one record followed by a newline.
func (w *Writer) Write(rec any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enc.Encode(rec); err != nil {
		return err
	}
	if w.AutoFlush {
		return w.bw.Flush()
	}
	return nil
}

// Flush writes any buffered data.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bw.Flush()
}

// Reader reads NDJSON records of one expected type. Blank lines are skipped;
// unknown fields are ignored; a record of another type, a malformed line or an
// unsupported major version is an error naming the line number.
type Reader struct {
	sc   *bufio.Scanner
	want string
	line int
}

// NewReader returns a Reader of records whose "type" is want.
func NewReader(r io.Reader, want string) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256<<10), MaxLineBytes)
	return &Reader{sc: sc, want: want}
}

type header struct {
	Type string `json:"type"`
	V    string `json:"v"`
}

// Next decodes the next record into dst (a *Document, *Chunk or *Event).
// It returns io.EOF at the end of input.
func (r *Reader) Next(dst any) error {
	for r.sc.Scan() {
		r.line++
		b := r.sc.Bytes()
		if len(trimSpace(b)) == 0 {
			continue
		}
		return decode(b, r.want, dst, fmt.Sprintf("line %d: ", r.line))
	}
	if err := r.sc.Err(); err != nil {
		return fmt.Errorf("record: line %d: %w", r.line+1, err)
	}
	return io.EOF
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Decode reads one record of type want from b (one NDJSON line, or one
// stream message) into dst, with the checks of Reader.Next.
func Decode(b []byte, want string, dst any) error { return decode(b, want, dst, "") }

// decode checks the envelope, then decodes; where prefixes messages (the
// line number of a Reader).
func decode(b []byte, want string, dst any, where string) error {
	var h header
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("record: %snot a JSON object: %v", where, err)
	}
	if h.Type != want {
		return fmt.Errorf("record: %sgot a %q record, want %q", where, h.Type, want)
	}
	if err := CheckVersion(h.Type, h.V); err != nil {
		return fmt.Errorf("%s%w", where, err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("record: %s%v", where, err)
	}
	return nil
}
