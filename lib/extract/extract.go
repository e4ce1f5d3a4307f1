// Package extract turns a document's raw bytes into its raw_text
// representation (SPEC §7.4 A): normalised UTF-8 with "\n" line endings.
//
// For code, text, markdown and data the representation keeps the source's
// line structure exactly, so representation line N is source line N and a
// citation [path:L10-L20] points at the same lines in the original file
// (as SourceText shows them). HTML is converted to markdown-ish text;
// Result.Map then says which source lines each representation line came
// from and which of its bytes the conversion added.
//
// A "line" throughout is a "\n"-terminated segment of the text; a final
// segment without a trailing "\n" is a line too, and a trailing "\n" does
// not start another one.
package extract

import (
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// Encoding names reported in Result.Encoding.
const (
	EncUTF8        = "utf-8"
	EncUTF16LE     = "utf-16le"
	EncUTF16BE     = "utf-16be"
	EncWindows1252 = "windows-1252"
)

// Result is a document's raw_text representation.
type Result struct {
	// Text is normalised UTF-8: no BOM, "\n" line endings, and control
	// characters other than tab and newline replaced by a space.
	Text string
	// Map has one entry per representation line: the source lines (of
	// SourceText) its text came from and the markup the conversion added.
	// It is nil when representation lines are source lines (code, text,
	// md, data); for HTML it is non-nil and First is non-decreasing.
	Map srcmap.Map
	// Encoding is the detected source encoding: one of the Enc* constants,
	// or for HTML the canonical name of a charset its <meta> declared.
	Encoding string
	// Title is the document's obvious title (HTML <title> or first <h1>;
	// markdown front-matter title or first level-1 heading), else "".
	Title string
}

// maxTitleBytes caps Result.Title.
const maxTitleBytes = 256

// RawText decodes content and builds the raw_text representation for
// docType (record.DocCode, DocText, DocMarkdown, DocData or DocHTML).
//
// The encoding is detected from a BOM, from the NUL pattern of BOM-less
// UTF-16, from UTF-8 validity, from an HTML <meta charset>, and otherwise
// taken to be Windows-1252 (a superset of Latin-1's printable range).
// Non-HTML types keep the source's line count: CRLF and lone CR each become
// one "\n", and other control characters become a space so columns stay put.
//
// Errors are *errcode.Error with code EXTRACT_FAILED: an unsupported
// docType, or content that decodes to mostly control characters (a binary
// file classified as text).
func RawText(content []byte, docType string) (Result, error) {
	switch docType {
	case record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML:
	default:
		return Result{}, errcode.New(errcode.ExtractFailed, "doc type %q has no raw_text representation", docType)
	}
	decoded, enc := decode(content, docType == record.DocHTML)
	text, err := normalized(decoded, enc)
	if err != nil {
		return Result{}, err
	}
	res := Result{Text: text, Encoding: enc}
	switch docType {
	case record.DocHTML:
		res.Text, res.Map, res.Title = htmlToText(text)
	case record.DocMarkdown:
		res.Title = markdownTitle(text)
	}
	return res, nil
}

// looksBinary reports whether more than a quarter of the characters were
// control characters that text files do not contain.
func looksBinary(ctrl, runes int) bool {
	return ctrl > 0 && ctrl*4 > runes
}

// SourceText decodes content as RawText does for docType and normalises it
// keeping every line: the file's text as citations count its lines, which
// open_file shows. For code, text, markdown and data it equals RawText's
// Text; for HTML it is the markup itself, decoded by its declared charset.
// It fails like RawText.
func SourceText(content []byte, docType string) (string, error) {
	return normalized(decode(content, docType == record.DocHTML))
}

// normalized normalises decoded text (see normalize), failing when it
// looks binary.
func normalized(decoded, enc string) (string, error) {
	text, ctrl, runes := normalize(decoded)
	if looksBinary(ctrl, runes) {
		return "", errcode.New(errcode.ExtractFailed,
			"content looks binary: %d of %d characters are control characters (decoded as %s)", ctrl, runes, enc)
	}
	return text, nil
}
