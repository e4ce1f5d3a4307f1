// Package pdf extracts the text layer of PDF files offline, page by page,
// so a digital PDF is searchable with page citations without any provider,
// and reports which pages have no text layer (scans) so OCR runs only on
// those (ingest.pdf.mode auto).
//
// Parsing (cross-reference tables and streams, object streams, filters,
// RC4/AES-128 decryption with an empty user password, simple-font
// encodings) is lib/pdf/internal/parse, a copy of github.com/ledongthuc/pdf
// (a maintained fork of rsc.io/pdf, BSD) with fixes for the hangs and
// unbounded allocations that fuzzing found. The text layout on top of it is
// ours: a content-stream interpreter that places glyphs with the font's widths, breaks lines on
// vertical moves, puts spaces into positioned gaps (TeX output has no
// space characters), follows Form XObjects and reads ToUnicode CMaps for
// composite (Type0) fonts. Every call into the parser runs under recover:
// encrypted, corrupt or truncated files become EXTRACT_FAILED errors with a
// reason, never a panic.
package pdf

import (
	"bytes"
	"io"
	"os"
	"strings"
	"unicode"

	lpdf "github.com/dir2mcp/dir2mcp/lib/pdf/internal/parse"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Page is the text layer of one page.
type Page struct {
	Number int // 1-based
	Text   string
	// HasText reports whether the page has a usable text layer (at least
	// Options.MinChars letters or digits); pages without one need OCR.
	HasText bool
	// Err is set when this page could not be read; the other pages are
	// still returned.
	Err error
}

// Document is a PDF's pages in order.
type Document struct {
	Pages []Page
}

// Options bounds extraction. Zero fields take the defaults noted.
type Options struct {
	// MaxPages stops after this many pages (default 5000).
	MaxPages int
	// MaxTextBytes caps the text kept per page (default 1 MiB).
	MaxTextBytes int
	// MinChars is how many letters or digits make a text layer
	// (default 8).
	MinChars int
}

func (o Options) normalized() Options {
	if o.MaxPages <= 0 {
		o.MaxPages = 5000
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = 1 << 20
	}
	if o.MinChars <= 0 {
		o.MinChars = 8
	}
	return o
}

// PagesWithoutText returns the 1-based numbers of the pages that need OCR.
func (d *Document) PagesWithoutText() []int {
	var out []int
	for _, p := range d.Pages {
		if !p.HasText {
			out = append(out, p.Number)
		}
	}
	return out
}

// Text joins the pages' text, separated by form feeds.
func (d *Document) Text() string {
	parts := make([]string, len(d.Pages))
	for i, p := range d.Pages {
		parts[i] = p.Text
	}
	return strings.Join(parts, "\f")
}

// ExtractFile extracts the file at path.
func ExtractFile(path string, opt Options) (*Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errcode.Wrap(errcode.ExtractFailed, err, "pdf: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errcode.Wrap(errcode.ExtractFailed, err, "pdf: %v", err)
	}
	return Extract(f, st.Size(), opt)
}

// Extract reads the text layer of the PDF in r (size bytes). It fails with
// EXTRACT_FAILED, naming the reason, when the file is not a PDF, is
// encrypted with a password, or is too damaged to find its pages; a page
// that fails alone is returned with Err set and no text.
func Extract(r io.ReaderAt, size int64, opt Options) (doc *Document, err error) {
	opt = opt.normalized()
	defer func() {
		if x := recover(); x != nil {
			doc, err = nil, failed("the file is damaged (%v)", x)
		}
	}()
	rd, err := open(r, size)
	if err != nil {
		return nil, err
	}
	refs := pageTree(rd, opt.MaxPages)
	if len(refs) == 0 {
		return nil, failed("no pages found")
	}
	doc = &Document{}
	for i, ref := range refs {
		doc.Pages = append(doc.Pages, extractPage(ref, i+1, opt))
	}
	return doc, nil
}

func failed(format string, args ...any) *errcode.Error {
	return errcode.New(errcode.ExtractFailed, "pdf: "+format, args...)
}

// open checks the header, trims junk after the last %%EOF and opens the
// document, mapping the parser's errors to reasons a user understands.
func open(r io.ReaderAt, size int64) (*lpdf.Reader, error) {
	head := make([]byte, 1024)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("%PDF-")) {
		return nil, failed("not a PDF file (no %%PDF- header)")
	}
	tailLen := min(size, 4096)
	tail := make([]byte, tailLen)
	if _, err := r.ReadAt(tail, size-tailLen); err != nil && err != io.EOF {
		return nil, failed("reading the file: %v", err)
	}
	eof := bytes.LastIndex(tail, []byte("%%EOF"))
	if eof < 0 {
		return nil, failed("the file is truncated (no %%%%EOF marker)")
	}
	size = size - tailLen + int64(eof) + 5
	var src io.ReaderAt = r
	if !validHeader(head) {
		src = headerFix{r}
	}
	rd, err := lpdf.NewReader(src, size)
	if err != nil {
		msg := err.Error()
		switch {
		case err == lpdf.ErrInvalidPassword || strings.Contains(msg, "encrypt"):
			return nil, failed("the file is encrypted and needs a password")
		case strings.Contains(msg, "startxref") || strings.Contains(msg, "cross-reference") || strings.Contains(msg, "xref"):
			return nil, failed("the file is truncated or damaged (%s)", msg)
		}
		return nil, failed("the file is damaged (%s)", msg)
	}
	return rd, nil
}

// validHeader reports whether the parser accepts head's first line as is:
// "%PDF-1.0" to "%PDF-1.7" directly followed by a line end.
func validHeader(head []byte) bool {
	return len(head) > 8 && bytes.HasPrefix(head, []byte("%PDF-1.")) && head[7] >= '0' && head[7] <= '7' && (head[8] == '\n' || head[8] == '\r')
}

// fixedHeader replaces the first bytes of a file whose header the parser
// would reject (PDF 2.0, a space before the line end): the version does
// not change how the file is parsed.
var fixedHeader = []byte("%PDF-1.7\n")

type headerFix struct{ r io.ReaderAt }

func (h headerFix) ReadAt(p []byte, off int64) (int, error) {
	n, err := h.r.ReadAt(p, off)
	for i := off; i < int64(len(fixedHeader)) && i-off < int64(n); i++ {
		p[i-off] = fixedHeader[i]
	}
	return n, err
}

// pageRef is a page dictionary with the resources it inherits.
type pageRef struct {
	page, resources lpdf.Value
}

// pageTree lists up to max pages in document order. It walks the tree
// itself, carrying inherited resources down, with a bound on depth and on
// nodes visited: a Kids or Parent cycle in a damaged file must end, not
// recurse until the stack overflows.
func pageTree(rd *lpdf.Reader, max int) []pageRef {
	var out []pageRef
	budget := 4*max + 1000
	var walk func(node, res lpdf.Value, depth int)
	walk = func(node, res lpdf.Value, depth int) {
		if depth > 64 || budget <= 0 || len(out) >= max || node.Kind() != lpdf.Dict {
			return
		}
		budget--
		if r := node.Key("Resources"); !r.IsNull() {
			res = r
		}
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Page" || kids.Kind() != lpdf.Array {
			out = append(out, pageRef{node, res})
			return
		}
		for i := 0; i < kids.Len(); i++ {
			walk(kids.Index(i), res, depth+1)
		}
	}
	walk(rd.Trailer().Key("Root").Key("Pages"), lpdf.Value{}, 0)
	return out
}

// extractPage reads one page; a panic in the parser loses only this page.
func extractPage(ref pageRef, num int, opt Options) (p Page) {
	p.Number = num
	var out textOut
	out.max = opt.MaxTextBytes
	defer func() {
		if x := recover(); x != nil {
			p.Err = failed("page %d is damaged (%v)", num, x)
		}
		p.Text = clean(out.String())
		p.HasText = countAlnum(p.Text) >= opt.MinChars
	}()
	newInterp(&out).run(ref.page.Key("Contents"), ref.resources, identity, 0)
	return p
}

// ligatures expands presentation forms so "ﬁle" matches "file".
var ligatures = strings.NewReplacer("ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st", "\u00a0", " ", "\u00ad", "")

// clean expands ligatures, drops control characters and trailing spaces.
func clean(s string) string {
	s = ligatures.Replace(s)
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line = strings.Map(func(r rune) rune {
			if r == '\t' {
				return ' '
			}
			if r == unicode.ReplacementChar || unicode.IsControl(r) {
				return -1
			}
			return r
		}, line)
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	return strings.Trim(b.String(), "\n ")
}

func countAlnum(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}
