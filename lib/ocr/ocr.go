// Package ocr defines what an OCR engine takes and returns, so the indexer
// can use Mistral OCR (lib/provider/mistral) or the offline tesseract engine
// (lib/ocr/tesseract) interchangeably, and caches engine results.
package ocr

import (
	"context"
	"path"
	"strings"
)

// Document is a PDF or an image to recognise.
type Document struct {
	Data []byte
	// MIME is the media type: "application/pdf" or an image type such as
	// "image/png" (see MIMEByExt).
	MIME string
	// Name is used in error messages (a rel_path).
	Name string
	// Pages selects PDF pages to recognise, 1-based; empty means all.
	Pages []int
}

// IsPDF reports whether d is a PDF.
func (d Document) IsPDF() bool { return d.MIME == "application/pdf" }

// Page is the recognised text of one page (an image is page 1).
type Page struct {
	Number   int    `json:"page"` // 1-based
	Markdown string `json:"markdown"`
}

// Result is an engine's output for one document.
type Result struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Pages    []Page `json:"pages"`
}

// Engine recognises text in documents. Implementations are safe for
// concurrent use.
type Engine interface {
	// Provider names the engine ("mistral", "tesseract").
	Provider() string
	// Model names the model or engine version; it is part of cache keys.
	Model() string
	// OCR returns the pages of d in page order. Errors are *errcode.Error.
	OCR(ctx context.Context, d Document) (*Result, error)
}

// MIMEByExt returns the media type of a PDF or image file name, or "" when
// the extension is not one OCR handles.
func MIMEByExt(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".pdf":
		return "application/pdf"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".tif", ".tiff":
		return "image/tiff"
	case ".bmp":
		return "image/bmp"
	case ".avif":
		return "image/avif"
	}
	return ""
}
