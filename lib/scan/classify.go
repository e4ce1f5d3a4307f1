package scan

import (
	"bytes"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// SniffLen is how many leading bytes Classify looks at.
const SniffLen = 8 << 10

// Classify returns a file's doc type (record.Doc*) and, for code, its
// language, from its base name and the first bytes of its content (up to
// SniffLen; more are ignored).
//
// The name decides first: exact names (Makefile, go.mod, LICENSE, ...),
// then the extension. Names of PDFs, images, audio, archives and known
// binaries are trusted without looking at the content. Text-like types are
// confirmed by content: a file that looks binary is reclassified by its
// magic number (%PDF, PNG, ZIP, ...) or becomes binary_ignored. A name that
// decides nothing is sniffed: binary content by magic number and
// http.DetectContentType, text by shebang ("#!/usr/bin/env python3" is
// python code) and markup (HTML, XML), else plain text.
func Classify(name string, head []byte) (docType, lang string) {
	c := classify(name, head)
	return c.docType, c.lang
}

func classify(name string, head []byte) class {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	c, ok := classifyName(name)
	if ok && !textLike(c.docType) {
		return c
	}
	if looksBinary(head) {
		return sniffBinary(head)
	}
	if ok {
		return c
	}
	if lang := shebangLang(head); lang != "" {
		return code(lang)
	}
	switch ct := http.DetectContentType(head); {
	case strings.HasPrefix(ct, "text/html"):
		return clsHTML
	case strings.HasPrefix(ct, "text/xml"):
		return clsData
	}
	return clsText
}

// classifyName classifies by name alone; ok is false when the name does
// not decide and the content must be sniffed.
func classifyName(name string) (class, bool) {
	if c, ok := byName[name]; ok {
		return c, true
	}
	lower := strings.ToLower(name)
	if strings.HasPrefix(name, "Dockerfile.") || strings.HasSuffix(lower, ".dockerfile") {
		return code("dockerfile"), true
	}
	for _, ext := range []string{".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"} {
		if strings.HasSuffix(lower, ext) {
			return clsArchive, true
		}
	}
	ext := path.Ext(lower)
	if ext == ".s" && strings.HasSuffix(name, ".S") {
		return code("assembly"), true
	}
	if c, ok := byExt[ext]; ok && ext != lower {
		return c, true
	}
	stem := strings.ToUpper(strings.TrimSuffix(name, path.Ext(name)))
	if i := strings.IndexAny(stem, "-_."); i > 0 {
		stem = stem[:i]
	}
	if textNames[stem] {
		return clsText, true
	}
	return class{}, false
}

// textLike reports whether docType is read as text (and so scanned for
// secrets and checked for binary content).
func textLike(docType string) bool {
	switch docType {
	case record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML:
		return true
	}
	return false
}

// looksBinary applies the binary heuristic to the start of a file: a byte
// order mark means text (UTF-8, UTF-16 or UTF-32, whose NUL bytes are
// expected); otherwise a NUL byte (as git decides), more than 10% control
// characters, or more than 30% control characters and invalid UTF-8 means
// binary. Legacy 8-bit text with accents here and there (Latin-1) stays
// text; text in a legacy encoding made mostly of high bytes (KOI8-R,
// CP1251) does not.
func looksBinary(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	for _, bom := range [][]byte{{0xEF, 0xBB, 0xBF}, {0xFF, 0xFE}, {0xFE, 0xFF}, {0x00, 0x00, 0xFE, 0xFF}} {
		if bytes.HasPrefix(head, bom) {
			return false
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	ctrl, invalid := 0, 0
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != '\b' && c != 0x1b {
				ctrl++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && w == 1 {
			if len(head) == SniffLen && !utf8.FullRune(head[i:]) {
				break // a rune cut by the sniff window
			}
			invalid++
		}
		i += w
	}
	return ctrl*10 > len(head) || (ctrl+invalid)*10 > 3*len(head)
}

// sniffBinary classifies binary content by magic number.
func sniffBinary(head []byte) class {
	has := func(off int, magic string) bool {
		return len(head) >= off+len(magic) && string(head[off:off+len(magic)]) == magic
	}
	switch {
	case has(0, "%PDF-"):
		return clsPDF
	case has(0, "\x89PNG\r\n\x1a\n"), has(0, "\xff\xd8\xff"), has(0, "GIF87a"), has(0, "GIF89a"),
		has(0, "RIFF") && has(8, "WEBP"), has(0, "II*\x00"), has(0, "MM\x00*"):
		return clsImage
	case has(0, "RIFF") && has(8, "WAVE"), has(0, "ID3"), has(0, "OggS"), has(0, "fLaC"),
		has(4, "ftypM4A"), has(4, "ftypM4B"), has(0, "FORM") && has(8, "AIFF"),
		len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0 && head[1]&0x06 != 0: // MPEG audio frame
		return clsAudio
	case has(0, "PK\x03\x04"), has(0, "PK\x05\x06"), has(0, "\x1f\x8b"), has(257, "ustar"), has(0, "BZh"),
		has(0, "\xfd7zXZ\x00"), has(0, "7z\xbc\xaf\x27\x1c"), has(0, "Rar!\x1a\x07"), has(0, "\x28\xb5\x2f\xfd"):
		return clsArchive
	}
	ct := http.DetectContentType(head)
	switch {
	case strings.HasPrefix(ct, "image/"):
		return clsImage
	case ct == "application/ogg", strings.HasPrefix(ct, "audio/") && ct != "audio/midi":
		return clsAudio
	case ct == "application/pdf":
		return clsPDF
	case ct == "application/zip", ct == "application/x-gzip", ct == "application/x-rar-compressed":
		return clsArchive
	}
	return clsBinary
}

// shebangLang returns the language named by a "#!" first line, or "".
func shebangLang(head []byte) string {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	interp := path.Base(fields[0])
	if interp == "env" {
		interp = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			interp = path.Base(f)
			break
		}
	}
	interp = strings.ToLower(strings.TrimRight(interp, "0123456789."))
	return interpreters[interp]
}
