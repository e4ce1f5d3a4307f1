package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads GIF, JPEG and PNG sizes
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/pdf"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// PageSep separates the pages of an ocr_markdown representation's stored
// content: page n is the n-th field of strings.Split(content, PageSep).
const PageSep = "\f"

// Sources of a page's text in ocr_markdown meta_json.
const srcTextLayer = "text_layer"

// pagesMeta is the meta_json of an ocr_markdown representation (SPEC §5.2:
// provider and model of the OCR), with where each page's text came from.
type pagesMeta struct {
	Provider       string `json:"provider"`
	Model          string `json:"model"`
	Pages          int    `json:"pages"`
	TextLayerPages []int  `json:"text_layer_pages,omitempty"`
	OCRPages       []int  `json:"ocr_pages,omitempty"`
	// NoTextPages had neither a text layer nor an OCR engine; they are
	// recognised once one is configured.
	NoTextPages []int `json:"no_text_pages,omitempty"`
}

// pdfRep reads a PDF's pages: the text layer offline, OCR for the pages
// that need it (ingest.pdf.mode auto: pages without a text layer; ocr:
// every page, unless the only engine is the offline one, which reads a
// text layer worse than the PDF states it).
func (x *Extractor) pdfRep(ctx context.Context, r result, data []byte) result {
	doc, err := pdf.Extract(bytes.NewReader(data), int64(len(data)), pdf.Options{})
	if err != nil {
		return x.failed(r, record.StatusError, errcode.Of(err), errcode.As(err).Message)
	}
	n := len(doc.Pages)
	texts := make([]string, n)
	meta := pagesMeta{Provider: "dir2mcp", Model: "pdf-text-layer", Pages: n}
	engine := x.Media.ocr()
	var want []int
	if engine != nil {
		if x.Config.Ingest.PDF.Mode == "ocr" && !x.Media.OCRLocal {
			for _, p := range doc.Pages {
				want = append(want, p.Number)
			}
		} else {
			want = doc.PagesWithoutText()
		}
	}
	wanted := map[int]bool{}
	for _, p := range want {
		wanted[p] = true
	}
	for i, p := range doc.Pages {
		switch {
		case wanted[p.Number]:
		case p.HasText:
			texts[i] = p.Text
			meta.TextLayerPages = append(meta.TextLayerPages, p.Number)
		default:
			meta.NoTextPages = append(meta.NoTextPages, p.Number)
		}
	}
	if len(want) > 0 {
		sel := want
		if len(want) == n {
			sel = nil // all pages: one cache entry whatever the mode
		}
		res, err := engine.OCR(ctx, ocr.Document{Data: data, MIME: "application/pdf", Name: r.doc.RelPath, Pages: sel})
		if err != nil {
			return x.providerFailure(r, "OCR", err)
		}
		meta.Provider, meta.Model = res.Provider, res.Model
		for _, pg := range res.Pages {
			if pg.Number >= 1 && pg.Number <= n && wanted[pg.Number] {
				texts[pg.Number-1] = pg.Markdown
				meta.OCRPages = append(meta.OCRPages, pg.Number)
			}
		}
	}
	if len(meta.TextLayerPages) == 0 && len(meta.OCRPages) == 0 && len(meta.NoTextPages) > 0 {
		return x.failed(r, record.StatusSkipped, errcode.AwaitingProvider,
			"scanned PDF without a text layer; its pages need OCR: "+x.Media.whyNoOCR())
	}
	return x.pagesRep(r, texts, meta)
}

// Images smaller than this (icons, bullets, spacers) hold no legible text
// and are not sent to OCR.
const minTextImageWidth, minTextImageHeight = 48, 16

// imageRep recognises the text of an image as its page 1.
func (x *Extractor) imageRep(ctx context.Context, r result, data []byte) result {
	if c, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && (c.Width < minTextImageWidth || c.Height < minTextImageHeight) {
		return x.failed(r, record.StatusSkipped, errcode.DocTypeUnsupported,
			fmt.Sprintf("image of %d×%d px is too small to hold legible text (OCR needs at least %d×%d)", c.Width, c.Height, minTextImageWidth, minTextImageHeight))
	}
	mime := ocr.MIMEByExt(r.doc.RelPath)
	if mime == "" || mime == "application/pdf" {
		mime = http.DetectContentType(data)
	}
	res, err := x.Media.ocr().OCR(ctx, ocr.Document{Data: data, MIME: mime, Name: r.doc.RelPath})
	if err != nil {
		return x.providerFailure(r, "OCR", err)
	}
	meta := pagesMeta{Provider: res.Provider, Model: res.Model, Pages: 1, OCRPages: []int{1}}
	text := ""
	for _, p := range res.Pages {
		if p.Number == 1 {
			text = p.Markdown
		}
	}
	return x.pagesRep(r, []string{text}, meta)
}

// pagesRep builds the ocr_markdown representation of page texts: chunked
// per page first, then by size, each chunk citing its page.
func (x *Extractor) pagesRep(r result, texts []string, meta pagesMeta) result {
	for i, t := range texts {
		texts[i] = strings.ReplaceAll(t, PageSep, "\n")
	}
	content := strings.Join(texts, PageSep)
	if r2, hit := x.secretIn(r, content); hit {
		return r2
	}
	for i, t := range texts {
		texts[i], _ = x.redact.Mask(t)
	}
	content = strings.Join(texts, PageSep)
	metaJSON, _ := json.Marshal(meta)
	r.act = actReplace
	for i, t := range texts {
		for _, p := range chunk.Text(t, textOptions(x.Config)) {
			r.pieces = append(r.pieces, chunkInput(p.Text, record.KindText, record.Page(i+1)))
		}
	}
	first := content
	if i := strings.Index(first, PageSep); i >= 0 {
		first = first[:i]
	}
	r.about = extract.Describe(extract.Result{Text: first}, nil, record.DocText, r.doc.RelPath)
	maskAbout(x.redact, &r.about)
	r.title = r.about.Title
	r.rep = store.RepInput{
		Type: record.RepOCRMarkdown, Hash: mediaRepHash(x.Config, string(metaJSON), content),
		MetaJSON: string(metaJSON), Content: &content,
	}
	return r
}

// mediaRepHash identifies a media representation: its text, where it came
// from, and the chunking that cut it.
func mediaRepHash(cfg *config.Config, meta, content string) string {
	ch := cfg.Chunking
	return contentHash(fmt.Sprintf("%s\x00%d/%d/%d/%d/%d\x00%s\x00", mediaVersion, ch.MaxChars, ch.OverlapChars, ch.MinChars,
		ch.Transcript.SegmentMs, ch.Transcript.OverlapMs, meta), content)
}
