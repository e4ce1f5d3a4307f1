package extract

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func utf16Bytes(s string, bigEndian, bom bool) []byte {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func mustRawText(t *testing.T, content []byte, docType string) Result {
	t.Helper()
	r, err := RawText(content, docType)
	if err != nil {
		t.Fatalf("RawText: %v", err)
	}
	return r
}

func TestRawTextEncodings(t *testing.T) {
	const text = "héllo wörld 😀\r\nline two\n"
	const want = "héllo wörld 😀\nline two\n"
	cases := []struct {
		name    string
		in      []byte
		wantEnc string
	}{
		{"utf-8", []byte(text), EncUTF8},
		{"utf-8 BOM", append([]byte{0xEF, 0xBB, 0xBF}, text...), EncUTF8},
		{"utf-16le BOM", utf16Bytes(text, false, true), EncUTF16LE},
		{"utf-16be BOM", utf16Bytes(text, true, true), EncUTF16BE},
		{"utf-16le no BOM", utf16Bytes(text, false, false), EncUTF16LE},
		{"utf-16be no BOM", utf16Bytes(text, true, false), EncUTF16BE},
	}
	for _, c := range cases {
		r := mustRawText(t, c.in, record.DocText)
		if r.Text != want || r.Encoding != c.wantEnc {
			t.Errorf("%s: got %q (%s), want %q (%s)", c.name, r.Text, r.Encoding, want, c.wantEnc)
		}
		if r.Map != nil {
			t.Errorf("%s: Map = %v, want nil for text", c.name, r.Map)
		}
	}
}

func TestRawTextWindows1252(t *testing.T) {
	// "café – naïve €5" in Windows-1252, with CRLF.
	in := []byte("caf\xe9 \x96 na\xefve \x805\r\n\xa9 1999\r\n")
	r := mustRawText(t, in, record.DocText)
	if r.Text != "café – naïve €5\n© 1999\n" || r.Encoding != EncWindows1252 {
		t.Errorf("got %q (%s)", r.Text, r.Encoding)
	}
}

func TestRawTextDamagedUTF8StaysUTF8(t *testing.T) {
	// Mostly UTF-8 with one stray byte: keep UTF-8, replace the byte.
	in := []byte("naïve café über\n\xff end\n")
	r := mustRawText(t, in, record.DocText)
	if r.Text != "naïve café über\n\uFFFD end\n" || r.Encoding != EncUTF8 {
		t.Errorf("got %q (%s)", r.Text, r.Encoding)
	}
}

func TestRawTextUTF16Surrogates(t *testing.T) {
	in := utf16Bytes("a😀b", false, true)
	in = append(in, 0x00, 0xD8, 'c', 0) // unpaired high surrogate, then 'c'
	in = append(in, 'x')                // odd trailing byte
	r := mustRawText(t, in, record.DocText)
	if r.Text != "a😀b\uFFFDc\uFFFD" {
		t.Errorf("got %q", r.Text)
	}
}

func TestRawTextLineEndingsAndControls(t *testing.T) {
	in := "a\r\nb\rc\n\x00x\x01\ty\x7f\u0085z\fw\n\r\n"
	r := mustRawText(t, []byte(in), record.DocCode)
	want := "a\nb\nc\n x \ty  z w\n\n"
	if r.Text != want {
		t.Errorf("got %q, want %q", r.Text, want)
	}
}

// Citations are line numbers in the original file: for code the
// representation must have exactly the source's lines, and columns.
func TestRawTextPreservesLineCountAndColumns(t *testing.T) {
	src := "package x\r\n\r\nfunc f() {\r\n\treturn\x00 // nul\r\n}\r\n// last line without newline"
	r := mustRawText(t, []byte(src), record.DocCode)
	got := strings.Split(r.Text, "\n")
	want := strings.Split(src, "\r\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if len([]rune(got[i])) != len([]rune(want[i])) {
			t.Errorf("line %d: %q has a different width from %q", i+1, got[i], want[i])
		}
	}
}

func TestRawTextUnchangedInputIsShared(t *testing.T) {
	in := "clean\ttext\nwith ünïcode\n"
	r := mustRawText(t, []byte(in), record.DocData)
	if r.Text != in || r.Encoding != EncUTF8 || r.Title != "" {
		t.Errorf("got %+v", r)
	}
}

func TestRawTextEmpty(t *testing.T) {
	for _, dt := range []string{record.DocCode, record.DocMarkdown, record.DocHTML} {
		r := mustRawText(t, nil, dt)
		if r.Text != "" || r.Encoding != EncUTF8 {
			t.Errorf("%s: got %+v", dt, r)
		}
	}
}

func TestRawTextErrors(t *testing.T) {
	_, err := RawText([]byte("x"), record.DocPDF)
	var e *errcode.Error
	if !errors.As(err, &e) || e.Code != errcode.ExtractFailed || !strings.Contains(e.Message, "pdf") {
		t.Errorf("pdf: err = %v, want EXTRACT_FAILED naming the type", err)
	}
	bin := []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\x10\x10\x00\x00")
	_, err = RawText(bin, record.DocCode)
	if !errors.As(err, &e) || e.Code != errcode.ExtractFailed || !strings.Contains(e.Message, "binary") {
		t.Errorf("binary: err = %v, want EXTRACT_FAILED about binary content", err)
	}
	// Form feeds and ANSI escapes are text, not binary.
	if _, err := RawText([]byte("\x1b[31mred\x1b[0m\f\x1b[1m!\x1b[0m\n"), record.DocText); err != nil {
		t.Errorf("colored log rejected: %v", err)
	}
}
